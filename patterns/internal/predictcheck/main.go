// Command predictcheck prints, for every pattern program (testprogs/patterns)
// and each of its variants, the lost time its want lines expect and the lost
// time found in its predicted trace: the figures behind TestPredicted of
// package patterns, reproducible from the command line.
//
//	go run ./patterns/internal/predictcheck [-machine local] [-runs 1] [-j 1] [-v] [PROGRAM...]
//
// Each row is one want line and one rank of it (or, for a -near variant,
// one want line: it must find nothing there). A prediction is the timing
// pass of the program at the want np with the variant's arguments, the
// interpretation on -machine with a trace, and the analysis of the sorted
// trace with the options of a real one. With -runs N each variant gets N
// timing passes, and the row shows the median and the range of the
// predicted lost times: the spread is that of the measured compute times.
// "ok" is the check of TestPredicted (lost time within 10 %, at least
// 2 ms; nothing at the line of a near miss) passed by every timing pass,
// where the test retries a variant that fails. -v
// adds each prediction's compute events of 1 ms or more, the modeled
// busy-waits (progutil.Work) that make the waits.
package main

import (
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/predict-tools/predict/interp"
	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/patterns/internal/progcheck"
	"github.com/predict-tools/predict/profile"
	"github.com/predict-tools/predict/trace"
)

var verbose bool // -v

// job is one variant of one program: its want lines and its predictions.
type job struct {
	dir   string
	run   progcheck.Run
	near  bool
	wants []progcheck.Want
	// per want, per listed rank (one entry for a near miss): the lost time
	// of each timing pass, -1 where nothing was found
	lost  [][][]trace.Time
	extra []string // findings at a want's line charged to ranks it does not list
	// per timing pass, with -v: the modeled compute events of 1 ms or more
	computes []string
	err      error
}

func main() {
	machineName := flag.String("machine", "local", "target machine of the predictions: a preset or a machine file")
	runs := flag.Int("runs", 1, "timing passes per variant")
	parallel := flag.Int("j", 1, "predictions at once (more skew the measured busy-waits: see TestPredicted)")
	flag.BoolVar(&verbose, "v", false, "after the table, the modeled compute events of 1 ms or more of each prediction")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: go run ./patterns/internal/predictcheck [flags] [PROGRAM...]\n"+
			"PROGRAM: a directory name under testprogs/patterns (default: all)\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *runs < 1 || *parallel < 1 {
		fail(fmt.Errorf("-runs %d, -j %d: want at least 1", *runs, *parallel))
	}
	m, err := machine.Resolve(*machineName)
	if err != nil {
		fail(err)
	}
	root, err := moduleRoot()
	if err != nil {
		fail(err)
	}
	dirs, err := progcheck.Programs(root)
	if err != nil {
		fail(err)
	}
	if names := flag.Args(); len(names) > 0 {
		var picked []string
		for _, name := range names {
			d := "patterns/" + name
			if !slices.Contains(dirs, d) {
				fail(fmt.Errorf("%s: not a pattern program (testprogs/patterns/%s)", name, name))
			}
			picked = append(picked, d)
		}
		dirs = picked
	}

	var jobs []*job
	for _, dir := range dirs {
		wants, err := progcheck.Parse(root, dir)
		if err != nil {
			fail(err)
		}
		keys, byRun := progcheck.Runs(wants)
		for _, k := range keys {
			for _, near := range []bool{false, true} {
				j := &job{dir: dir, run: k, near: near, wants: byRun[k]}
				j.lost = make([][][]trace.Time, len(j.wants))
				for i, w := range j.wants {
					n := len(w.Ranks)
					if near {
						n = 1
					}
					j.lost[i] = make([][]trace.Time, n)
				}
				jobs = append(jobs, j)
			}
		}
	}

	start := time.Now()
	predictAll(root, jobs, *machineName, *runs, *parallel)
	fmt.Printf("predicted traces on %s, %d timing pass(es) per variant, %v in all\n\n", m.Name, *runs, time.Since(start).Round(time.Second))
	failed := printTable(os.Stdout, jobs)
	if failed > 0 {
		fmt.Printf("\n%d row(s) fail the check\n", failed)
	}
	for _, j := range jobs {
		if j.err != nil && strings.Contains(j.err.Error(), "\n") {
			fmt.Printf("\n%s %s: %v\n", filepath.Base(j.dir), j.run.Label(j.near), j.err)
		}
	}
	if verbose {
		for _, j := range jobs {
			for i, c := range j.computes {
				fmt.Printf("\n%s %s, timing pass %d: compute ≥ 1 ms\n%s", filepath.Base(j.dir), j.run.Label(j.near), i+1, c)
			}
		}
	}
	if failed > 0 {
		os.Exit(1)
	}
}

// longComputes lists the compute events of events that last 1 ms or more:
// where the predicted waits come from (the programs' progutil.Work).
func longComputes(events []trace.Event) string {
	var b strings.Builder
	for _, e := range events {
		if e.Kind == trace.KindCompute && e.Exit-e.Enter >= trace.Millisecond {
			fmt.Fprintf(&b, "  rank %d thread %d  %-45s %10s .. %10s  %s\n", e.Rank, e.Thread, e.Site,
				duration(e.Enter), duration(e.Exit), duration(e.Exit-e.Enter))
		}
	}
	return b.String()
}

// model is the prepared model of one program, shared by its jobs; its
// interpretations run one at a time.
type model struct {
	sync.Mutex
	prepare func() (*interp.Program, error)
}

// predictAll predicts all jobs, runs times each, at most parallel
// predictions (timing pass, model, interpretation) at once.
func predictAll(root string, jobs []*job, machineName string, runs, parallel int) {
	models := map[string]*model{}
	for _, j := range jobs {
		if models[j.dir] == nil {
			dir := j.dir
			models[dir] = &model{prepare: sync.OnceValues(func() (*interp.Program, error) {
				return interp.Prepare(root, progcheck.Package(dir))
			})}
		}
	}
	passes := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for _, j := range jobs {
		for range runs {
			wg.Go(func() {
				passes <- struct{}{} // the model and the interpretation would take CPU from a pass too
				defer func() { <-passes }()
				prof, err := progcheck.Profile(root, j.dir, j.run, j.near)
				mod := models[j.dir]
				mod.Lock() // also guards j
				defer mod.Unlock()
				if err == nil {
					err = predict(j, mod, prof, machineName)
				}
				if err != nil && j.err == nil {
					j.err = err
				}
			})
		}
	}
	wg.Wait()
}

// predict interprets j's program with prof on a fresh copy of the
// machine and records the lost times. The caller holds mod's lock.
func predict(j *job, mod *model, prof *profile.File, machineName string) error {
	prog, err := mod.prepare()
	if err != nil {
		return err
	}
	m, err := machine.Resolve(machineName)
	if err != nil {
		return err
	}
	return record(j, prog, prof, m)
}

// record predicts one run of j and appends its lost times.
func record(j *job, prog *interp.Program, prof *profile.File, m *machine.Machine) error {
	p, err := progcheck.Predict(prog, prof, m, j.run, j.near)
	if err != nil {
		return err
	}
	rep := p.Report
	if verbose {
		j.computes = append(j.computes, longComputes(p.Events))
	}
	if len(rep.Warnings) > 0 {
		return fmt.Errorf("warnings on the predicted trace: %s", strings.Join(rep.Warnings, "; "))
	}
	for i, w := range j.wants {
		lost, count := progcheck.Lost(rep, w)
		if j.near {
			var sum trace.Time = -1
			for r := range count {
				sum = max(sum, 0) + lost[r]
			}
			j.lost[i][0] = append(j.lost[i][0], sum)
			continue
		}
		for k, r := range w.Ranks {
			got := trace.Time(-1)
			if count[r] > 0 {
				got = lost[r]
			}
			j.lost[i][k] = append(j.lost[i][k], got)
		}
		for _, r := range slices.Sorted(maps.Keys(count)) {
			if !slices.Contains(w.Ranks, r) {
				j.extra = append(j.extra, fmt.Sprintf("%s\t%s\t%d\t(not listed)\t%s", w.Pattern, strings.TrimPrefix(w.Site, j.dir+"/"), r, duration(lost[r])))
			}
		}
	}
	return nil
}

// printTable writes one row per want line and rank and returns the
// number of rows that fail the check.
func printTable(f *os.File, jobs []*job) int {
	tw := tabwriter.NewWriter(f, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "PROGRAM\tVARIANT\tNP\tPATTERN\tSITE\tRANK\tEXPECTED\tPREDICTED\tDIFF\tCHECK")
	failed := 0
	for _, j := range jobs {
		variant := j.run.Variant
		if j.near {
			variant = strings.TrimPrefix(variant+" near", " ")
		}
		if variant == "" {
			variant = "-"
		}
		prog := filepath.Base(j.dir)
		if j.err != nil {
			first, _, _ := strings.Cut(j.err.Error(), "\n")
			fmt.Fprintf(tw, "%s\t%s\t%d\t\t\t\t\t\t\tERROR: %s\n", prog, variant, j.run.NP, first)
			failed++
			continue
		}
		for i, w := range j.wants {
			site := strings.TrimPrefix(w.Site, j.dir+"/")
			if j.near {
				got := j.lost[i][0]
				ok := !slices.ContainsFunc(got, func(t trace.Time) bool { return t >= 0 })
				fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t-\tnone\t%s\t\t%s\n", prog, variant, j.run.NP, w.Pattern, site, summary(got), verdict(ok, &failed))
				continue
			}
			for k, r := range w.Ranks {
				expected := trace.Time(w.Lost[k].Nanoseconds()) * trace.Nanosecond
				got := j.lost[i][k]
				ok := !slices.Contains(got, -1)
				diff := ""
				if expected == 0 {
					// a diagnostic: found or not, its lost time is not checked
					fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%d\tfound (0s)\t%s\t\t%s\n", prog, variant, j.run.NP, w.Pattern, site, r, summary(got), verdict(ok, &failed))
					continue
				}
				if ok {
					tol := progcheck.Tolerance(expected)
					for _, g := range got {
						if d := g - expected; d > tol || -d > tol {
							ok = false
						}
					}
					diff = fmt.Sprintf("%+.1f%%", 100*float64(median(got)-expected)/float64(expected))
				}
				fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%d\t%v\t%s\t%s\t%s\n", prog, variant, j.run.NP, w.Pattern, site, r, duration(expected), summary(got), diff, verdict(ok, &failed))
			}
		}
		for _, e := range j.extra {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t\t%s\n", prog, variant, j.run.NP, e, verdict(false, &failed))
		}
	}
	tw.Flush()
	return failed
}

func verdict(ok bool, failed *int) string {
	if ok {
		return "ok"
	}
	*failed++
	return "FAIL"
}

// summary shows the lost times of the timing passes: "none" where nothing
// was found, else the median and, for several passes, the range.
func summary(lost []trace.Time) string {
	var found []trace.Time
	for _, t := range lost {
		if t >= 0 {
			found = append(found, t)
		}
	}
	switch {
	case len(found) == 0:
		return "none"
	case len(lost) == 1:
		return duration(found[0])
	}
	s := fmt.Sprintf("%s [%s..%s]", duration(median(found)), duration(slices.Min(found)), duration(slices.Max(found)))
	if n := len(lost) - len(found); n > 0 {
		s += fmt.Sprintf(", none in %d", n)
	}
	return s
}

func median(ts []trace.Time) trace.Time {
	s := slices.Sorted(slices.Values(ts))
	return s[len(s)/2]
}

func duration(t trace.Time) string {
	return time.Duration(t / trace.Nanosecond).Round(10 * time.Microsecond).String()
}

// moduleRoot finds the module's root directory from the working directory
// up.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			if _, err := os.Stat(filepath.Join(dir, "testprogs", "patterns")); err == nil {
				return dir, nil
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("run predictcheck inside the predict module (no testprogs/patterns found above %s)", dir)
		}
		dir = parent
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "predictcheck:", err)
	os.Exit(2)
}
