// This file defines the timing pass as a whole: model, reduce, instrument,
// build, run with and without probes, and turn the measurements into a
// profile.

package estimator

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"github.com/predict-tools/predict/estimator/probe"
	"github.com/predict-tools/predict/estimator/runclock"
	"github.com/predict-tools/predict/modelgen"
	"github.com/predict-tools/predict/profile"
	"github.com/predict-tools/predict/reduce"
)

// Config describes a timing pass.
type Config struct {
	Dir     string   // directory the pattern is relative to
	Pattern string   // the program's package
	Tags    []string // build tags
	// Prepared, when set, is the program Pattern names already loaded,
	// modeled and reduced (without Tags): it is not loaded again.
	Prepared *reduce.Prepared
	NP       int      // ranks of the run (default 1)
	Args     []string // the program's arguments
	// ArgsAt, when set, gives the program's arguments at another np
	// (those in np, "-n {np*65536}", expanded there), for the run that
	// records the replayed values at a second np; nil: Args at every np.
	ArgsAt  func(np int) ([]string, error)
	Alpha   float64       // balance threshold (default 0.1)
	Timeout time.Duration // per run (default 10 minutes)
	// Repeat is how many times each binary runs, plain and instrumented
	// alternately (default 3): each fragment's mean is the median over
	// the probed runs, the plain run's compute the median of the plain
	// runs' (combine); the spreads and every plain run's span are
	// recorded. With Repeat ≥ 2 one more probed run records the opaque
	// decisions and times nothing; the probed runs, the pilot, and the
	// alone and loaded runs time the fragments without recording
	// (probe.NoBranchesEnv), so that a decision tested in hot code does
	// not slow the fragments they time.
	Repeat int
	// Fine keeps every fragment: no pilot run, no region timed whole
	// because its probes cost as much as it does (region.go). The
	// fragments of such regions then read slow or zero.
	Fine bool
	// Launcher, when set, runs every run of the pass under an MPI
	// launcher (launcher.go), its programs built with the mpi tag: NP is
	// then the launcher's (0 takes it; another is an error).
	Launcher *Launcher
	Work     string    // directory for builds and raw data ("" is a temporary one)
	Log      io.Writer // progress messages, or nil
}

// PassVersion changes when the timing pass measures other fragments or
// decisions for the same sources (a change of the model or of the
// instrumentation): cached profiles of an older pass are measured again
// (part of the key of [profile.Key]).
const PassVersion = 26

// DefaultRuns is how many times the timing pass runs each program.
const DefaultRuns = 3

// Remeasuring a disturbed measurement (profile.File.Disturbance), or one
// whose plain runs' compute spreads by more than MaxSpread.
const (
	MaxSpread = 0.10
	// RemeasureRatio makes the timing pass run both programs again (the
	// fastest run of each is kept), up to remeasureRounds more times.
	RemeasureRatio  = 1.5
	remeasureRounds = 2
)

// Run performs the timing pass and returns the profile.
func Run(cfg Config) (*profile.File, error) {
	if err := cfg.checkLauncher(); err != nil {
		return nil, err
	}
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
	if cfg.Repeat == 0 {
		cfg.Repeat = DefaultRuns
	}
	if cfg.Repeat < 0 {
		return nil, fmt.Errorf("repeat %d: want at least 1 run", cfg.Repeat)
	}
	logf := func(format string, args ...any) {
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, format+"\n", args...)
		}
	}
	prep := cfg.Prepared
	if prep == nil {
		err := Step(cfg.Log, fmt.Sprintf("loading %s and building its model", cfg.Pattern), func() error {
			var err error
			prep, err = reduce.Prepare(modelgen.Config{Dir: cfg.Dir, Pattern: cfg.Pattern, Tags: cfg.Tags}, reduce.Options{})
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	l := prep.Loaded
	plan, err := Instrument(prep)
	if err != nil {
		return nil, err
	}
	if err := checkPredictVersion(l); err != nil {
		return nil, err
	}
	hash, err := profile.ContentHash(l)
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
	tags := cfg.buildTags()
	plain, instr := filepath.Join(work, plainName), filepath.Join(work, instrumentedName)
	logf("building %s (plain and with %d probes)", pattern, len(plan.Fragments))
	logf("  %s", plan.WholeSummary())
	if err := Step(cfg.Log, "  building the plain program", func() error {
		return build(l, pattern, work, plainName, plain, tags, plainOverlay(l))
	}); err != nil {
		return nil, err
	}
	if err := Step(cfg.Log, "  building the instrumented program", func() error {
		return build(l, pattern, work, instrumentedName, instr, tags, plan.Overlay)
	}); err != nil {
		return nil, err
	}
	var pilot *probe.Raw // the pilot run, when the program it ran is the one measured
	if plan.Regions && !cfg.Fine {
		// A pilot run with probes finds the regions cheaper than their
		// probes: the program is instrumented again with those timed
		// whole (region.go).
		if err := Step(cfg.Log, fmt.Sprintf("running at np=%d with probes (pilot)", cfg.NP), func() error {
			rawPath := filepath.Join(work, "pilot.json")
			if _, err := run(cfg.Launcher, instr, cfg.NP, cfg.Args, []string{probe.OutEnv + "=" + rawPath, probe.NoBranchesEnv + "=1"}, cfg.Timeout); err != nil {
				return err
			}
			var err error
			pilot, err = readProbed(cfg.Launcher, rawPath, cfg.NP)
			return err
		}); err != nil {
			return nil, err
		}
		if cuts := cutsOf(plan, pilot); len(cuts.regions)+len(cuts.segments) > 0 {
			if len(cuts.regions) > 0 {
				logf("%d regions take less than %v per execution with their probes: timed whole", len(cuts.regions), time.Duration(coarseNS(pilot.Overhead)))
			}
			ov := pilot.Overhead
			pilot = nil // it ran another program
			if plan, err = instrument(prep, cuts); err != nil {
				return nil, err
			}
			if plan.Unprobed > 0 {
				logf("%d segments take less than their probes (%v a pair): not probed, their time their regions'", plan.Unprobed, time.Duration(max(ov.PairNS, 1)))
			}
			if err := Step(cfg.Log, "  building the instrumented program again", func() error {
				return build(l, pattern, work, instrumentedName, instr, tags, plan.Overlay)
			}); err != nil {
				return nil, err
			}
		}
	}
	var (
		base, probed runResult
		baseRun      runclock.Times
		raw          *probe.Raw
		decRaw       *probe.Raw      // the probed run that records the decisions: the first
		other        *profile.Replay // the replayed values at a second np (replays.go)
		otherErr     string          // why there are none
		raws         []*probe.Raw    // every probed run
		computes     []int64         // every plain run's compute, ns
		rankComputes [][]int64       // every plain run's compute per rank, ns
		spans        []int64         // every plain run's span, ps
	)
	if pilot != nil {
		raws = append(raws, pilot) // one more measurement of the same program
	}
	assemble := func() *profile.File {
		p := &profile.File{
			Format: profile.Format, Version: profile.Version,
			Package: pattern, Module: l.Module, ContentHash: hash, NP: cfg.NP, Args: cfg.Args, Launcher: cfg.Launcher.String(),
			Host:    profile.ThisHost(),
			Created: time.Now().UTC().Format(time.RFC3339), Alpha: cfg.Alpha,
			WallPS: probed.wall.Nanoseconds() * 1000, PlainWallPS: base.wall.Nanoseconds() * 1000,
			PlainCPUPS: base.cpu.Nanoseconds() * 1000,
			RunPS:      raw.WallNS * 1000, PlainRunPS: baseRun.WallNS * 1000,
		}
		if baseRun.CPUNS > 0 {
			p.PlainRunCPUPS = baseRun.CPUNS * 1000
		}
		if rt := baseRun.Runtime; rt != nil {
			p.Runtime = runtimeOf(rt)
		}
		p.PlainSpansPS = slices.Clone(spans)
		if base.others >= 0 && probed.others >= 0 {
			p.OtherCores, p.CPUs = max(base.others, probed.others), runtime.NumCPU()
		}
		fill(p, plan, raw)
		if decRaw != raw {
			// The decisions of the run that recorded them (the others
			// time the fragments without recording: probe.NoBranchesEnv).
			dec := perRun(p, plan, []*probe.Raw{decRaw})[0]
			p.Decisions, p.CommArgs = dec.Decisions, dec.CommArgs
		}
		combine(p, plan, raws, computes)
		p.PlainRankComputePS = rankMedians(rankComputes)
		if other != nil {
			p.Replays = []profile.Replay{*other}
		}
		if otherErr != "" {
			p.Warnings = append(p.Warnings, otherErr)
		}
		return p
	}
	// Each round runs the program once more, with probes, in each of two
	// conditions (alone.go): when the ranks share the machine, taking
	// turns, to measure the fragments alone; when they leave CPUs idle,
	// beside co-runners streaming through memory on those CPUs, to
	// measure them beside a known load. A failure of such a run is said,
	// not fatal, and ends the runs of its kind.
	alone := extraRuns{on: cfg.NP >= 2, name: "alone", what: "the ranks taking turns (alone)", env: SerialEnv + "=1"}
	loaders := min(runtime.NumCPU()-cfg.NP, maxLoaders)
	loaded := extraRuns{on: loaders >= 1, name: "loaded", what: fmt.Sprintf("%d co-runner(s) streaming through memory (loaded)", loaders), env: fmt.Sprintf("%s=%d", StreamEnv, loaders)}
	skipped := cfg.skipUnderLauncher(&alone, &loaded)
	for _, w := range skipped {
		logf("profile: WARNING: %s", w)
	}
	// extraRun runs round i's run of kind x; plain is the round's run
	// without probes. A loaded run whose co-runners and ranks took turns
	// on a core is measured again, at most starvedTries times, then left
	// out (loadedStarved).
	starvedLeft := 0
	extraRun := func(x *extraRuns, i int, plain runResult) {
		if !x.on || x.err != nil {
			return
		}
		rawPath := filepath.Join(work, fmt.Sprintf("%s%d.json", x.name, i))
		for try := 1; ; try++ {
			var res runResult
			x.err = Step(cfg.Log, fmt.Sprintf("running at np=%d with probes, %s", cfg.NP, x.what), func() error {
				var err error
				res, err = run(cfg.Launcher, instr, cfg.NP, cfg.Args, []string{probe.OutEnv + "=" + rawPath, x.env, probe.NoBranchesEnv + "=1"}, cfg.Timeout)
				return err
			})
			if x.err != nil {
				return
			}
			if x == &loaded {
				if busy, need, starved := loadedStarved(res, plain, loaders, runtime.NumCPU()); starved {
					if try <= starvedTries {
						logf("profile: the run beside %d co-runner(s) kept %.2f cores busy where they and the ranks keep %.2f: a co-runner and a rank took turns on one core; measuring it again", loaders, busy, need)
						continue
					}
					starvedLeft++
					logf("profile: the run beside %d co-runner(s) kept %.2f cores busy where they and the ranks keep %.2f, %d times: left out", loaders, busy, need, try)
					return
				}
			}
			break
		}
		r, err := readProbed(cfg.Launcher, rawPath, cfg.NP)
		if x.err = err; err == nil {
			x.raws = append(x.raws, r)
		}
	}
	finish := func(p *profile.File) *profile.File {
		p.Warnings = append(p.Warnings, skipped...)
		if w := p.RuntimeWarning(); w != "" {
			p.Warnings = append(p.Warnings, w)
		}
		switch {
		case alone.err != nil:
			p.Warnings = append(p.Warnings, fmt.Sprintf("the run measuring each fragment alone failed (%v): the fragments are charged as measured with the %d ranks sharing this machine at every np", firstLine(alone.err), cfg.NP))
		case len(alone.raws) > 0:
			applyAlone(p, plan, alone.raws)
		}
		switch {
		case loaded.err != nil:
			p.Warnings = append(p.Warnings, fmt.Sprintf("the run measuring each fragment beside a memory load failed (%v): the fragments are charged as measured at every np, however busy their node", firstLine(loaded.err)))
		case len(loaded.raws) > 0:
			applyLoaded(p, plan, loaded.raws, loaders)
		}
		if starvedLeft > 0 {
			w := fmt.Sprintf("%d of the runs beside co-runners streaming through memory took turns with the ranks on a core (Go's scheduler left a CPU idle) and were left out", starvedLeft)
			if len(loaded.raws) == 0 {
				w += ": the fragments are charged as measured at every np, however busy their node"
			}
			p.Warnings = append(p.Warnings, w)
		}
		return p
	}
	// cfg.Repeat rounds, and up to remeasureRounds more while the two
	// runs disagree beyond their probes (profile.File.Disturbance).
	for i := 0; ; i++ {
		runPath := filepath.Join(work, fmt.Sprintf("run%d.json", i))
		var b runResult
		if err := Step(cfg.Log, fmt.Sprintf("running at np=%d without probes", cfg.NP), func() error {
			var err error
			b, err = run(cfg.Launcher, plain, cfg.NP, cfg.Args, []string{runclock.OutEnv + "=" + runPath}, cfg.Timeout)
			return err
		}); err != nil {
			return nil, err
		}
		t, err := readTimes(cfg.Launcher, runPath, cfg.NP)
		if err != nil {
			return nil, err
		}
		if i == 0 || t.WallNS < baseRun.WallNS {
			base, baseRun = b, t
		}
		if t.ComputeNS > 0 {
			computes = append(computes, t.ComputeNS)
		}
		if len(t.RankComputeNS) == cfg.NP {
			rankComputes = append(rankComputes, t.RankComputeNS)
		}
		spans = append(spans, t.WallNS*1000)
		if i == 0 && cfg.Repeat >= 2 {
			// A run of its own records the decisions and times nothing:
			// recording a decision tested in hot code slows what it is in.
			if decRaw, err = decisionsRun(cfg, instr, filepath.Join(work, "decisions.json"), cfg.NP, cfg.Args, ""); err != nil {
				return nil, err
			}
		}
		rawPath := filepath.Join(work, fmt.Sprintf("raw%d.json", i))
		env := []string{probe.OutEnv + "=" + rawPath}
		what := "with probes"
		if cfg.Repeat >= 2 {
			env = append(env, probe.NoBranchesEnv+"=1")
		} else {
			what = "with probes, recording its decisions"
		}
		var pr runResult
		if err := Step(cfg.Log, fmt.Sprintf("running at np=%d %s", cfg.NP, what), func() error {
			var err error
			pr, err = run(cfg.Launcher, instr, cfg.NP, cfg.Args, env, cfg.Timeout)
			return err
		}); err != nil {
			return nil, err
		}
		r, err := readProbed(cfg.Launcher, rawPath, cfg.NP)
		if err != nil {
			return nil, fmt.Errorf("reading the measurements: %v", err)
		}
		if decRaw == nil {
			decRaw = r // the only run records and times
		}
		if i == 0 && replays(decRaw) {
			// The replayed values belong to this np's decomposition: a
			// second np gives their trend (replays.go).
			np2 := replayNP(cfg.NP)
			if other, err = recordReplay(cfg, plan, instr, work, np2); err != nil {
				otherErr = fmt.Sprintf("the run recording the decisions at np=%d failed (%s): the values replayed from np=%d are taken as they are at every np", np2, firstLine(err), cfg.NP)
				logf("profile: %s", otherErr)
			}
		}
		if raw == nil || r.WallNS < raw.WallNS {
			probed, raw = pr, r
		}
		raws = append(raws, r)
		extraRun(&alone, i, b)
		extraRun(&loaded, i, b)
		if i+1 < cfg.Repeat {
			continue
		}
		p := assemble()
		d := p.Disturbance()
		load, loaded, known := p.OtherLoad()
		spread := p.Runs > 1 && p.SpreadRel > MaxSpread
		switch {
		case d <= RemeasureRatio && !loaded && !spread:
			return finish(p), nil
		case i+1 < cfg.Repeat+remeasureRounds && (loaded || !known || spread):
			// Measuring again helps against load, not against probes
			// that perturb the program on a quiet machine.
			why := load
			switch {
			case d > RemeasureRatio:
				why = p.DisturbanceNote()
			case spread:
				why = spreadNote(p)
			}
			logf("%s: measuring again (%d of %d more)", why, i+2-cfg.Repeat, remeasureRounds)
		default:
			// Said loudly, and left to the caller: predict profile refuses
			// (CheckDisturbance), the automatic pass warns and does not cache.
			if d > RemeasureRatio {
				p.Warnings = append(p.Warnings, fmt.Sprintf("%s, after %d runs of each; %s", p.DisturbanceNote(), i+1, p.DisturbanceEffect()))
			}
			if loaded {
				p.Warnings = append(p.Warnings, fmt.Sprintf("%s, after %d runs of each (profile again when the machine is quiet)", load, i+1))
			}
			if spread {
				p.Warnings = append(p.Warnings, fmt.Sprintf("%s, after %d runs of each (profile again when the machine is quiet)", spreadNote(p), i+1))
			}
			for _, w := range p.Warnings {
				logf("profile: WARNING: %s", w)
			}
			return finish(p), nil
		}
	}
}

// readRunTimes reads what package runclock wrote for a plain run.
func readRunTimes(path string) (runclock.Times, error) {
	t, err := runclock.Read(path)
	if errors.Is(err, fs.ErrNotExist) {
		return t, fmt.Errorf("the program ended without finishing a commlib run (it must call commlib.Main)")
	}
	if err != nil {
		return t, fmt.Errorf("reading the plain run's times: %v", err)
	}
	return t, nil
}

// spreadNote says how much the plain runs' compute spread.
func spreadNote(p *profile.File) string {
	return fmt.Sprintf("the runs without probes spread by %.0f%% (%d runs; more than %.0f%%)", 100*p.SpreadRel, p.Runs, 100*MaxSpread)
}

// runtimeOf is the profile's record of what the Go runtime and the system
// did during a plain run.
func runtimeOf(rt *runclock.GoRuntime) *profile.Runtime {
	ps := func(ns int64) int64 {
		if ns < 0 {
			return -1
		}
		return ns * 1000
	}
	return &profile.Runtime{GCCPUPS: ps(rt.GCCPUNS), ScavengeCPUPS: ps(rt.ScavengeCPUNS), AllocBytes: rt.AllocBytes,
		GCCycles: rt.GCCycles, SysCPUPS: ps(rt.SysCPUNS), MinorFaults: rt.MinorFaults}
}
