package estimator

import (
	"bytes"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/predict-tools/predict/internal/golden"
	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/trace"
)

// piecewiseTable is the table at 1 B … 4 MiB (powers of 2) of known
// ranges: each size takes the line of the range it lies in.
func piecewiseTable(ranges []Segment) ([]int64, []float64) {
	var sizes []int64
	var times []float64
	for s := int64(1); s <= 4<<20; s *= 2 {
		for _, g := range ranges {
			if g.Lo <= s && s <= g.Hi {
				sizes, times = append(sizes, s), append(times, g.At(s))
			}
		}
	}
	return sizes, times
}

// knownRanges: nearly flat to 1 KiB, 20 MB/s to the eager limit 64 KiB,
// 5 MB/s to 1 MiB (leaving the caches), 10 MB/s from 2 MiB: a step between
// every two ranges, so that no two ranges make one within 5 %.
var knownRanges = []Segment{
	{Lo: 1, Hi: 1024, Intercept: 1000, Slope: 0.001},
	{Lo: 2048, Hi: 65536, Intercept: 3000, Slope: 0.05},
	{Lo: 131072, Hi: 1 << 20, Intercept: 20000, Slope: 0.2},
	{Lo: 2 << 20, Hi: 4 << 20, Intercept: 600000, Slope: 0.1},
}

func relDiff(a, b float64) float64 { return math.Abs(a-b) / math.Max(math.Abs(b), 1e-300) }

func TestSegmentsExactRecovery(t *testing.T) {
	sizes, times := piecewiseTable(knownRanges)
	// With the eager limit known, and found by the data alone.
	for _, limit := range []int64{65536, -1} {
		fit, err := fitSegments(sizes, times, SegmentTolerance, limit)
		if err != nil {
			t.Fatal(err)
		}
		if fit.Failure != "" || fit.Within != len(sizes) || len(fit.Segments) != len(knownRanges) || fit.EagerLimit != limit {
			t.Fatalf("limit %d: %d ranges, %d of %d within, eager %d, %q", limit, len(fit.Segments), fit.Within, len(sizes), fit.EagerLimit, fit.Failure)
		}
		for i, g := range fit.Segments {
			want := knownRanges[i]
			if g.Lo != want.Lo || g.Hi != want.Hi || relDiff(g.Intercept, want.Intercept) > 1e-9 || relDiff(g.Slope, want.Slope) > 1e-9 {
				t.Errorf("limit %d: range %d = [%d, %d] %.12g + %.12g/B, want [%d, %d] %g + %g/B", limit, i, g.Lo, g.Hi, g.Intercept, g.Slope,
					want.Lo, want.Hi, want.Intercept, want.Slope)
			}
			for _, r := range g.Residuals {
				if math.Abs(r.Rel) > 1e-9 {
					t.Errorf("limit %d: %d B residual %g", limit, r.Bytes, r.Rel)
				}
			}
		}
		if fit.RelRMS > 1e-9 {
			t.Errorf("limit %d: rms %g", limit, fit.RelRMS)
		}
		// In the machine's units, to the picosecond at every measured size.
		for i, s := range sizes {
			if got, want := fit.machine().At(s, limit), nsTime(times[i]); math.Abs(float64(got-want)) > 1+float64(s)*0.0005 {
				t.Errorf("machine segments at %d B: %d ps, want %d", s, got, want)
			}
		}
	}
}

// splits calls visit with every split of n sizes into ranges of at least
// 2 consecutive sizes that do not span brk−1 and brk (brk < 0: none),
// each as the ends (exclusive) of its ranges.
func splits(n, brk int, visit func(ends []int)) {
	var rec func(start int, ends []int)
	rec = func(start int, ends []int) {
		if start == n {
			visit(ends)
			return
		}
		for end := start + 2; end <= n; end++ {
			if brk >= 0 && start < brk && end > brk {
				break
			}
			rec(end, append(ends, end))
		}
	}
	rec(0, nil)
}

// TestSegmentsMinimal checks seeded random tables against every split:
// the fit has the fewest ranges of any split within the tolerance at every
// size, and the least sum of squares among those; its every size is within
// the tolerance; intercepts and slopes are never negative.
func TestSegmentsMinimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 5))
	const tol = SegmentTolerance
	feasible := 0
	for trial := range 300 {
		n := 4 + rng.IntN(9) // 4 … 12 sizes
		sizes := make([]int64, n)
		times := make([]float64, n)
		// A random piecewise truth: at each size, with probability 1/4, a
		// new range with its own step and slope; noise up to ±2.5 %.
		level, slope := 500+1000*rng.Float64(), 0.5*rng.Float64()
		for i := range n {
			sizes[i] = int64(1) << (2 * i)
			if i > 0 && rng.IntN(4) == 0 {
				level *= 1 + 2*rng.Float64()
				slope = 0.5 * rng.Float64()
			}
			times[i] = (level + slope*float64(sizes[i])) * (1 + 0.025*(2*rng.Float64()-1))
		}
		limit, brk := int64(-1), -1
		if n >= 6 && trial%3 == 0 {
			k := 2 + rng.IntN(n-3)
			limit, brk = sizes[k-1], k
		}
		fit, err := fitSegments(sizes, times, tol, limit)
		if err != nil {
			t.Fatal(err)
		}
		bestRanges, bestSS := math.MaxInt, math.Inf(1)
		splits(n, brk, func(ends []int) {
			ss, start := 0.0, 0
			for _, end := range ends {
				l := fitRange(sizes[start:end], times[start:end], tol)
				if l.out > 0 {
					return
				}
				ss, start = ss+l.sumSq, end
			}
			if len(ends) < bestRanges || (len(ends) == bestRanges && ss < bestSS) {
				bestRanges, bestSS = len(ends), ss
			}
		})
		if bestRanges == math.MaxInt {
			if fit.Failure == "" {
				t.Errorf("trial %d: no split is within %g, but the fit says none fails: %+v", trial, tol, fit)
			}
			continue
		}
		feasible++
		if fit.Failure != "" || fit.Within != n || len(fit.Segments) != bestRanges || fit.SumSq > bestSS*(1+1e-12)+1e-300 {
			t.Errorf("trial %d: %d ranges (sum of squares %g, %d of %d within, %q), want %d (%g)", trial, len(fit.Segments), fit.SumSq,
				fit.Within, n, fit.Failure, bestRanges, bestSS)
		}
		for _, g := range fit.Segments {
			if g.Intercept < 0 || g.Slope < 0 {
				t.Errorf("trial %d: range [%d, %d] %g + %g/B", trial, g.Lo, g.Hi, g.Intercept, g.Slope)
			}
			if brk >= 0 && g.Lo <= limit && g.Hi > limit {
				t.Errorf("trial %d: range [%d, %d] spans the eager limit %d", trial, g.Lo, g.Hi, limit)
			}
			for _, r := range g.Residuals {
				if math.Abs(r.Rel) > tol {
					t.Errorf("trial %d: %d B %+.3f beyond %g", trial, r.Bytes, r.Rel, tol)
				}
			}
		}
	}
	if feasible < 250 {
		t.Errorf("only %d of 300 random tables could be split within the tolerance: the check proves little", feasible)
	}
}

// TestSegmentsPathological: a table that falls and rises by a third at
// every size cannot be fitted by lines of 2 sizes or more that never
// fall: the fit says so, and the calibration's summary and source too.
func TestSegmentsPathological(t *testing.T) {
	var sizes []int64
	var times []float64
	for i, s := 0, int64(1); s <= 1<<10; i, s = i+1, s*2 {
		sizes = append(sizes, s)
		times = append(times, []float64{1000, 600}[i%2])
	}
	fit, err := fitSegments(sizes, times, SegmentTolerance, -1)
	if err != nil {
		t.Fatal(err)
	}
	if fit.Failure == "" || fit.Within >= fit.Sizes || !strings.Contains(fit.Failure, "no split into ranges of 2 or more sizes is within ±5 % at every size") {
		t.Fatalf("a zig-zag table: %d of %d within, failure %q", fit.Within, fit.Sizes, fit.Failure)
	}
	for _, g := range fit.Segments {
		if g.Slope < 0 || g.Intercept < 0 {
			t.Errorf("range [%d, %d]: %g + %g/B", g.Lo, g.Hi, g.Intercept, g.Slope)
		}
	}

	cal, ms := syntheticCalibration(t, machine.LogGOPS{Latency: 500 * trace.Nanosecond, Overhead: 200 * trace.Nanosecond, EagerLimit: 64 << 10})
	for i := range cal.PingPong {
		cal.PingPong[i].OneWay.Mean *= []float64{1, 0.6}[i%2]
	}
	if err := cal.makeMachine(ms); err != nil {
		t.Fatal(err)
	}
	var sum bytes.Buffer
	if err := cal.WriteSummary(&sum); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"NOT within ±5 % at every size", "FAILED: no split"} {
		if !strings.Contains(sum.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, sum.String())
		}
	}
	if !strings.Contains(cal.Machine.Source, "NOT within ±5 % at every size") {
		t.Errorf("source: %s", cal.Machine.Source)
	}
}

// TestFitRangeBounds: a falling range gets the best constant (slope 0), a
// range through 0 at its first size with a steep rise the best line
// through 0, never a negative time or cost.
func TestFitRangeBounds(t *testing.T) {
	l := fitRange([]int64{1, 2, 3}, []float64{300, 200, 100}, 1)
	if l.slope != 0 || relDiff(l.intercept, (1./300+1./200+1./100)/(1./300/300+1./200/200+1./100/100)) > 1e-12 {
		t.Errorf("falling: %+v", l)
	}
	l = fitRange([]int64{10, 20, 30}, []float64{1, 1000, 1000}, 1)
	if l.intercept < 0 || l.slope < 0 {
		t.Errorf("steep: %+v", l)
	}
}

// TestCalibrationSegments: the calibration of a known piecewise machine
// recovers its ranges, breaking at the runtime's eager limit, and writes
// them to both levels of the machine; the summary is golden.
func TestCalibrationSegments(t *testing.T) {
	cal, ms := syntheticCalibration(t, machine.LogGOPS{Latency: 500 * trace.Nanosecond, Overhead: 200 * trace.Nanosecond, EagerLimit: 64 << 10})
	sizes, times := piecewiseTable(knownRanges)
	for i := range cal.PingPong {
		if cal.PingPong[i].Bytes != sizes[i] {
			t.Fatalf("sizes differ: %d, %d", cal.PingPong[i].Bytes, sizes[i])
		}
		cal.PingPong[i].OneWay.Mean = times[i]
	}
	if err := cal.makeMachine(ms); err != nil {
		t.Fatal(err)
	}
	if len(cal.Segments.Segments) != 4 || cal.Segments.EagerLimit != 64<<10 || cal.Segments.Failure != "" {
		t.Fatalf("segments %+v", cal.Segments)
	}
	m := cal.Machine
	if len(m.Table.IntraSegments) != 4 || len(m.Table.InterSegments) != 4 || m.Table.IntraSegments[2] != (machine.Segment{Lo: 131072, Hi: 1 << 20, Intercept: 20 * trace.Microsecond, Slope: 200 * machine.PicosecondPerByte}) {
		t.Errorf("machine segments %+v", m.Table.IntraSegments)
	}
	if !strings.Contains(m.Source, "piecewise LogGP (SimGrid/SMPI's per-range factors): 4 ranges by relative least squares, fewest ranges by dynamic programming, a break after the eager limit 65536 B, within ±5 % at every size (23)") {
		t.Errorf("source: %s", m.Source)
	}
	var sum bytes.Buffer
	if err := cal.WriteSummary(&sum); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "calibrate", "summary.golden"), sum.Bytes())
}
