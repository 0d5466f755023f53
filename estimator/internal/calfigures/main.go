// Command calfigures prints the figures of issue 21 for predict calibrate
// on this machine: the fitted model against the measured ping-pong table
// at every size, the machine file's model against ping-pongs at sizes the
// calibration did not measure, and the repeatability of L and G over
// calibrations in a row. It measures a shared machine: it prints the load
// before and after, and medians. With -machine and -reference it compares
// a machine file's ping-pong (with its table, and its LogGOPS line alone)
// against a table measured independently, as commlib/internal/pingpong
// and its C reference print it (bytes, one-way µs, MB/s a line).
//
//	go run ./estimator/internal/calfigures [-n 5] [-quick]
//	go run ./estimator/internal/calfigures -machine mpi.machine.json -reference c-pingpong.txt
//	go run ./estimator/internal/calfigures -collectives [-launcher 'mpirun -np 4']
//
// With -collectives it calibrates with collective timings (under
// -launcher, if given) and sets each measured collective against the
// interpreter's prediction of the same collective (estimator/internal/calcoll
// interpreted at the same np on the calibrated machine), with the
// machine's choice of algorithm and with each algorithm that applies. Run
// it from the module's root.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/predict-tools/predict/estimator"
	"github.com/predict-tools/predict/interp"
	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/trace"
)

func main() {
	n := flag.Int("n", 5, "calibrations in a row")
	quick := flag.Bool("quick", false, "quick calibrations (powers of 4, ±5 %)")
	file := flag.String("machine", "", "compare this machine `FILE`'s ping-pong with -reference")
	ref := flag.String("reference", "", "a ping-pong table `FILE` (bytes, one-way µs, MB/s a line)")
	colls := flag.Bool("collectives", false, "measured collectives against the interpreter's predictions")
	launcher := flag.String("launcher", "", "with -collectives: calibrate under this MPI launcher `COMMAND`")
	flag.Parse()
	var err error
	switch {
	case *colls:
		err = collectives(*quick, *launcher)
	case *file != "" || *ref != "":
		err = compare(*file, *ref)
	default:
		err = run(*n, *quick)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "calfigures:", err)
		os.Exit(1)
	}
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	return strings.TrimSpace(string(b))
}

func run(n int, quick bool) error {
	fmt.Printf("calfigures: %s, %d calibrations (quick %t), load %s\n", time.Now().UTC().Format(time.RFC3339), n, quick, loadavg())
	var cals []*estimator.Calibration
	for i := range n {
		cal, err := estimator.Calibrate(estimator.CalibrateOptions{Quick: quick})
		if err != nil {
			fmt.Printf("calibration %d refused: %v\n", i+1, err)
			continue
		}
		cals = append(cals, cal)
		lg := cal.Machine.Intra
		fmt.Printf("calibration %d: %s, L=%s o=%s g=%s G=%s O=%s S=%d, slope G+O %.4g ns/B, rms %.1f %%, worst %s; %d segments, %d of %d sizes within %.0f %%; load after %s\n",
			i+1, cal.Took.Round(time.Millisecond), machine.FormatDuration(lg.Latency), machine.FormatDuration(lg.Overhead),
			machine.FormatDuration(lg.GapPerMessage), lg.GapPerByte, lg.OverheadPerByte, lg.EagerLimit, cal.Fit.Slope,
			100*cal.Fit.RelRMS, worst(cal.Residuals), len(cal.Segments.Segments), cal.Segments.Within, cal.Segments.Sizes,
			100*cal.Segments.Tolerance, cal.Host.LoadAfter)
		if cal.Segments.Failure != "" {
			fmt.Printf("  segments FAILED: %s\n", cal.Segments.Failure)
		}
	}
	if len(cals) == 0 {
		return fmt.Errorf("every calibration was refused")
	}
	last := cals[len(cals)-1]
	fmt.Println("\nthe last calibration's fitted models against its measured table: the single LogGOPS line (without the table) and the segments (piecewise LogGP):")
	fmt.Printf("%10s %12s %12s %9s %12s %9s\n", "bytes", "measured", "line", "error", "segments", "error")
	var segs []estimator.Residual
	for _, g := range last.Segments.Segments {
		segs = append(segs, g.Residuals...)
	}
	lineWithin, segWithin := 0, 0
	for i, r := range last.Residuals {
		seg := segs[i]
		fmt.Printf("%10d %12s %12s %+8.1f%% %12s %+8.1f%%\n", r.Bytes, ns(r.Measured), ns(r.Model), 100*r.Rel, ns(seg.Model), 100*seg.Rel)
		if math.Abs(r.Rel) <= 0.05 {
			lineWithin++
		}
		if math.Abs(seg.Rel) <= 0.05 {
			segWithin++
		}
	}
	fmt.Printf("within 5 %%: the line at %d of %d sizes, the segments at %d of %d\n", lineWithin, len(last.Residuals), segWithin, len(segs))
	fmt.Println("the segments:")
	for _, g := range last.Segments.Segments {
		bw := "∞"
		if g.Slope > 0 {
			bw = fmt.Sprintf("%.4g", 1e3/g.Slope)
		}
		fmt.Printf("  %8d B … %8d B: %12s at lo + %.4g ns/B (%s MB/s), worst %s\n", g.Lo, g.Hi, ns(g.Intercept), g.Slope, bw, worst(g.Residuals))
	}

	// Independent measurement: sizes between the calibrated ones, and
	// beyond the largest, where the table is extrapolated.
	var sizes []int64
	for _, p := range last.PingPong[1:] {
		sizes = append(sizes, p.Bytes*3/4)
	}
	largest := last.PingPong[len(last.PingPong)-1].Bytes
	sizes = append(sizes, largest*3/2, largest*2)
	check, err := estimator.MeasurePingPong(sizes, estimator.CalibrateOptions{Quick: quick})
	if err != nil {
		return fmt.Errorf("independent ping-pongs: %v", err)
	}
	link := last.Machine.Level(false)
	lineOnly, chord := link, link
	lineOnly.Table, chord.Segments = nil, nil
	fmt.Printf("\nping-pongs at sizes the calibration did not measure (beyond %d B: extrapolated), against the machine file's model with its table "+
		"(beyond it: the last segment's slope), with its table alone (beyond it: the chord of its last two points), the LogGOPS line alone and the segments alone (bridged between ranges):\n", largest)
	fmt.Printf("%10s %12s %12s %9s %12s %9s %12s %9s %12s %9s\n", "bytes", "measured", "with table", "error", "table chord", "error", "line", "error", "segments", "error")
	for _, p := range check {
		model := func(t float64) string {
			t /= float64(trace.Nanosecond)
			return fmt.Sprintf("%12s %+8.1f%%", ns(t), 100*(t/p.OneWay.Mean-1))
		}
		fmt.Printf("%10d %12s %s %s %s %s\n", p.Bytes, ns(p.OneWay.Mean), model(float64(link.PingPong(p.Bytes))), model(float64(chord.PingPong(p.Bytes))),
			model(float64(lineOnly.PingPong(p.Bytes))), model(float64(link.Segments.At(p.Bytes, link.EagerLimit))))
	}

	fmt.Printf("\nrepeatability over %d calibrations (coefficient of variation; median):\n", len(cals))
	for _, q := range []struct {
		name string
		get  func(*estimator.Calibration) float64
	}{
		{"L (ns)", func(c *estimator.Calibration) float64 { return float64(c.Machine.Intra.Latency) / 1e3 }},
		{"o (ns)", func(c *estimator.Calibration) float64 { return float64(c.Machine.Intra.Overhead) / 1e3 }},
		{"G (ps/B)", func(c *estimator.Calibration) float64 { return float64(c.Machine.Intra.GapPerByte) / 1e3 }},
		{"O (ps/B)", func(c *estimator.Calibration) float64 { return float64(c.Machine.Intra.OverheadPerByte) / 1e3 }},
		{"G+O, the fitted slope (ps/B)", func(c *estimator.Calibration) float64 { return c.Fit.Slope * 1e3 }},
		{"2o+L, the fitted intercept (ns)", func(c *estimator.Calibration) float64 { return c.Fit.Intercept }},
		{"g (ns)", func(c *estimator.Calibration) float64 { return float64(c.Machine.Intra.GapPerMessage) / 1e3 }},
		{"one-way 1 B (ns)", func(c *estimator.Calibration) float64 { return c.PingPong[0].OneWay.Mean }},
		{"one-way 4 MiB (ns)", func(c *estimator.Calibration) float64 { return c.PingPong[len(c.PingPong)-1].OneWay.Mean }},
		{"memory bandwidth (GB/s)", func(c *estimator.Calibration) float64 { return c.Memory.Node.Mean / 1e9 }},
	} {
		xs := make([]float64, len(cals))
		for i, c := range cals {
			xs[i] = q.get(c)
		}
		mean, sd := meanSD(xs)
		cv := math.NaN()
		if mean != 0 {
			cv = sd / mean
		}
		fmt.Printf("  %-32s median %10.4g  CV %6.1f %%  (%s)\n", q.name, median(xs), 100*cv, values(xs))
	}
	fmt.Printf("load after: %s\n", loadavg())
	return nil
}

// compare prints the machine file's ping-pong against the reference table.
func compare(file, ref string) error {
	if file == "" || ref == "" {
		return fmt.Errorf("-machine and -reference go together")
	}
	m, err := machine.Load(file)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(ref)
	if err != nil {
		return err
	}
	link := m.Level(false)
	lineOnly := link
	lineOnly.Table = nil
	fmt.Printf("%s (%s) against %s:\n", file, m.Name, ref)
	fmt.Printf("%10s %12s %12s %9s %12s %9s\n", "bytes", "reference", "with table", "error", "line", "error")
	var errs []float64
	for _, l := range strings.Split(string(data), "\n") {
		var bytes int64
		var us, mbs float64
		if n, _ := fmt.Sscan(l, &bytes, &us, &mbs); n != 3 {
			continue
		}
		refNS := us * 1000
		withTable := float64(link.PingPong(bytes)) / float64(trace.Nanosecond)
		line := float64(lineOnly.PingPong(bytes)) / float64(trace.Nanosecond)
		errs = append(errs, math.Abs(withTable/refNS-1))
		fmt.Printf("%10d %12s %12s %+8.1f%% %12s %+8.1f%%\n", bytes, ns(refNS), ns(withTable), 100*(withTable/refNS-1), ns(line), 100*(line/refNS-1))
	}
	if len(errs) == 0 {
		return fmt.Errorf("%s: no line of bytes, one-way µs, MB/s", ref)
	}
	fmt.Printf("with the table: median |error| %.1f %%, worst %.1f %%\n", 100*median(errs), 100*slices.Max(errs))
	return nil
}

// collectives calibrates with collective timings and prints each against
// the interpreter's predictions.
func collectives(quick bool, launcher string) error {
	opt := estimator.CalibrateOptions{Quick: quick, Collectives: true}
	if launcher != "" {
		l, err := estimator.ParseLauncher(launcher)
		if err != nil {
			return err
		}
		opt.Launcher = l
	}
	fmt.Printf("calfigures -collectives: %s, load %s\n", time.Now().UTC().Format(time.RFC3339), loadavg())
	cal, err := estimator.Calibrate(opt)
	if err != nil {
		return err
	}
	prog, err := interp.Prepare(".", "./estimator/internal/calcoll")
	if err != nil {
		return fmt.Errorf("the collective program (run calfigures from the module's root): %v", err)
	}
	fmt.Printf("measured (%s: slots, max over ranks) against predicted (the calibrated machine %s; in parentheses the error of its own choice of algorithm):\n",
		cal.Runtime, cal.Machine.Name)
	for _, ct := range cal.Collectives {
		predict := func(alg machine.Algorithm) string {
			m := cal.Machine.Clone()
			if alg != "" {
				m.Collectives = map[string]machine.Algorithm{ct.Op: alg}
			}
			res, err := prog.Run(interp.Config{NP: ct.NP, Machine: m, Args: []string{"-op", ct.Op, "-bytes", strconv.Itoa(ct.Bytes)}})
			if err != nil {
				return "error: " + err.Error()
			}
			t := float64(res.Time) / float64(trace.Nanosecond)
			if alg == "" && ct.Time.Kept >= 2 {
				return fmt.Sprintf("%s (%+.0f %%)", ns(t), 100*(t/ct.Time.Mean-1))
			}
			return ns(t)
		}
		measured := "—"
		if ct.Time.Kept >= 2 {
			measured = ns(ct.Time.Mean)
			if !ct.Converged {
				measured += " (not converged)"
			}
		}
		var algs []string
		for _, a := range machine.Algorithms(ct.Op) {
			algs = append(algs, fmt.Sprintf("%s %s", a, predict(a)))
		}
		fmt.Printf("  %-9s %6d B np=%d: measured %s, predicted %s; by algorithm: %s\n", ct.Op, ct.Bytes, ct.NP, measured, predict(""), strings.Join(algs, ", "))
	}
	return nil
}

func ns(x float64) string {
	return machine.FormatDuration(trace.Time(math.Round(x)) * trace.Nanosecond)
}

func worst(rs []estimator.Residual) string {
	i := 0
	for j, r := range rs {
		if math.Abs(r.Rel) > math.Abs(rs[i].Rel) {
			i = j
		}
	}
	return fmt.Sprintf("%+.1f %% at %d B", 100*rs[i].Rel, rs[i].Bytes)
}

func meanSD(xs []float64) (float64, float64) {
	m := 0.0
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	if len(xs) < 2 {
		return m, 0
	}
	ss := 0.0
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	return m, math.Sqrt(ss / float64(len(xs)-1))
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func values(xs []float64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprintf("%.4g", x)
	}
	return strings.Join(s, " ")
}
