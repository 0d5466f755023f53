// This file defines the noise of a node's compute: how much a burst of
// computation between two communication calls varies from one execution to
// the next (seed-003 §4.7's synchronisation time t_s, which "only
// probabilistic estimates" can give; LogGOPSim injects such noise from
// measured traces).

package machine

import (
	"fmt"
	"math"
	"strconv"

	"github.com/predict-tools/predict/trace"
)

// Noise is how the duration of a rank's compute burst (its computation
// between two communication calls) varies on a node whose cores are all
// busy: per measured burst length, the distribution of a burst's relative
// deviation from the mean, (t − mean)/mean. Points are sorted by strictly
// increasing Burst and have the same number of deviations.
//
// The profile's fragment times are means, so they already hold the noise's
// mean; what they lack is its spread. Ranks that synchronise wait for the
// slowest of them, and the spread is what makes the slowest slower than the
// mean: two ranks exchanging halos after 100 µs bursts that vary by ±10 %
// lose about 6 µs a step to each other, however exactly the mean is known.
// The interpreter draws each burst's deviation from this distribution with
// a seeded generator, so that the ranks' waits at synchronisations follow.
//
// MPI ranks pinned to the cores of a quiet cluster node vary little; the
// presets have no noise. predict calibrate measures it on this machine
// (a fixed work quantum per step on every core, the ranks synchronising
// after each, as FWQ benchmarks do).
type Noise []NoisePoint

// NoisePoint is the distribution of a burst's relative deviation at one
// burst length.
type NoisePoint struct {
	Burst trace.Time // the burst length the deviations were measured at
	// Deviations are equally likely outcomes, sorted: each is the mean
	// relative deviation of an equal share of the measured bursts, the
	// fastest share first. Their mean is 0 (they are deviations from the
	// mean); each is greater than −1.
	Deviations []float64
}

// Limits of a noise description.
const (
	// MaxNoiseDeviations bounds the outcomes per point.
	MaxNoiseDeviations = 1024
	// MaxNoiseDeviation bounds one outcome: a burst taking 100 times its
	// mean is a measurement gone wrong.
	MaxNoiseDeviation = 100
	// noiseMeanTolerance is how far the outcomes' mean may be from 0 (the
	// interpreter centres them).
	noiseMeanTolerance = 0.005
)

// Outcomes is how many equally likely outcomes each point has (0: no
// noise).
func (n Noise) Outcomes() int {
	if len(n) == 0 {
		return 0
	}
	return len(n[0].Deviations)
}

// At returns outcome j's relative deviation for a burst of length b. n must
// be valid and 0 ≤ j < n.Outcomes().
//   - At or below the first point's burst: the first point's outcome.
//   - Between two points: interpolated linearly in the logarithm of the
//     burst length, outcome j of one to outcome j of the other (the j-th
//     fastest share at both lengths).
//   - Beyond the last point: the last point's outcome, decaying as
//     √(last burst / b): a burst many times longer than any measured is
//     many independent stretches, whose disturbances average out. The
//     spread measured between 100 µs and 1 ms on this machine decays far
//     slower (the ranks keep a state for milliseconds), but held beyond
//     the last point it would make ep's two ranks, 270 ms of compute
//     each, wait 5 % for each other where they wait 0.9 %.
func (n Noise) At(j int, b trace.Time) float64 {
	first, last := n[0], n[len(n)-1]
	switch {
	case b <= first.Burst:
		return first.Deviations[j]
	case b >= last.Burst:
		return last.Deviations[j] * math.Sqrt(float64(last.Burst)/float64(b))
	}
	i := 1
	for n[i].Burst < b {
		i++
	}
	a, c := n[i-1], n[i]
	f := math.Log(float64(b)/float64(a.Burst)) / math.Log(float64(c.Burst)/float64(a.Burst))
	return a.Deviations[j] + f*(c.Deviations[j]-a.Deviations[j])
}

// Spread is the standard deviation of p's outcomes.
func (p NoisePoint) Spread() float64 {
	if len(p.Deviations) == 0 {
		return 0
	}
	var mean, sq float64
	for _, d := range p.Deviations {
		mean += d
	}
	mean /= float64(len(p.Deviations))
	for _, d := range p.Deviations {
		sq += (d - mean) * (d - mean)
	}
	return math.Sqrt(sq / float64(len(p.Deviations)))
}

// Check validates n alone, as [Machine.Validate] does, its errors naming
// the fields from "noise".
func (n Noise) Check() error {
	var v validator
	v.noise("noise", n)
	return v.errs.Err()
}

// noise checks a noise description: bursts positive and increasing, the
// same number of outcomes at each, each sorted, greater than −1 and at most
// MaxNoiseDeviation, with a mean of 0.
func (v *validator) noise(field string, n Noise) {
	for i, p := range n {
		f := fmt.Sprintf("%s[%d]", field, i)
		var prev trace.Time
		if i > 0 {
			prev = n[i-1].Burst
		}
		v.increasingTime(f+".burst", "burst lengths", i, p.Burst, prev)
		d := p.Deviations
		switch {
		case len(d) < 2 || len(d) > MaxNoiseDeviations:
			v.errorf(f+".deviations", "%d outcomes: want between 2 and %d", len(d), MaxNoiseDeviations)
			continue
		case i > 0 && len(d) != len(n[0].Deviations):
			v.errorf(f+".deviations", "%d outcomes where %s[0] has %d: every point needs as many", len(d), field, len(n[0].Deviations))
			continue
		}
		bad := false
		sum := 0.0
		for k, x := range d {
			at := fmt.Sprintf("%s.deviations[%d]", f, k)
			switch {
			case math.IsNaN(x) || x <= -1 || x > MaxNoiseDeviation:
				v.errorf(at, "%v: want a relative deviation greater than -1 and at most %d", x, MaxNoiseDeviation)
				bad = true
			case k > 0 && x < d[k-1]:
				v.errorf(at, "%v after %v: the outcomes must be sorted, fastest first", x, d[k-1])
				bad = true
			}
			sum += x
		}
		if mean := sum / float64(len(d)); !bad && math.Abs(mean) > noiseMeanTolerance {
			v.errorf(f+".deviations", "their mean is %.4f: want deviations from the mean, whose mean is 0 (within ±%g)", mean, noiseMeanTolerance)
		}
	}
}

// noiseText is the noise in a machine file.
func noiseText(n Noise) string {
	s := "[\n"
	for i, p := range n {
		s += fmt.Sprintf("    {\"burst\": %s, \"deviations\": [", quote(FormatDuration(p.Burst)))
		for k, d := range p.Deviations {
			if k > 0 {
				s += ", "
			}
			s += strconv.FormatFloat(d, 'g', -1, 64)
		}
		s += "]}" + comma(i, len(n)) + "\n"
	}
	return s + "  ]"
}

// Describe is n in a report: the spread at each burst length.
func (n Noise) Describe() string {
	if len(n) == 0 {
		return "none (bursts of compute take their mean time)"
	}
	s := ""
	for i, p := range n {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("±%.1f %% at %s", 100*p.Spread(), FormatDuration(p.Burst))
	}
	return s + " (standard deviation of a burst's time)"
}
