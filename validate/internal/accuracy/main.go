// Command accuracy prints the accuracy table of the predictor: every
// program of testprogs (the nine it was tuned on) and of the corpus
// (testprogs/corpus, programs written to judge it) validated at a few np,
// with a fresh timing pass each, and the median and worst |error| of each
// set apart.
//
//	go run ./validate/internal/accuracy [-np 1,2] [-runs 5] [-class W] [-profile-np 2] [-profiles 1] [-only cg,mg] [-machine local] [-versus calibrated] [-json]
//
// -machine is the machine predicted for (the local preset by default;
// "calibrated" is this machine's cached quick calibration, what run and
// scale take with no --machine). With -versus, every point is predicted
// on a second machine too, with the same profile, and its error against
// the same real runs is the VERSUS column: the effect of the machine file
// alone.
//
// With -profiles N each program gets N fresh timing passes: its prediction
// is their median and the PROFILES column gives their spread, (max − min)
// over the median, what one timing pass more or less would move the table.
//
// It runs from the module root. Each program is profiled, run for real
// -runs times at each np and once more with its trace, and predicted on
// -machine; the three largest errors are listed with the regions
// that hold their difference.
package main

import (
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/predict-tools/predict/estimator"
	"github.com/predict-tools/predict/interp"
	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/profile"
	"github.com/predict-tools/predict/scale"
	"github.com/predict-tools/predict/testprogs"
	"github.com/predict-tools/predict/trace"
	"github.com/predict-tools/predict/validate"
)

// row is one program at one np.
type row struct {
	Program string          `json:"program"`
	Set     string          `json:"set"` // "tuned" (testprogs) or "corpus"
	Point   *validate.Point `json:"point,omitempty"`
	Failed  string          `json:"failed,omitempty"`
	Profile *profileFacts   `json:"profile,omitempty"`
	// Predictions are the predicted times of each fresh profile (with
	// -profiles N > 1); Point.Predicted is then their median and
	// Point.Error its error.
	Predictions []int64 `json:"predictions_ps,omitempty"`
	// Drift is the program's own validation's drift (validate.Drift):
	// how much slower the machine ran it than during its timing pass.
	Drift *validate.Drift `json:"drift,omitempty"`
	// Versus is the prediction with the same profile on the machine of
	// -versus, and VersusError its error against the same real runs.
	Versus      int64   `json:"versus_ps,omitempty"`
	VersusError float64 `json:"versus_error,omitempty"`
}

// profilesSpread is (max − min)/median of r's predictions, 0 with one.
func (r row) profilesSpread() float64 {
	if len(r.Predictions) < 2 {
		return 0
	}
	xs := slices.Clone(r.Predictions)
	slices.Sort(xs)
	return float64(xs[len(xs)-1]-xs[0]) / float64(xs[len(xs)/2])
}

// profileFacts are what the program's timing pass says of itself.
type profileFacts struct {
	// Slowdown is the probed run's span over the plain run's.
	Slowdown float64 `json:"slowdown"`
	// Coverage is what the fragments measured (compensated, before any
	// scaling) over the plain run's compute: 1 when every nanosecond is
	// accounted for and the probes are compensated exactly.
	Coverage float64 `json:"coverage"`
	// Spread is the plain runs' spread in compute.
	Spread float64 `json:"spread"`
}

func factsOf(p *profile.File) *profileFacts {
	f := &profileFacts{Coverage: p.Coverage(), Spread: p.SpreadRel}
	if plain, probed := p.PlainRunTime(); plain > 0 {
		f.Slowdown = float64(probed) / float64(plain)
	}
	if p.Scale > 0 {
		f.Coverage = 1 / p.Scale
	}
	return f
}

func main() {
	// Its own flag set: commlib, which it links, registers -np on the
	// command line's.
	flag := flag.NewFlagSet("accuracy", flag.ExitOnError)
	npList := flag.String("np", "1,2", "process counts")
	runs := flag.Int("runs", 5, "real runs per np")
	class := flag.String("class", "W", "problem class of every program")
	profNP := flag.Int("profile-np", 2, "ranks of each timing pass")
	only := flag.String("only", "", "comma-separated program names (default: all)")
	profiles := flag.Int("profiles", 1, "fresh timing passes per program: the prediction is their median, and the table gives their spread")
	asJSON := flag.Bool("json", false, "print the rows as JSON")
	machineName := flag.String("machine", "local", "the machine predicted for: a preset, a machine file, or \"calibrated\" (this machine's cached quick calibration, as run and scale take by default)")
	versusName := flag.String("versus", "", "a second machine (as -machine): every point is predicted on it too, with the same profile, and compared with the same real runs")
	flag.Parse(os.Args[1:])
	if *profiles < 1 {
		fail("-profiles %d: want at least 1", *profiles)
	}
	nps, err := scale.ParseRange(*npList)
	if err != nil {
		fail("-np: %v", err)
	}
	m, err := resolveMachine(*machineName)
	if err != nil {
		fail("-machine %s: %v", *machineName, err)
	}
	var versus *machine.Machine
	if *versusName != "" {
		if versus, err = resolveMachine(*versusName); err != nil {
			fail("-versus %s: %v", *versusName, err)
		}
	}
	progs, err := programs(*only)
	if err != nil {
		fail("%v", err)
	}
	start := time.Now()
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Fprintf(os.Stderr, "accuracy: %d programs at np %v, class %s, %d runs each; load %s", len(progs), nps, *class, *runs, load)
	var rows []row
	for _, p := range progs {
		fmt.Fprintf(os.Stderr, "== %s (%s)\n", p.name, p.set)
		rows = append(rows, validateOne(p, nps, *runs, *profNP, *profiles, []string{"-class", *class}, m, versus)...)
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rows); err != nil {
			fail("%v", err)
		}
		return
	}
	load, _ = os.ReadFile("/proc/loadavg")
	machines := *machineName
	if *versusName != "" {
		machines += " (VERSUS: " + *versusName + ")"
	}
	fmt.Printf("Accuracy on %s/%s, %d CPUs, %s; class %s, %d real runs per np, machine %s, %d fresh profile(s) at np=%d per program; took %v; load at the end %s\n",
		runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), time.Now().UTC().Format("2006-01-02 15:04 UTC"), *class, *runs, machines, *profiles, *profNP,
		time.Since(start).Round(time.Second), strings.TrimSpace(string(load)))
	writeTable(os.Stdout, rows)
}

type program struct{ name, dir, set string }

// programs lists the nine tuned programs and the corpus.
func programs(only string) ([]program, error) {
	var out []program
	for _, set := range []struct{ root, name string }{{"testprogs", "tuned"}, {"testprogs/" + testprogs.CorpusDir, "corpus"}} {
		dirs, err := testprogs.Dirs(set.root)
		if err != nil {
			return nil, err
		}
		for _, d := range dirs {
			if strings.Contains(d, "/") { // patterns/..., corpus/... from the top
				continue
			}
			out = append(out, program{name: d, dir: "./" + filepath.ToSlash(filepath.Join(set.root, d)), set: set.name})
		}
	}
	if only != "" {
		want := strings.Split(only, ",")
		out = slices.DeleteFunc(out, func(p program) bool { return !slices.Contains(want, p.name) })
	}
	return out, nil
}

// resolveMachine is the machine named: a preset, a file, or "calibrated".
func resolveMachine(name string) (*machine.Machine, error) {
	if name == "calibrated" {
		m, _, err := estimator.CachedLocal(estimator.DefaultMachineCache(), os.Stderr)
		return m, err
	}
	return machine.Resolve(name)
}

func validateOne(p program, nps []int, runs, profNP, profiles int, args []string, m, versus *machine.Machine) []row {
	failed := func(err error) []row { return []row{{Program: p.name, Set: p.set, Failed: err.Error()}} }
	prog, err := interp.Prepare(".", p.dir)
	if err != nil {
		return failed(err)
	}
	// As run, scale and validate: said before the timing pass.
	if list, err := prog.Unsupported(); err != nil || len(list) > 0 {
		if err == nil {
			err = fmt.Errorf("before the timing pass: not supported by the interpreter (%d): %s", len(list), list[0])
		}
		return failed(err)
	}
	prof, err := estimator.Run(estimator.Config{Pattern: p.dir, Prepared: prog.Prepared, NP: profNP, Args: args})
	if err != nil {
		return failed(fmt.Errorf("timing pass: %v", err))
	}
	rep, err := validate.Run(validate.Config{Program: prog, Profile: prof, Machine: m, NPs: nps, Runs: runs,
		Args: func(int) []string { return args }, Attribute: true, Log: os.Stderr})
	if err != nil {
		return failed(err)
	}
	var rows []row
	for i := range rep.Points {
		pt := &rep.Points[i]
		r := row{Program: p.name, Set: p.set, Point: pt, Failed: pt.Failed, Profile: factsOf(prof), Drift: rep.Drift}
		if pt.Predicted > 0 {
			r.Predictions = []int64{int64(pt.Predicted)}
		}
		if versus != nil && pt.Predicted > 0 && pt.Measured.Median > 0 {
			res, err := prog.Run(interp.Config{NP: pt.NP, Machine: versus, Profile: prof, Args: args})
			if err != nil {
				return failed(fmt.Errorf("prediction at np=%d on the -versus machine: %v", pt.NP, err))
			}
			r.Versus = int64(res.Time)
			r.VersusError = float64(r.Versus-int64(pt.Measured.Median)) / float64(pt.Measured.Median)
		}
		rows = append(rows, r)
	}
	// More fresh profiles: each predicts every np again; the rows take
	// the median (the real runs are the same), and the drift is against
	// every profile's plain runs.
	plain := slices.Clone(prof.PlainSpansPS)
	for k := 1; k < profiles; k++ {
		fmt.Fprintf(os.Stderr, "  fresh profile %d of %d\n", k+1, profiles)
		more, err := estimator.Run(estimator.Config{Pattern: p.dir, Prepared: prog.Prepared, NP: profNP, Args: args})
		if err != nil {
			return failed(fmt.Errorf("timing pass %d: %v", k+1, err))
		}
		plain = append(plain, more.PlainSpansPS...)
		for i := range rows {
			pt := rows[i].Point
			if pt == nil || pt.Predicted == 0 {
				continue
			}
			res, err := prog.Run(interp.Config{NP: pt.NP, Machine: m, Profile: more, Args: args})
			if err != nil {
				return failed(fmt.Errorf("prediction at np=%d with timing pass %d: %v", pt.NP, k+1, err))
			}
			rows[i].Predictions = append(rows[i].Predictions, int64(res.Time))
		}
	}
	if profiles > 1 {
		if rep.Drift != nil {
			pooled := rep.Drift.Pooled(plain)
			for i := range rows {
				rows[i].Drift = pooled
			}
		}
		for i := range rows {
			pt := rows[i].Point
			if pt == nil || len(rows[i].Predictions) < 2 || pt.Measured.Median == 0 {
				continue
			}
			xs := slices.Clone(rows[i].Predictions)
			slices.Sort(xs)
			pt.Predicted = trace.Time(xs[len(xs)/2])
			pt.Error = float64(pt.Predicted-pt.Measured.Median) / float64(pt.Measured.Median)
			pt.WithinNoise = pt.Measured.Relative() > math.Abs(pt.Error)
			rows[i].Drift.Adjust(pt)
		}
	}
	return rows
}

func writeTable(w io.Writer, rows []row) {
	tw := tabwriter.NewWriter(w, 2, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "\nPROGRAM\tSET\tNP\tMEASURED\tSPREAD\tPREDICTED\tBOUND\tERROR\tDRIFT\tAT PROFILE SPEED\tPROBED\tCOVERAGE\tPROFILE SPREAD\tPROFILES\tVERSUS\t\n")
	errs := map[string][]float64{}
	vs := map[string][]float64{}   // errors on the -versus machine
	adjs := map[string][]float64{} // errors at the timing pass's speed
	var ranked []row
	var failures []string
	for _, r := range rows {
		if r.Point == nil || r.Point.Predicted == 0 {
			np := "—"
			if r.Point != nil {
				np = fmt.Sprint(r.Point.NP)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\tfailed (%d)\t\t\t\t\t\t\t\t\t\t\t\n", r.Program, r.Set, np, len(failures)+1)
			failures = append(failures, fmt.Sprintf("(%d) %s at np=%s: %s", len(failures)+1, r.Program, np, firstLine(r.Failed)))
			continue
		}
		p := r.Point
		noise := ""
		if p.WithinNoise {
			noise = " (noise)"
		}
		facts := ""
		if f := r.Profile; f != nil {
			facts = fmt.Sprintf("%.2fx\t%.0f%%\t%.1f%%", f.Slowdown, 100*f.Coverage, 100*f.Spread)
		}
		profs := ""
		if len(r.Predictions) > 1 {
			profs = fmt.Sprintf("%d, %.1f%%", len(r.Predictions), 100*r.profilesSpread())
		}
		drift, adj := "—", "—"
		if r.Drift != nil {
			drift = fmt.Sprintf("%.2f×", r.Drift.Ratio)
			if r.Drift.Beyond {
				drift += "!"
			}
		}
		if p.ErrorAtProfileSpeed != nil {
			adj = fmt.Sprintf("%+.1f%%", 100**p.ErrorAtProfileSpeed)
			adjs[r.Set] = append(adjs[r.Set], math.Abs(*p.ErrorAtProfileSpeed))
		}
		versus := ""
		if r.Versus > 0 {
			versus = fmt.Sprintf("%v %+.1f%%", trace.Time(r.Versus), 100*r.VersusError)
			vs[r.Set] = append(vs[r.Set], math.Abs(r.VersusError))
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%v\t±%.1f%%\t%v\t±%.1f%%\t%+.1f%%%s\t%s\t%s\t%s\t%s\t%s\t\n", r.Program, r.Set, p.NP, p.Measured.Median, 50*p.Measured.Relative(), p.Predicted,
			100*float64(p.Bound)/float64(p.Predicted), 100*p.Error, noise, drift, adj, facts, profs, versus)
		errs[r.Set] = append(errs[r.Set], max(p.Error, -p.Error))
		ranked = append(ranked, r)
	}
	tw.Flush()
	for _, f := range failures {
		fmt.Fprintln(w, f)
	}
	fmt.Fprintln(w)
	for _, set := range []string{"tuned", "corpus"} {
		if e := errs[set]; len(e) > 0 {
			fmt.Fprintf(w, "%-7s median |error| %s\n", set, medianWorst(e))
		}
	}
	for _, set := range []string{"tuned", "corpus"} {
		if e := adjs[set]; len(e) > 0 {
			fmt.Fprintf(w, "%-7s at the timing pass's speed (real runs divided by the machine's drift): median |error| %s\n", set, medianWorst(e))
		}
	}
	for _, set := range []string{"tuned", "corpus"} {
		if e := vs[set]; len(e) > 0 {
			fmt.Fprintf(w, "%-7s on the -versus machine (same profiles and real runs): median |error| %s\n", set, medianWorst(e))
		}
	}
	fmt.Fprintln(w, "DRIFT: the program at the profile's np ran that many times its timing pass's time during its real runs (! beyond the runs' noise)")
	slices.SortFunc(ranked, func(a, b row) int {
		return cmp.Compare(max(b.Point.Error, -b.Point.Error), max(a.Point.Error, -a.Point.Error))
	})
	writeLimits(w, rows)
	for _, r := range ranked[:min(3, len(ranked))] {
		fmt.Fprintf(w, "\n%s at np=%d: %+.1f%%; the regions that differ most (traced run against the model, summed over ranks):\n", r.Program, r.Point.NP, 100*r.Point.Error)
		for _, rt := range r.Point.Regions[:min(4, len(r.Point.Regions))] {
			fmt.Fprintf(w, "  %12v measured  %12v predicted  %s\n", rt.Measured, rt.Predicted, rt.Region)
		}
	}
}

// writeLimits lists, per program, the modeling limits its predictions
// said (interp.Result.Limits), each once with the np that said it: what
// the model knows it left out is part of judging its errors.
func writeLimits(w io.Writer, rows []row) {
	type said struct {
		text string
		nps  []string
	}
	var lines []string
	byProg := map[string][]*said{}
	var progs []string
	for _, r := range rows {
		if r.Point == nil {
			continue
		}
		for _, l := range r.Point.Limits {
			list := byProg[r.Program]
			if list == nil {
				progs = append(progs, r.Program)
			}
			i := slices.IndexFunc(list, func(s *said) bool { return s.text == l })
			if i < 0 {
				list = append(list, &said{text: l})
				i = len(list) - 1
			}
			list[i].nps = append(list[i].nps, strconv.Itoa(r.Point.NP))
			byProg[r.Program] = list
		}
	}
	for _, prog := range progs {
		for _, s := range byProg[prog] {
			lines = append(lines, fmt.Sprintf("  %s at np %s: %s", prog, strings.Join(s.nps, ","), s.text))
		}
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintln(w, "\nModeling limits the predictions said:")
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
}

// medianWorst says the median and the largest of e, and how many.
func medianWorst(e []float64) string {
	e = slices.Clone(e)
	slices.Sort(e)
	med := e[len(e)/2]
	if len(e)%2 == 0 {
		med = (e[len(e)/2-1] + e[len(e)/2]) / 2
	}
	return fmt.Sprintf("%.1f%%, worst %.1f%% (%d points)", 100*med, 100*e[len(e)-1], len(e))
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "accuracy: "+format+"\n", args...)
	os.Exit(1)
}
