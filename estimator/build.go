// This file defines the builds and runs of the timing pass: the plain and
// the instrumented binary, and running a program with its arguments.

package estimator

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/predict-tools/predict/modelgen"
)

// build compiles the package pattern (relative to the module directory)
// into bin with the build tags, with the files of overlay (absolute paths:
// replaced or added) written under work/name.
func build(l *modelgen.Loaded, pattern, work, name, bin string, tags []string, overlay map[string][]byte) error {
	args := []string{"build", "-o", bin}
	if len(tags) > 0 {
		args = append(args, "-tags", strings.Join(tags, ","))
	}
	// Never write the user's go.mod or go.sum, whatever GOFLAGS says; a
	// vendor directory keeps its own mode (the probes must be vendored).
	if _, err := os.Stat(filepath.Join(l.ModuleDir, "vendor", "modules.txt")); err != nil {
		args = append(args, "-mod=readonly")
	}
	if len(overlay) > 0 {
		replace := map[string]string{}
		dir := filepath.Join(work, "overlay-"+name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		files := slices.Sorted(maps.Keys(overlay))
		for i, orig := range files {
			dst := filepath.Join(dir, fmt.Sprintf("%03d_%s", i+1, filepath.Base(orig)))
			if err := os.WriteFile(dst, overlay[orig], 0o644); err != nil {
				return err
			}
			replace[orig] = dst
		}
		data, err := json.Marshal(map[string]any{"Replace": replace})
		if err != nil {
			return err
		}
		ov := filepath.Join(work, "overlay-"+name+".json")
		if err := os.WriteFile(ov, data, 0o644); err != nil {
			return err
		}
		args = append(args, "-overlay", ov)
	}
	args = append(args, pattern)
	cmd := exec.Command("go", args...)
	cmd.Dir = l.ModuleDir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		if slices.Contains(tags, mpiTag) {
			if hint := mpiBuildHint(out.String()); hint != "" {
				return fmt.Errorf("building the program with -tags %s (for --launcher): %s\n%s", strings.Join(tags, ","), hint, tail(out.String()))
			}
		}
		what := "the program"
		if name == instrumentedName {
			what = "the instrumented program (if the plain build worked, a bug of predict or a mismatch between this predict (" + ownVersion() + ") and the " + PredictModule + " your module requires: please report it with this output)"
		}
		return fmt.Errorf("building %s: %v\n%s", what, err, strings.TrimSpace(out.String()))
	}
	return nil
}

// The names of the two builds (binaries and overlay directories).
const (
	plainName        = "plain"
	instrumentedName = "instrumented"
)

// plainOverlay is the overlay of the plain build: one file added to the
// main package, installing package runclock, which times the run from
// inside.
func plainOverlay(l *modelgen.Loaded) map[string][]byte {
	mainDir := filepath.Dir(l.Prog.Fset.File(l.Syntax[l.Main.Pkg][0].Pos()).Name())
	return map[string][]byte{filepath.Join(mainDir, "zz_predict_runclock.go"): []byte(fmt.Sprintf(
		"package main\n\nimport __runclock %q\n\nfunc init() { __runclock.Install() }\n", RunclockPath))}
}

// RunclockPath is the import path of the package timing the plain run.
const RunclockPath = "github.com/predict-tools/predict/estimator/runclock"

// runResult is what one run of a program gave.
type runResult struct {
	wall   time.Duration
	cpu    time.Duration // user + system time of the process
	output string
	// others is the mean number of cores other processes kept busy
	// during the run (load.go; -1 where the system does not say).
	others float64
}

// run runs bin with np ranks and the program's arguments, with env added:
// one process with -np, or under launcher l (nil: none) with its number of
// ranks set to np.
func run(l *Launcher, bin string, np int, args []string, env []string, timeout time.Duration) (runResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var cmd *exec.Cmd
	if l == nil {
		cmd = exec.CommandContext(ctx, bin, append([]string{"-np", strconv.Itoa(np)}, args...)...)
		cmd.Env = append(os.Environ(), env...)
	} else {
		var done func()
		cmd, done = l.command(ctx, cancel, np, bin, args, env)
		defer done()
	}
	// Once the deadline has killed it, wait at most this long for its
	// output to close (a descendant may hold it): never past --timeout.
	cmd.WaitDelay = 5 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	busy0, haveBusy := cpuBusy()
	start := time.Now()
	err := cmd.Run()
	res := runResult{wall: time.Since(start), output: out.String(), others: -1}
	if ps := cmd.ProcessState; ps != nil {
		res.cpu = ps.UserTime() + ps.SystemTime()
		if busy1, ok := cpuBusy(); ok && haveBusy {
			res.others = otherCores(busy0, busy1, res.cpu, res.wall)
		}
	}
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return res, fmt.Errorf("the program did not finish within %v (raise --timeout)\n%s", timeout, tail(res.output))
	case ctx.Err() != nil:
		return res, fmt.Errorf("interrupted: the launcher %s and its ranks were stopped", l)
	case err != nil && l != nil:
		return res, fmt.Errorf("the program failed under --launcher %s: %v\n%s", l, err, tail(res.output))
	case err != nil:
		return res, fmt.Errorf("the program failed: %v\n%s", err, tail(res.output))
	}
	return res, nil
}

// mpiTag is the build tag of commlib's MPI runtime.
const mpiTag = "mpi"

// mpiBuildHint says what a build with the mpi tag lacks, from its output
// ("" when it is not the MPI library).
func mpiBuildHint(out string) string {
	switch {
	case strings.Contains(out, `"pkg-config": executable file not found`):
		return "pkg-config is missing (Debian/Ubuntu: apt-get install pkg-config libopenmpi-dev)"
	case strings.Contains(out, "ompi-c") || strings.Contains(out, "mpi.h"):
		return "Open MPI's development files are missing (Debian/Ubuntu: apt-get install libopenmpi-dev; MPICH: build with -tags mpi,mpich)"
	case strings.Contains(out, "C compiler") || strings.Contains(out, `"gcc": executable file not found`):
		return "cgo needs a C compiler (Debian/Ubuntu: apt-get install gcc)"
	}
	return ""
}

// tail keeps the end of a long output.
func tail(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 4000 {
		s = "…" + s[len(s)-4000:]
	}
	return s
}
