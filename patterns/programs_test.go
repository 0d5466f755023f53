package patterns_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/predict-tools/predict/patterns"
	"github.com/predict-tools/predict/patterns/internal/progcheck"
	"github.com/predict-tools/predict/trace"
)

// attempts bounds the runs of one program and mode whose check fails:
// other work on the machine shifts real waits by several ms at times.
const attempts = 5

// TestPrograms runs every pattern program at the np of its want lines, for
// each variant, normally and with -near, and checks the analysis of its
// real trace against the want lines. It times real runs: it runs only with
// PREDICT_TIMING_TESTS=1 (see timingTests); TestModeled checks the same
// want lines on exact modeled traces in every go test.
//
// The programs busy-wait, and this machine may have 2 cores: they run one
// at a time. A real run occasionally loses a few ms to waking a CPU
// (README of testprogs/patterns), so a run whose check fails is repeated, up
// to attempts times, and every attempt is logged.
func TestPrograms(t *testing.T) {
	timingTests(t, "builds and runs the pattern programs, whose waits are real time")
	root, dirs := patternPrograms(t)

	// Build them all with one go command.
	bin := t.TempDir()
	args := []string{"build", "-o", bin + string(filepath.Separator)}
	for _, d := range dirs {
		args = append(args, "./testprogs/"+d)
	}
	build := exec.Command("go", args...)
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	for _, dir := range dirs {
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			wants := programWants(t, root, dir)
			keys, runs := progcheck.Runs(wants)
			for _, k := range keys {
				for _, near := range []bool{false, true} {
					label := k.Label(near)
					var problems []string
					for attempt := 1; attempt <= attempts; attempt++ {
						rep := runProgram(t, filepath.Join(bin, name), k, near)
						problems = progcheck.Check(rep, runs[k], near, progcheck.Tolerance, func(format string, args ...any) {
							t.Logf("%s attempt %d: "+format, append([]any{label, attempt}, args...)...)
						})
						if len(problems) == 0 {
							break
						}
						t.Logf("%s attempt %d failed:\n  %s", label, attempt, strings.Join(problems, "\n  "))
					}
					if len(problems) > 0 {
						t.Errorf("%s: %s", label, strings.Join(problems, "; "))
					}
				}
			}
		})
	}
}

// timingTests skips t unless the environment variable PREDICT_TIMING_TESTS
// is 1, and under -short: tests whose checks depend on the real time of a
// run fail now and then on a loaded machine, and go test ./... must not.
func timingTests(t *testing.T, why string) {
	t.Helper()
	if testing.Short() || os.Getenv("PREDICT_TIMING_TESTS") != "1" {
		t.Skipf("%s: set PREDICT_TIMING_TESTS=1 (without -short) to run it", why)
	}
}

// patternPrograms returns the module's root and the pattern programs'
// directories, relative to root/testprogs.
func patternPrograms(t *testing.T) (root string, dirs []string) {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dirs, err = progcheck.Programs(root)
	if err != nil {
		t.Fatal(err)
	}
	return root, dirs
}

// programWants returns the want lines of program dir, at least one.
func programWants(t *testing.T, root, dir string) []progcheck.Want {
	t.Helper()
	wants, err := progcheck.Parse(root, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(wants) == 0 {
		t.Fatalf("%s has no want lines", dir)
	}
	return wants
}

// runProgram runs program with a trace and analyzes the trace.
func runProgram(t *testing.T, program string, k progcheck.Run, near bool) *patterns.Report {
	t.Helper()
	file := filepath.Join(t.TempDir(), "trace.jsonl")
	args := append([]string{"-np", strconv.Itoa(k.NP), "-trace", file}, k.Args(near)...)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, program, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", program, strings.Join(args, " "), err, out)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, events, err := trace.ReadJSONL(f, file)
	if err != nil {
		t.Fatal(err)
	}
	rep := patterns.Analyze(events, patterns.Options{NP: h.NP, EagerLimit: int64(h.EagerLimit), Eps: progcheck.Eps})
	if len(rep.Warnings) > 0 {
		t.Errorf("warnings on a real trace: %v", rep.Warnings)
	}
	return rep
}
