// This file defines the piecewise LogGP fit of a ping-pong table: the
// fewest ranges of sizes, each a line fitted by relative least squares,
// that reproduce every measured size within a tolerance, chosen by
// dynamic programming, with a break at the eager limit.

package estimator

import (
	"cmp"
	"fmt"
	"math"
	"strings"

	"github.com/predict-tools/predict/machine"
	"gonum.org/v1/gonum/mat"
)

// SegmentTolerance is the relative error a piecewise fit must keep at
// every size of the table (issue 21: "the fitted model reproduces the
// measured ping-pong table within 5 % at every size").
const SegmentTolerance = 0.05

// Segment is one range of a piecewise fit: from Lo to Hi bytes (both
// measured sizes) the one-way time is Intercept + Slope·(s − Lo). Slope
// is the range's G + O, Intercept its time at Lo (see machine.Segment for
// why at Lo and not at 1 B).
type Segment struct {
	Lo        int64      `json:"lo"`
	Hi        int64      `json:"hi"`
	Intercept float64    `json:"intercept_ns"`      // the fitted one-way time at Lo
	Slope     float64    `json:"slope_ns_per_byte"` // ≥ 0
	Worst     float64    `json:"worst_rel"`         // the largest |relative residual| of the range
	Residuals []Residual `json:"residuals"`         // each size of the range
}

// At is the segment's line at s bytes.
func (g Segment) At(s int64) float64 { return g.Intercept + g.Slope*float64(s-g.Lo) }

// SegmentFit is the piecewise LogGP fit of a ping-pong table, SimGrid/
// SMPI's network model (per-range latency and bandwidth factors,
// smpi/lat-factor and smpi/bw-factor, calibrated from a ping-pong range
// by range: contrib/network_model/calibrate_piecewise.py): the fewest
// Segments, each of at least 2 consecutive sizes, such that every size is
// within Tolerance of its range's line; among those, the smallest sum of
// squared relative residuals.
//
// The ranges are not joined: each is its own least-squares line, and
// between two ranges the model is a straight bridge from the end of one
// to the start of the next (machine.Segments.At), so it is continuous at
// every size but the eager limit. Joining the lines at the breakpoints
// (a continuous linear spline) would tie each range's line to its
// neighbours', so that the best split could no longer be found range by
// range, exactly, by dynamic programming; and the two changes a table
// shows, a protocol's and a cache's, are steps, which a continuous line
// must smear over a range and fit worse at both ends. The bridge keeps
// what continuity gives, a size between two measured ones costing between
// what they cost, without either price.
//
// Failure says, never silently, that no split meets the tolerance: the
// fit is then the split with the fewest sizes beyond it.
type SegmentFit struct {
	Tolerance float64 `json:"tolerance"`
	// EagerLimit is the size after which a range must end (the change of
	// protocol: the runtime's S when it is known, else the jump the line
	// fit found); −1: none, or not within the table with 2 sizes on
	// either side.
	EagerLimit int64     `json:"eager_limit"`
	Segments   []Segment `json:"segments"`
	Sizes      int       `json:"sizes"`
	Within     int       `json:"within"` // sizes within Tolerance
	SumSq      float64   `json:"sum_sq"` // the sum of squared relative residuals
	RelRMS     float64   `json:"rel_rms"`
	Failure    string    `json:"failure,omitempty"`
}

// machine returns the segments in the machine file's units (ps, fs/B).
func (f SegmentFit) machine() machine.Segments {
	if len(f.Segments) == 0 {
		return nil
	}
	out := make(machine.Segments, len(f.Segments))
	for i, g := range f.Segments {
		out[i] = machine.Segment{Lo: g.Lo, Hi: g.Hi, Intercept: nsTime(g.Intercept), Slope: nsPerByte(g.Slope)}
	}
	return out
}

// rangeLine is the least-squares line of one range of the table and how
// well it fits.
type rangeLine struct {
	intercept, slope float64
	sumSq, worst     float64
	out              int // sizes beyond the tolerance
}

// splitCost orders splits: fewest sizes beyond the tolerance, then fewest
// ranges, then the smallest sum of squares.
type splitCost struct {
	out, ranges int
	sumSq       float64
}

func (a splitCost) less(b splitCost) bool {
	return cmp.Or(cmp.Compare(a.out, b.out), cmp.Compare(a.ranges, b.ranges), cmp.Compare(a.sumSq, b.sumSq)) < 0
}

// fitSegments fits sizes → times (ns) with the fewest ranges within tol
// of every size, a range ending at eagerLimit when it leaves 2 sizes on
// either side (−1: no such break). The split is exact: dynamic
// programming over the ends of the ranges, each range's line fitted once.
func fitSegments(sizes []int64, times []float64, tol float64, eagerLimit int64) (SegmentFit, error) {
	if err := checkTable(sizes, times); err != nil {
		return SegmentFit{}, err
	}
	n := len(sizes)
	fit := SegmentFit{Tolerance: tol, EagerLimit: -1, Sizes: n}
	brk := -1 // the first size beyond the eager limit: no range spans brk−1 and brk
	if eagerLimit >= 0 {
		k := 0
		for k < n && sizes[k] <= eagerLimit {
			k++
		}
		if k >= 2 && n-k >= 2 {
			brk, fit.EagerLimit = k, eagerLimit
		}
	}
	lines := make([][]rangeLine, n) // lines[i][j]: sizes i..j
	for i := range n {
		lines[i] = make([]rangeLine, n)
		for j := i + 1; j < n; j++ {
			lines[i][j] = fitRange(sizes[i:j+1], times[i:j+1], tol)
		}
	}
	// best[j] is the best split of the first j sizes, from[j] where its
	// last range starts; best[0] is the empty split.
	best := make([]splitCost, n+1)
	from := make([]int, n+1)
	for j := range from {
		from[j] = -1
	}
	from[0] = 0
	for j := 2; j <= n; j++ {
		for i := 0; i <= j-2; i++ {
			if from[i] < 0 || (brk >= 0 && i < brk && j > brk) {
				continue
			}
			l := lines[i][j-1]
			c := splitCost{best[i].out + l.out, best[i].ranges + 1, best[i].sumSq + l.sumSq}
			if from[j] < 0 || c.less(best[j]) {
				best[j], from[j] = c, i
			}
		}
	}
	var ends []int
	for j := n; j > 0; j = from[j] {
		ends = append(ends, j)
	}
	for k := len(ends) - 1; k >= 0; k-- {
		j := ends[k]
		i := from[j]
		l := lines[i][j-1]
		g := Segment{Lo: sizes[i], Hi: sizes[j-1], Intercept: l.intercept, Slope: l.slope, Worst: l.worst}
		for m := i; m < j; m++ {
			model := g.At(sizes[m])
			g.Residuals = append(g.Residuals, Residual{Bytes: sizes[m], Measured: times[m], Model: model, Rel: model/times[m] - 1})
		}
		fit.Segments = append(fit.Segments, g)
	}
	fit.SumSq = best[n].sumSq
	fit.RelRMS = math.Sqrt(fit.SumSq / float64(n))
	fit.Within = n - best[n].out
	if best[n].out > 0 {
		fit.Failure = fit.failure()
	}
	return fit, nil
}

// failure says which sizes no split brings within the tolerance.
func (f SegmentFit) failure() string {
	var out []string
	for _, g := range f.Segments {
		for _, r := range g.Residuals {
			if math.Abs(r.Rel) > f.Tolerance {
				out = append(out, fmt.Sprintf("%d B %+.1f %%", r.Bytes, 100*r.Rel))
			}
		}
	}
	return fmt.Sprintf("no split into ranges of 2 or more sizes is within ±%.0f %% at every size: the best leaves %d of %d beyond it (%s); "+
		"the table is too noisy, or falls where a cost cannot, for a piecewise-linear model", 100*f.Tolerance, f.Sizes-f.Within, f.Sizes, strings.Join(out, ", "))
}

// fitRange is the line of one range by least squares on relative
// residuals, with a time at the range's first size and a cost per byte
// that are never negative: of the unconstrained line and the best line
// with either held at 0, the feasible one with the smallest sum of
// squares (the constrained optimum: the problem is convex, so when the
// unconstrained line is not feasible the optimum lies on a bound).
func fitRange(sizes []int64, times []float64, tol float64) rangeLine {
	// x in [0, 1] across the range keeps the two columns alike in scale.
	width := float64(sizes[len(sizes)-1] - sizes[0])
	x := make([]float64, len(sizes))
	for i, s := range sizes {
		x[i] = float64(s-sizes[0]) / width
	}
	sumSq := func(a, b float64) float64 {
		ss := 0.0
		for i, t := range times {
			r := (a+b*x[i])/t - 1
			ss += r * r
		}
		return ss
	}
	type line struct{ a, b, ss float64 }
	var cands []line
	if a, b, ok := solveRange(x, times); ok && a >= 0 && b >= 0 {
		cands = append(cands, line{a, b, sumSq(a, b)})
	} else {
		// b = 0: the best constant; a = 0: the best line through 0 at
		// the first size. Σ over u = 1/t and v = x/t.
		var su, suu, sv, svv float64
		for i, t := range times {
			u, v := 1/t, x[i]/t
			su, suu, sv, svv = su+u, suu+u*u, sv+v, svv+v*v
		}
		cands = append(cands, line{su / suu, 0, sumSq(su/suu, 0)}, line{0, sv / svv, sumSq(0, sv/svv)})
	}
	l := cands[0]
	for _, c := range cands[1:] {
		if c.ss < l.ss {
			l = c
		}
	}
	out := rangeLine{intercept: l.a, slope: l.b / width, sumSq: l.ss}
	for i, t := range times {
		r := math.Abs((l.a+l.b*x[i])/t - 1)
		out.worst = math.Max(out.worst, r)
		if r > tol {
			out.out++
		}
	}
	return out
}

// solveRange is the unconstrained relative least-squares line a + b·x of
// times (false if the system is singular).
func solveRange(x, times []float64) (a, b float64, ok bool) {
	m := mat.NewDense(len(x), 2, nil)
	rhs := mat.NewVecDense(len(x), nil)
	for i, t := range times {
		m.Set(i, 0, 1/t)
		m.Set(i, 1, x[i]/t)
		rhs.SetVec(i, 1)
	}
	var sol mat.VecDense
	if err := sol.SolveVec(m, rhs); err != nil {
		return 0, 0, false
	}
	return sol.AtVec(0), sol.AtVec(1), true
}
