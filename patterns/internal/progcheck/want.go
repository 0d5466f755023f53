// This file defines the want lines of the pattern programs and the runs
// they ask for.

package progcheck

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/predict-tools/predict/testprogs"
)

// Want is one "// want:" line of a pattern program.
type Want struct {
	Pattern string
	NP      int
	Ranks   []int
	Lost    []time.Duration // one per rank
	Variant string
	Site    string // dir/file:line, the suffix of the finding's site
}

var wantLine = regexp.MustCompile(`// want: (\w+) np=(\d+) ranks=([\d,]+) lost=(\S+)(?: variant=(\S+))?\s*$`)

// Programs returns the pattern programs below root (the module's root
// directory), relative to root/testprogs: "patterns/barrier", ...
func Programs(root string) ([]string, error) {
	all, err := testprogs.Dirs(filepath.Join(root, "testprogs"))
	if err != nil {
		return nil, err
	}
	var dirs []string
	for _, d := range all {
		if strings.HasPrefix(d, "patterns/") {
			dirs = append(dirs, d)
		}
	}
	if len(dirs) == 0 {
		return nil, fmt.Errorf("no pattern programs in %s", filepath.Join(root, "testprogs", "patterns"))
	}
	return dirs, nil
}

// Parse reads the want lines of the Go files of program dir (relative to
// root/testprogs).
func Parse(root, dir string) ([]Want, error) {
	files, err := filepath.Glob(filepath.Join(root, "testprogs", dir, "*.go"))
	if err != nil {
		return nil, err
	}
	var wants []Want
	for _, file := range files {
		ws, err := parseFile(file, dir)
		if err != nil {
			return nil, err
		}
		wants = append(wants, ws...)
	}
	return wants, nil
}

func parseFile(file, dir string) ([]Want, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var wants []Want
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		m := wantLine.FindStringSubmatch(sc.Text())
		if m == nil {
			if strings.Contains(sc.Text(), "// want:") {
				return nil, fmt.Errorf("%s:%d: malformed want line", file, line)
			}
			continue
		}
		w := Want{Pattern: m[1], Variant: m[5], Site: fmt.Sprintf("%s/%s:%d", dir, filepath.Base(file), line)}
		w.NP, _ = strconv.Atoi(m[2])
		for _, r := range strings.Split(m[3], ",") {
			n, err := strconv.Atoi(r)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: rank %q", file, line, r)
			}
			w.Ranks = append(w.Ranks, n)
		}
		for _, d := range strings.Split(m[4], ",") {
			v, err := time.ParseDuration(d)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: lost %q: %v", file, line, d, err)
			}
			w.Lost = append(w.Lost, v)
		}
		if len(w.Lost) == 1 {
			for len(w.Lost) < len(w.Ranks) {
				w.Lost = append(w.Lost, w.Lost[0])
			}
		}
		if len(w.Lost) != len(w.Ranks) {
			return nil, fmt.Errorf("%s:%d: %d lost values for %d ranks", file, line, len(w.Lost), len(w.Ranks))
		}
		wants = append(wants, w)
	}
	return wants, sc.Err()
}

// Run is one run of a program that want lines ask for: its np and -mode.
// Each run is checked twice: normally and with -near.
type Run struct {
	NP      int
	Variant string
}

// Runs groups wants by run and returns the runs in a fixed order.
func Runs(wants []Want) ([]Run, map[Run][]Want) {
	byRun := make(map[Run][]Want)
	for _, w := range wants {
		k := Run{w.NP, w.Variant}
		byRun[k] = append(byRun[k], w)
	}
	keys := make([]Run, 0, len(byRun))
	for k := range byRun {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b Run) int { return strings.Compare(a.Variant, b.Variant) + 2*(a.NP-b.NP) })
	return keys, byRun
}

// Args returns the program's arguments for the run, other than -np and
// -trace: -mode, and -near for the near miss.
func (r Run) Args(near bool) []string {
	var args []string
	if r.Variant != "" {
		args = append(args, "-mode", r.Variant)
	}
	if near {
		args = append(args, "-near")
	}
	return args
}

// Label names the run in test output: "np=2 mode=ssend near".
func (r Run) Label(near bool) string {
	label := fmt.Sprintf("np=%d", r.NP)
	if r.Variant != "" {
		label += " mode=" + r.Variant
	}
	if near {
		label += " near"
	}
	return label
}
