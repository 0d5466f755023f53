// This file defines the statistics of the timing pass: compensated means,
// deviations and the error bounds of seed-003 §4.4, and loop balance.

package estimator

import (
	"math"
	"slices"

	"github.com/predict-tools/predict/estimator/probe"
)

// moments are the raw sums a probe keeps for one fragment, in nanoseconds.
type moments struct {
	count      int64
	sum        float64 // Σ t
	sumSq      float64 // Σ t²
	min, max   float64
	overheadNS float64 // probe cost included in every measurement
}

// stats compensates the probe overhead and computes the mean, standard
// deviation, extremes and the bounds |Δ| ≤ 3σ/√N, δ ≤ 3σ/(√N(t̄ − σ)), in
// picoseconds.
func (m moments) stats() (mean, sd, lo, hi, errAbs int64, errRel float64) {
	if m.count == 0 {
		return 0, 0, 0, 0, 0, 0
	}
	n := float64(m.count)
	raw := m.sum / n
	variance := math.Max(0, m.sumSq/n-raw*raw)
	sigma := math.Sqrt(variance)
	t := math.Max(0, raw-m.overheadNS)
	delta := 3 * sigma / math.Sqrt(n)
	switch {
	case m.count == 1:
		errRel = 1 // measured once: no spread to bound it by (the runs' spread may, combine)
	case t > sigma:
		errRel = delta / (t - sigma)
	case sigma == 0:
		errRel = 0
	default:
		errRel = 1 // the spread is as large as the mean: no useful bound
	}
	ps := func(ns float64) int64 { return int64(math.Round(ns * 1000)) }
	return ps(t), ps(sigma), ps(math.Max(0, m.min-m.overheadNS)), ps(math.Max(0, m.max-m.overheadNS)), ps(delta), math.Min(errRel, 1)
}

// balance computes the balance degree D = max|T_k − T̄| / T̄ of a loop's
// iterations from its sampled iteration times, by iteration index (in ns,
// each including the overhead of the probe that marked it), and returns
// the mean iteration time and the number of samples.
//
// Scheduling noise (interrupts, preemption, another process on the core)
// only ever adds time, and strikes an iteration of one entry, not the
// same iteration of every entry. So where the iterations were sampled in
// several entries, T_k is the lower quartile of iteration k's samples (the
// fastest of up to four): an iteration index is judged slow only when it
// is slow in most entries, which is what imbalance means. Where most
// indexes have fewer than three samples (a loop entered once or twice),
// the samples are pooled and the top and bottom 5 % dropped.
func balance(samples [][]int64, overheadNS float64) (meanNS, d float64, n int) {
	var byIndex [][]float64
	repeated := 0
	for _, ss := range samples {
		if len(ss) == 0 {
			continue
		}
		xs := sortedLess(ss, overheadNS)
		byIndex = append(byIndex, xs)
		n += len(xs)
		if len(xs) >= 3 {
			repeated++
		}
	}
	if n == 0 {
		return 0, 0, 0
	}
	var ts []float64
	if 2*repeated > len(byIndex) {
		for _, xs := range byIndex {
			ts = append(ts, lowerQuartile(xs))
		}
	} else {
		for _, xs := range byIndex {
			ts = append(ts, xs...)
		}
		// Interrupts and preemptions make rare huge samples: drop the
		// top and bottom 5 % (at least one sample each when there are
		// ten or more).
		slices.Sort(ts)
		if cut := max(len(ts)/20, min(1, len(ts)/10)); cut > 0 {
			ts = ts[cut : len(ts)-cut]
		}
	}
	sum := 0.0
	for _, t := range ts {
		sum += t
	}
	meanNS = sum / float64(len(ts))
	if meanNS == 0 {
		return 0, 0, n
	}
	worst := 0.0
	for _, t := range ts {
		worst = math.Max(worst, math.Abs(t-meanNS))
	}
	return meanNS, worst / meanNS, n
}

// perIterSpread is the balance degree of a loop whose iterations are too
// short for the clock, judged from its whole entries: σ_c/c̄, the spread of
// the time per iteration c of an entry, from the entries' mean and
// standard deviation (meanT, sdT) and their trip counts (trips, count
// pairs; other: the entries whose count is not among them, or nil). An entry's time is T = n·c: with n and c independent,
// Var(T) = c̄²·Var(n) + (E[n]² + Var(n))·Var(c), so the trip counts'
// own spread is taken out. Judged on whole entries (σ_T/T̄), stencil's
// sweep, entered with 32 768 points by its ranks and 65 536 by the
// sequential check, read D = 2.45 though every point costs the same.
func perIterSpread(meanT, sdT float64, trips [][2]int64, other *probe.RawTripsOther) float64 {
	var entries, sum, sumSq float64
	for _, t := range trips {
		n, c := float64(t[0]), float64(t[1])
		entries += c
		sum += n * c
		sumSq += n * n * c
	}
	if other != nil && other.Count > 0 {
		// Only their sum is known: each at their mean (no spread).
		m := float64(other.Sum) / float64(other.Count)
		entries += float64(other.Count)
		sum += float64(other.Sum)
		sumSq += m * m * float64(other.Count)
	}
	if meanT <= 0 {
		return 0
	}
	if entries == 0 || sum == 0 {
		return sdT / meanT
	}
	en := sum / entries
	vn := math.Max(0, sumSq/entries-en*en)
	cbar := meanT / en
	vc := math.Max(0, (sdT*sdT-cbar*cbar*vn)/(en*en+vn))
	return math.Sqrt(vc) / cbar
}

// iterCurve returns the per-iteration estimates of an unbalanced loop
// whose iterations differ by their index within an entry (seed-003
// §4.3.2.3: the time of an unbalanced loop is the sum of the estimates
// of its iterations), in ps: first[k-1] is iteration k's time, for the
// first K = len(first) iterations, and later the time of each iteration
// after them. An entry of t trips then costs Σ first[:min(t, K)] +
// max(t − K, 0)·later.
//
// T_k is iteration k's lower quartile over the entries sampled (as in
// balance), for the indexes 1, 2, … sampled in at least minCurveEntries
// entries;
// the reference r is the median T_k of the later half of them. The curve
// keeps the first iterations up to the last whose T_k differs from r by
// more than alpha·r; the iterations after them are charged r. The shape
// is then scaled so that the profiled entries (trips, count pairs; other:
// the entries whose count is not among them, at their mean) cost the
// loop's measured total, totalPS, exactly: the lower quartile reads low,
// and the samples are a few entries' first iterations. It returns nil
// when no index differs that much or fewer than eight indexes were
// sampled that often.
// minCurveEntries is how many entries must have sampled an iteration
// index for iterCurve to use it: with fewer, the lower quartile is the
// fastest of two or three, and a loop entered a few times differs by
// index by where its pages start (stencil2d's fillSource, entered three
// times, read a first iteration from 0.9 to 1.9 times the others at
// indexes from 1 to 64); such a loop's entries are too few for their
// first iterations to matter either.
const minCurveEntries = 8

func iterCurve(samples [][]int64, overheadNS, alpha float64, totalPS float64, trips [][2]int64, other *probe.RawTripsOther) (first []int64, later int64) {
	var ts []float64 // T_k, ns, for k = 1..len(ts)
	for _, ss := range samples {
		if len(ss) < minCurveEntries {
			break
		}
		ts = append(ts, lowerQuartile(sortedLess(ss, overheadNS)))
	}
	if len(ts) < 8 {
		return nil, 0
	}
	late := slices.Clone(ts[len(ts)/2:])
	slices.Sort(late)
	r := late[len(late)/2]
	k := 0
	for i, t := range ts {
		if math.Abs(t-r) > alpha*r {
			k = i + 1
		}
	}
	if k == 0 || r <= 0 {
		return nil, 0
	}
	prefix := make([]float64, k+1) // the first j iterations' shape
	for i, t := range ts[:k] {
		prefix[i+1] = prefix[i] + t
	}
	var shape float64 // the profiled entries' time, in the shape's units
	add := func(t, n float64) {
		shape += n * (prefix[int(math.Min(t, float64(k)))] + math.Max(t-float64(k), 0)*r)
	}
	for _, tc := range trips {
		add(float64(max(tc[0], 0)), float64(tc[1]))
	}
	if other != nil && other.Count > 0 {
		add(math.Floor(float64(other.Sum)/float64(other.Count)), float64(other.Count))
	}
	if shape <= 0 || totalPS <= 0 {
		return nil, 0
	}
	scale := totalPS / shape
	first = make([]int64, k)
	for i, t := range ts[:k] {
		first[i] = int64(math.Round(t * scale))
	}
	return first, int64(math.Round(r * scale))
}

// sortedLess returns one iteration index's samples (ns, each with the
// probe's overhead) less the overhead, at least 0, sorted.
func sortedLess(samples []int64, overheadNS float64) []float64 {
	xs := make([]float64, len(samples))
	for i, s := range samples {
		xs[i] = math.Max(0, float64(s)-overheadNS)
	}
	slices.Sort(xs)
	return xs
}

// lowerQuartile is the lower quartile of sorted xs (the fastest of up to
// four): T_k of balance and iterCurve.
func lowerQuartile(xs []float64) float64 { return xs[(len(xs)-1)/4] }
