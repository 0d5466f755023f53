// This file defines the statistics of the timing pass: compensated means,
// deviations and the error bounds of seed-003 §4.4, and loop balance.

package estimator

import (
	"math"
	"slices"
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

// balance computes the balance degree of per-iteration samples (in ns,
// each including the overhead of the probe that marked it): D =
// max|T_i − T̄| / T̄.
func balance(samples []int64, overheadNS float64) (meanNS, d float64) {
	if len(samples) == 0 {
		return 0, 0
	}
	xs := make([]float64, len(samples))
	for i, s := range samples {
		xs[i] = math.Max(0, float64(s)-overheadNS)
	}
	// Interrupts and preemptions make rare huge samples: drop the top and
	// bottom 5 % (at least one sample each when there are ten or more).
	slices.Sort(xs)
	if cut := max(len(xs)/20, min(1, len(xs)/10)); cut > 0 {
		xs = xs[cut : len(xs)-cut]
	}
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	meanNS = sum / float64(len(xs))
	if meanNS == 0 {
		return 0, 0
	}
	worst := 0.0
	for _, x := range xs {
		worst = math.Max(worst, math.Abs(x-meanNS))
	}
	return meanNS, worst / meanNS
}
