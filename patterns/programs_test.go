package patterns_test

import (
	"bufio"
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/predict-tools/predict/patterns"
	"github.com/predict-tools/predict/testprogs"
	"github.com/predict-tools/predict/trace"
)

// want is one "// want:" line of a pattern program (testprogs/patterns/README.md).
type want struct {
	pattern string
	np      int
	ranks   []int
	lost    []time.Duration // one per rank
	variant string
	site    string // dir/file:line, the suffix of the trace's site
}

var wantLine = regexp.MustCompile(`// want: (\w+) np=(\d+) ranks=([\d,]+) lost=(\S+)(?: variant=(\S+))?\s*$`)

// parseWants reads the want lines of the Go files of program dir.
func parseWants(t *testing.T, root, dir string) []want {
	files, err := filepath.Glob(filepath.Join(root, "testprogs", dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var wants []want
	for _, file := range files {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for line := 1; sc.Scan(); line++ {
			m := wantLine.FindStringSubmatch(sc.Text())
			if m == nil {
				if strings.Contains(sc.Text(), "// want:") {
					t.Fatalf("%s:%d: malformed want line", file, line)
				}
				continue
			}
			w := want{pattern: m[1], variant: m[5], site: fmt.Sprintf("%s/%s:%d", dir, filepath.Base(file), line)}
			w.np, _ = strconv.Atoi(m[2])
			for _, r := range strings.Split(m[3], ",") {
				n, err := strconv.Atoi(r)
				if err != nil {
					t.Fatalf("%s:%d: rank %q", file, line, r)
				}
				w.ranks = append(w.ranks, n)
			}
			for _, d := range strings.Split(m[4], ",") {
				v, err := time.ParseDuration(d)
				if err != nil {
					t.Fatalf("%s:%d: lost %q: %v", file, line, d, err)
				}
				w.lost = append(w.lost, v)
			}
			if len(w.lost) == 1 {
				for len(w.lost) < len(w.ranks) {
					w.lost = append(w.lost, w.lost[0])
				}
			}
			if len(w.lost) != len(w.ranks) {
				t.Fatalf("%s:%d: %d lost values for %d ranks", file, line, len(w.lost), len(w.ranks))
			}
			wants = append(wants, w)
		}
		f.Close()
	}
	return wants
}

// attempts bounds the runs of one program and mode whose check fails:
// other work on the machine shifts real waits by several ms at times.
const attempts = 5

// runKey is one run of a program: its np and -mode.
type runKey struct {
	np      int
	variant string
}

// TestPrograms runs every pattern program at the np of its want lines, for
// each variant, normally and with -near, and checks the analysis of its
// real trace against the want lines.
//
// The programs busy-wait, and this machine may have 2 cores: they run one
// at a time. A real run occasionally loses a few ms to waking a CPU
// (README of testprogs/patterns), so a run whose check fails is repeated, up
// to attempts times, and every attempt is logged.
func TestPrograms(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the pattern programs")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	all, err := testprogs.Dirs(filepath.Join(root, "testprogs"))
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, d := range all {
		if strings.HasPrefix(d, "patterns/") {
			dirs = append(dirs, d)
		}
	}
	if len(dirs) == 0 {
		t.Fatal("no pattern programs")
	}

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
			wants := parseWants(t, root, dir)
			if len(wants) == 0 {
				t.Fatalf("%s has no want lines", dir)
			}
			runs := make(map[runKey][]want)
			for _, w := range wants {
				k := runKey{w.np, w.variant}
				runs[k] = append(runs[k], w)
			}
			keys := make([]runKey, 0, len(runs))
			for k := range runs {
				keys = append(keys, k)
			}
			slices.SortFunc(keys, func(a, b runKey) int { return strings.Compare(a.variant, b.variant) + 2*(a.np-b.np) })
			for _, k := range keys {
				for _, near := range []bool{false, true} {
					label := fmt.Sprintf("np=%d", k.np)
					if k.variant != "" {
						label += " mode=" + k.variant
					}
					if near {
						label += " near"
					}
					var problems []string
					for attempt := 1; attempt <= attempts; attempt++ {
						rep := runProgram(t, filepath.Join(bin, name), k, near)
						problems = check(rep, runs[k], near, func(format string, args ...any) {
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

// runProgram runs program with a trace and analyzes the trace.
func runProgram(t *testing.T, program string, k runKey, near bool) *patterns.Report {
	t.Helper()
	file := filepath.Join(t.TempDir(), "trace.jsonl")
	args := []string{"-np", strconv.Itoa(k.np), "-trace", file}
	if k.variant != "" {
		args = append(args, "-mode", k.variant)
	}
	if near {
		args = append(args, "-near")
	}
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
	rep := patterns.Analyze(events, patterns.Options{NP: h.NP, EagerLimit: int64(h.EagerLimit)})
	if len(rep.Warnings) > 0 {
		t.Errorf("warnings on a real trace: %v", rep.Warnings)
	}
	return rep
}

// check compares a report with the want lines of its run and returns the
// problems.
func check(rep *patterns.Report, wants []want, near bool, logf func(string, ...any)) []string {
	var problems []string
	for _, w := range wants {
		lost := make(map[int]trace.Time)
		count := make(map[int]int)
		for _, f := range rep.Findings {
			if f.Pattern == w.pattern && strings.HasSuffix(f.Site, w.site) {
				lost[f.Rank] += f.Lost // LockContention: the sum over threads
				count[f.Rank] += f.Count
			}
		}
		if near {
			for _, r := range slices.Sorted(maps.Keys(count)) {
				n := count[r]
				problems = append(problems, fmt.Sprintf("near miss: %s at %s on rank %d: %v in %d instances",
					w.pattern, w.site, r, lost[r], n))
			}
			continue
		}
		for i, r := range w.ranks {
			expected := trace.Time(w.lost[i].Nanoseconds()) * trace.Nanosecond
			got, n := lost[r], count[r]
			if n == 0 {
				problems = append(problems, fmt.Sprintf("%s at %s on rank %d: not found", w.pattern, w.site, r))
				continue
			}
			if expected == 0 { // a diagnostic: the lost time is not checked
				logf("%s at %s rank %d: found (%d instances)", w.pattern, w.site, r, n)
				continue
			}
			tolerance := max(expected/10, 2*trace.Millisecond)
			logf("%s at %s rank %d: want %v, got %v", w.pattern, w.site, r, expected, got)
			if d := got - expected; d > tolerance || -d > tolerance {
				problems = append(problems, fmt.Sprintf("%s at %s on rank %d: lost %v, want %v ± %v",
					w.pattern, w.site, r, got, expected, tolerance))
			}
		}
		for _, r := range slices.Sorted(maps.Keys(count)) {
			if !slices.Contains(w.ranks, r) {
				problems = append(problems, fmt.Sprintf("%s at %s charged to rank %d (%v), not listed",
					w.pattern, w.site, r, lost[r]))
			}
		}
	}
	return problems
}
