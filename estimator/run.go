// This file defines the timing pass as a whole: model, reduce, instrument,
// build, run with and without probes, and turn the measurements into a
// profile.

package estimator

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/predict-tools/predict/modelgen"
	"github.com/predict-tools/predict/reduce"
)

// Config describes a timing pass.
type Config struct {
	Dir     string        // directory the pattern is relative to
	Pattern string        // the program's package
	Tags    []string      // build tags
	NP      int           // ranks of the run (default 1)
	Args    []string      // the program's arguments
	Alpha   float64       // balance threshold (default 0.1)
	Timeout time.Duration // per run (default 10 minutes)
	Work    string        // directory for builds and raw data ("" is a temporary one)
	Log     io.Writer     // progress messages, or nil
}

// Run performs the timing pass and returns the profile.
func Run(cfg Config) (*ProfileFile, error) {
	if cfg.NP == 0 {
		cfg.NP = 1
	}
	if cfg.NP < 1 {
		return nil, fmt.Errorf("-np %d: want at least 1 rank", cfg.NP)
	}
	if cfg.Alpha == 0 {
		cfg.Alpha = 0.1
	}
	if cfg.Alpha < 0 || cfg.Alpha >= 1 {
		return nil, fmt.Errorf("--alpha %g: want a fraction between 0 and 1", cfg.Alpha)
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Minute
	}
	logf := func(format string, args ...any) {
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, format+"\n", args...)
		}
	}
	l, err := modelgen.Load(modelgen.Config{Dir: cfg.Dir, Pattern: cfg.Pattern, Tags: cfg.Tags})
	if err != nil {
		return nil, err
	}
	prog, ssaOf, err := modelgen.BuildWithSSA(l, modelgen.Options{})
	if err != nil {
		return nil, err
	}
	if _, err := reduce.Reduce(l, prog, ssaOf, reduce.Options{}); err != nil {
		return nil, err
	}
	plan, err := Instrument(l, prog, ssaOf)
	if err != nil {
		return nil, err
	}
	hash, err := ContentHash(l)
	if err != nil {
		return nil, err
	}
	work := cfg.Work
	if work == "" {
		if work, err = os.MkdirTemp("", "predict-profile-"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(work)
	}
	pattern := l.Main.Pkg.Path()
	plain, instr := filepath.Join(work, "plain"), filepath.Join(work, "instrumented")
	logf("building %s (plain and with %d probes)…", pattern, len(plan.Fragments))
	if err := build(l, pattern, work, plain, nil); err != nil {
		return nil, err
	}
	if err := build(l, pattern, work, instr, plan); err != nil {
		return nil, err
	}
	logf("running at np=%d without probes…", cfg.NP)
	base, err := run(plain, cfg.NP, cfg.Args, nil, cfg.Timeout)
	if err != nil {
		return nil, err
	}
	logf("running at np=%d with probes…", cfg.NP)
	rawPath := filepath.Join(work, "raw.json")
	probed, err := run(instr, cfg.NP, cfg.Args, []string{"PREDICT_PROBE_OUT=" + rawPath}, cfg.Timeout)
	if err != nil {
		return nil, err
	}
	raw, err := readRaw(rawPath)
	if err != nil {
		return nil, fmt.Errorf("reading the measurements: %v", err)
	}
	p := &ProfileFile{
		Format: ProfileFormat, Version: ProfileVersion,
		Package: pattern, Module: l.Module, ContentHash: hash, NP: cfg.NP, Args: cfg.Args,
		Host:    fmt.Sprintf("%s/%s, %d CPUs", runtime.GOOS, runtime.GOARCH, runtime.NumCPU()),
		Created: time.Now().UTC().Format(time.RFC3339), Alpha: cfg.Alpha,
		WallPS: probed.wall.Nanoseconds() * 1000, PlainWallPS: base.wall.Nanoseconds() * 1000,
		PlainCPUPS: base.cpu.Nanoseconds() * 1000,
	}
	p.fill(plan, raw)
	return p, nil
}
