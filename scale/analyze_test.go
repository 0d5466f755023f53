package scale

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/predict-tools/predict/trace"
)

// amdahlPoints returns the points of a program that follows Amdahl's law
// exactly: a serial part, fraction f of the one-process time t1, run by
// rank 0 while the others wait at a barrier, then a perfectly parallel
// part.
func amdahlPoints(t1 trace.Time, f float64, nps []int) []Point {
	var points []Point
	for _, np := range nps {
		p := float64(np)
		serial := math.Round(float64(t1) * f)
		parallel := math.Round(float64(t1) * (1 - f) / p)
		points = append(points, Point{
			NP:      np,
			Time:    trace.Time(serial + parallel),
			Compute: trace.Time(math.Round((serial + p*parallel) / p)),
			Wait:    trace.Time(math.Round(serial * (p - 1) / p)),
			Nodes: []NodeTime{
				{ID: "main.main#3", Pos: "amdahl/main.go:20", Time: trace.Time(p * parallel), Freq: int64(np)},
				{ID: "main.main#1", Pos: "amdahl/main.go:10", Time: trace.Time(serial), Freq: 1},
				{ID: "main.main#2", Pos: "amdahl/main.go:14", Time: trace.Time(serial * (p - 1)), Freq: int64(np)},
			},
		})
	}
	return points
}

// peakPoints returns the points of a program whose computation divides
// perfectly but whose communication grows linearly with np, so that the
// time is smallest at np=64: T(p) = t1/p + t1·p/4096.
func peakPoints(t1 trace.Time, nps []int) []Point {
	var points []Point
	for _, np := range nps {
		compute := t1 / trace.Time(np)
		comm := t1 * trace.Time(np) / 4096
		points = append(points, Point{
			NP: np, Time: compute + comm, Compute: compute, Comm: comm,
			Nodes: []NodeTime{
				{ID: "main.step#0", Pos: "stencil/main.go:40", Time: compute * trace.Time(np), Freq: int64(np) * 100},
				{ID: "main.step#4", Pos: "stencil/main.go:88", Time: comm * trace.Time(np), Freq: int64(np) * 100},
			},
		})
	}
	return points
}

// weakPoints returns the points of a weak-scaling program whose work per
// rank is t1, and whose serial part, a fraction f of the one-process work,
// grows with the problem: rank 0 does it at the end, f·t1·np, while the
// other ranks have finished: T(np) = t1·(1 + f·(np−1)).
func weakPoints(t1 trace.Time, f float64, nps []int) []Point {
	var points []Point
	for _, np := range nps {
		serial := trace.Time(math.Round(float64(t1) * f * float64(np)))
		parallel := t1 - trace.Time(math.Round(float64(t1)*f))
		points = append(points, Point{
			NP:      np,
			Args:    []string{"-n", strconv.Itoa(np * 65536)},
			Time:    parallel + serial,
			Compute: parallel + serial/trace.Time(np),
			Nodes: []NodeTime{
				{ID: "main.main#1", Pos: "app/main.go:10", Time: serial, Freq: 1},
				{ID: "main.main#3", Pos: "app/main.go:20", Time: parallel * trace.Time(np), Freq: int64(np)},
			},
		})
	}
	return points
}

var doubling = []int{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}

func TestAnalyzeAmdahl(t *testing.T) {
	for _, f := range []float64{0, 1e-4, 0.05, 0.3, 1} {
		a, err := Analyze(amdahlPoints(trace.Second, f, doubling), nil, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(a.SerialFraction-f) > 1e-6 {
			t.Errorf("f=%g: fitted f = %.9g", f, a.SerialFraction)
		}
		if a.FitError > 1e-6 {
			t.Errorf("f=%g: fit error %g on exact data", f, a.FitError)
		}
		wantSMax := 0.0
		if f > 0 {
			wantSMax = 1 / f
		}
		if math.Abs(a.SMax-wantSMax) > 1e-4*max(wantSMax, 1) {
			t.Errorf("f=%g: S_max = %g, want %g", f, a.SMax, wantSMax)
		}
		// Efficiency 1/(pf + 1 − f) < 1/2 ⇔ p > (1+f)/f.
		wantHalf := 0
		for _, np := range doubling {
			if f > 0 && float64(np) > (1+f)/f {
				wantHalf = np
				break
			}
		}
		if a.HalfEfficiencyNP != wantHalf {
			t.Errorf("f=%g: half-efficiency np = %d, want %d", f, a.HalfEfficiencyNP, wantHalf)
		}
		wantPeak := 1024
		if f == 1 {
			wantPeak = 1 // every time equal: the smallest np
		}
		if a.PeakNP != wantPeak {
			t.Errorf("f=%g: peak at np=%d, want %d", f, a.PeakNP, wantPeak)
		}
		if a.BaselineNP != 1 || a.Baseline != trace.Second {
			t.Errorf("f=%g: baseline np=%d %v", f, a.BaselineNP, a.Baseline)
		}
	}
}

func TestAnalyzeAmdahlDetails(t *testing.T) {
	a, err := Analyze(amdahlPoints(trace.Second, 0.05, doubling), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := a.Rows[4] // np=16
	if r.NP != 16 || math.Abs(r.Speedup-1/(0.05+0.95/16)) > 1e-9 || math.Abs(r.Efficiency-r.Speedup/16) > 1e-12 {
		t.Errorf("row %+v", r)
	}
	if s := r.ComputeShare + r.CommShare + r.WaitShare; math.Abs(s-1) > 1e-12 {
		t.Errorf("shares sum to %g", s)
	}
	g := a.Growing
	if g == nil || g.Node.Pos != "amdahl/main.go:14" || g.FirstShare != 0 || g.LastShare < 0.9 || g.PerDoubling <= 0 {
		t.Fatalf("growing %+v", g)
	}
	if g.Node.Time != trace.Time(math.Round(0.05*float64(trace.Second))*1023) {
		t.Errorf("growing node at the largest np: %+v", g.Node)
	}
	want := "scales to np=16 (efficiency 0.57); beyond np=16, waiting for other ranks dominates the time lost; " +
		"fastest-growing share at amdahl/main.go:14 (0.0% → 98.1%)"
	if a.Verdict != want {
		t.Errorf("verdict\n got  %s\n want %s", a.Verdict, want)
	}
}

func TestAnalyzePeak(t *testing.T) {
	a, err := Analyze(peakPoints(trace.Second, doubling), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// T(1) = t1·(1 + 1/4096), T(64) = t1/32.
	if want := 32 * (1 + 1.0/4096); a.PeakNP != 64 || math.Abs(a.PeakSpeedup-want) > 1e-9 {
		t.Errorf("peak %g at np=%d, want %g at 64", a.PeakSpeedup, a.PeakNP, want)
	}
	if a.HalfEfficiencyNP != 128 { // efficiency 0.5001 at 64, 0.25 at 128
		t.Errorf("half efficiency at np=%d", a.HalfEfficiencyNP)
	}
	if a.Growing == nil || a.Growing.Node.Pos != "stencil/main.go:88" {
		t.Errorf("growing %+v", a.Growing)
	}
	// Amdahl's law cannot follow a time that rises: the fit says so.
	if a.FitError < 0.3 {
		t.Errorf("fit error %g on a curve with a peak", a.FitError)
	}
	for _, want := range []string{"scales to np=64 (efficiency 0.50)", "speedup peaks at np=64 (32×)",
		"beyond np=64, communication dominates", "stencil/main.go:88"} {
		if !strings.Contains(a.Verdict, want) {
			t.Errorf("verdict %q lacks %q", a.Verdict, want)
		}
	}
}

func TestAnalyzeBaseline(t *testing.T) {
	points := amdahlPoints(trace.Second, 0.1, []int{8, 16, 32, 4})
	t8 := points[0].Time
	check := func(name string, a Analysis, err error, np int, time trace.Time) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if a.BaselineNP != np || a.Baseline != time {
			t.Errorf("%s: baseline np=%d %v, want np=%d %v", name, a.BaselineNP, a.Baseline, np, time)
		}
		for _, r := range a.Rows {
			if r.NP == np && r.Time == time && (r.Speedup != 1 || r.Efficiency != 1) {
				t.Errorf("%s: baseline row %+v", name, r)
			}
		}
	}
	a, err := Analyze(points, nil, Options{BaselineNP: 0, BaselineTime: 0}) // no np=1: the smallest
	check("default", a, err, 4, points[3].Time)
	a, err = Analyze(points, nil, Options{BaselineNP: 8, BaselineTime: 0})
	check("np=8", a, err, 8, t8)
	// Amdahl relative to np=8: f' = f/(f + (1−f)/8).
	if want := 0.1 / (0.1 + 0.9/8); math.Abs(a.SerialFraction-want) > 1e-6 {
		t.Errorf("f relative to np=8: %g, want %g", a.SerialFraction, want)
	}
	a, err = Analyze(points, nil, Options{BaselineNP: 1, BaselineTime: trace.Second}) // a measured one-process time
	check("np=1 given", a, err, 1, trace.Second)
	if math.Abs(a.SerialFraction-0.1) > 1e-6 {
		t.Errorf("f with an external baseline: %g", a.SerialFraction)
	}
	if math.Abs(a.Rows[0].Efficiency-1/(4*0.1+0.9)) > 1e-9 {
		t.Errorf("efficiency at np=4: %g", a.Rows[0].Efficiency)
	}
}

func TestAnalyzeErrors(t *testing.T) {
	good := amdahlPoints(trace.Second, 0.1, []int{1, 2})
	for _, test := range []struct {
		points []Point
		np     int
		time   trace.Time
		want   string
	}{
		{nil, 0, 0, "no predictions to analyse"},
		{[]Point{{NP: 0, Time: 1}}, 0, 0, "np=0: process count less than 1"},
		{[]Point{{NP: 2, Time: 1}, {NP: 2, Time: 1}}, 0, 0, "np=2: two predictions"},
		{[]Point{{NP: 2, Time: 0}}, 0, 0, "np=2: predicted time 0ns is not positive"},
		{[]Point{{NP: 2, Time: 5, Comm: -1}}, 0, 0, "np=2: negative time in the breakdown (compute 0ns, comm -0.001ns, wait 0ns)"},
		{good, -1, 0, "baseline np=-1: process count less than 1"},
		{good, 1, -1, "baseline time -0.001ns is negative"},
		{good, 0, 5, "baseline time 0.005ns given without its process count"},
		{good, 4, 0, "baseline np=4: no prediction at that process count"},
	} {
		_, err := Analyze(test.points, nil, Options{BaselineNP: test.np, BaselineTime: test.time})
		if err == nil || err.Error() != test.want {
			t.Errorf("Analyze(%d points, nil, Options{BaselineNP: %d, BaselineTime: %d}) error = %v, want %s", len(test.points), test.np, test.time, err, test.want)
		}
	}
}

func TestVerdicts(t *testing.T) {
	for _, test := range []struct {
		name   string
		points []Point
		want   string
	}{
		{"single", amdahlPoints(trace.Second, 0.1, []int{4}),
			"no prediction above the baseline np=4: nothing to say about scaling"},
		{"no scaling", []Point{{NP: 1, Time: 100, Compute: 100}, {NP: 2, Time: 110, Compute: 60, Comm: 50}},
			"does not scale: efficiency 0.45 already at np=2; communication dominates the time lost"},
		{"perfect", amdahlPoints(trace.Second, 0, []int{1, 2, 4}),
			"scales to np=4 (efficiency 1.00) across the whole sweep"},
		{"good", amdahlPoints(trace.Second, 0.01, []int{1, 2, 4, 8}),
			"scales to np=8 (efficiency 0.93) across the whole sweep; the time lost at np=8 goes mostly to waiting for other ranks"},
		{"imbalance", []Point{
			{NP: 1, Time: 100, Compute: 100},
			{NP: 4, Time: 100, Compute: 25}, // one rank does everything, the others end at once
		}, "does not scale: efficiency 0.25 already at np=4; imbalance (ranks idle after they finish) dominates the time lost"},
	} {
		a, err := Analyze(test.points, nil, Options{BaselineNP: 0, BaselineTime: 0})
		if err != nil {
			t.Fatalf("%s: %v", test.name, err)
		}
		if !strings.HasPrefix(a.Verdict, test.want) {
			t.Errorf("%s: verdict\n got  %s\n want %s…", test.name, a.Verdict, test.want)
		}
	}
}

// TestAnalyzeWeak checks the weak-scaling analysis on exact data: the
// serial fraction comes back, efficiency is T(1)/T(np), speedups are
// scaled speedups, and the lost time is read as what grows with np, not
// as a failure to scale.
func TestAnalyzeWeak(t *testing.T) {
	for _, f := range []float64{0, 1e-3, 0.01, 0.2} {
		a, err := Analyze(weakPoints(trace.Second, f, doubling), nil, Options{Weak: true})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(a.SerialFraction-f) > 1e-9 || a.FitError > 1e-9 || a.Scaling != Weak {
			t.Errorf("f=%g: fitted %g (rms %g), scaling %q", f, a.SerialFraction, a.FitError, a.Scaling)
		}
		for _, r := range a.Rows {
			want := float64(trace.Second) / float64(r.Time)
			if math.Abs(r.Efficiency-want) > 1e-12 || math.Abs(r.Speedup-want*float64(r.NP)) > 1e-9 {
				t.Errorf("f=%g np=%d: efficiency %g, speedup %g, want %g, %g", f, r.NP, r.Efficiency, r.Speedup, want, want*float64(r.NP))
			}
			if got := a.FittedSpeedup(float64(r.NP)); math.Abs(got-r.Speedup) > 1e-6*r.Speedup {
				t.Errorf("f=%g np=%d: fitted speedup %g, predicted %g", f, r.NP, got, r.Speedup)
			}
			if len(r.Args) != 2 {
				t.Errorf("f=%g np=%d: args %q", f, r.NP, r.Args)
			}
		}
		if strings.Contains(a.Verdict, "does not scale") {
			t.Errorf("f=%g: verdict %q", f, a.Verdict)
		}
	}
	// Perfect weak scaling: constant time.
	a, err := Analyze(weakPoints(trace.Second, 0, []int{1, 2, 4}), nil, Options{Weak: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := "weak-scales to np=4 (efficiency T(1)/T(np) 1.00) across the whole sweep"; a.Verdict != want {
		t.Errorf("verdict %q, want %q", a.Verdict, want)
	}
	// The same times read as strong scaling do not scale.
	a, err = Analyze(weakPoints(trace.Second, 0, []int{1, 4, 8}), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(a.Verdict, "does not scale") || a.Rows[0].Args != nil {
		t.Errorf("strong reading: verdict %q, args %q", a.Verdict, a.Rows[0].Args)
	}
}

// TestShares checks that the breakdown's shares are of np × time, that the
// time ranks are idle after they finish is one of them, and that they sum
// to 1 and their printed percentages to 100.0.
func TestShares(t *testing.T) {
	// Rank 0 computes 10 s, the three others 2 s: idle 8 s each.
	p := Point{NP: 4, Time: 10 * trace.Second, Compute: 4 * trace.Second}
	a, err := Analyze([]Point{p}, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := a.Rows[0]
	if r.Idle != 6*trace.Second || r.ComputeShare != 0.4 || r.IdleShare != 0.6 {
		t.Errorf("idle %v, shares compute %g idle %g; want 6s, 0.4, 0.6", r.Idle, r.ComputeShare, r.IdleShare)
	}
	for _, rows := range [][]Row{a.Rows, analyses(t)["weak"].Rows, analyses(t)["peak"].Rows} {
		for _, r := range rows {
			sum := r.ComputeShare + r.CommShare + r.WaitShare + r.IdleShare
			if math.Abs(sum-1) > 1e-12 {
				t.Errorf("np=%d: shares sum to %g", r.NP, sum)
			}
		}
	}
	for _, shares := range [][]float64{{1 / 3.0, 1 / 3.0, 1 / 3.0, 0}, {0.0004, 0.0004, 0.0004, 0.9988}, {0.12345, 0.5, 0.37655, 0}} {
		var total float64
		for _, s := range percents(shares...) {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatal(err)
			}
			total += v
		}
		if math.Abs(total-100) > 1e-9 {
			t.Errorf("percents(%v) = %q, sum %g", shares, percents(shares...), total)
		}
	}
	if got := percents(0, 0, 0, 0); !slices.Equal(got, []string{"0.0", "0.0", "0.0", "0.0"}) {
		t.Errorf("percents of nothing: %q", got)
	}
	// Means rounded above the time: no negative idle time.
	a, err = Analyze([]Point{{NP: 3, Time: 10, Compute: 6, Comm: 3, Wait: 2}}, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := a.Rows[0]; r.Idle != 0 || math.Abs(r.ComputeShare+r.CommShare+r.WaitShare-1) > 1e-12 {
		t.Errorf("rounded means: %+v", r)
	}
}
