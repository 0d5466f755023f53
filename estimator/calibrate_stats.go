// This file defines the statistics of calibration (seed-001 §3.4, §3.5):
// the trimmed mean with its confidence interval, and the stopping rule
// that repeats a measurement until the interval is narrow enough or the
// time budget is spent, refusing when it never is.

package estimator

import (
	"fmt"
	"math"
	"slices"
	"time"

	"gonum.org/v1/gonum/stat/distuv"
)

// Estimate is the statistic of one calibrated quantity: the mean of its
// samples with the lowest and highest Trim of them cut (MPIPerf's g' =
// 25 % at each tail: the interquartile mean), and the confidence interval
// of that mean at Level (trimmedEstimate). Its figures are in the unit of
// the quantity's samples, which the field holding it names: nanoseconds
// for times, bytes per second for bandwidths, ns/B for allocation; the
// JSON names no unit.
type Estimate struct {
	Runs      int     `json:"runs"`   // samples taken
	Kept      int     `json:"kept"`   // samples left after trimming
	Mean      float64 `json:"mean"`   // trimmed mean
	Median    float64 `json:"median"` // of all samples
	Min       float64 `json:"min"`
	Max       float64 `json:"max"`
	StdErr    float64 `json:"stderr"`       // of the trimmed mean (Tukey–McLaughlin)
	HalfWidth float64 `json:"ci_halfwidth"` // t(Level, Kept−1)·StdErr
	Level     float64 `json:"level"`        // confidence level, e.g. 0.95
}

// RelHalfWidth is the half-width of the interval relative to the mean
// (+Inf for a zero mean with a spread, 0 for no spread; not written as
// JSON).
func (e Estimate) RelHalfWidth() float64 {
	if e.HalfWidth == 0 {
		return 0
	}
	if e.Mean == 0 {
		return math.Inf(1)
	}
	return e.HalfWidth / math.Abs(e.Mean)
}

// trimmedEstimate computes the Estimate of xs, cutting g = ⌊n·trim⌋
// samples at each end. The standard error of the trimmed mean is Tukey and
// McLaughlin's: the standard deviation of the winsorized sample (the g
// lowest set to the lowest kept, the g highest to the highest kept) over
// (1 − 2·trim)·√n, and the interval Student's t at Kept − 1 degrees of
// freedom times it (seed-001 §6.6). The standard deviation of the kept
// samples alone over √Kept would be about half that for normal samples:
// an interval that covers the mean far less often than its level says.
// xs is left as it is.
func trimmedEstimate(xs []float64, trim, level float64) Estimate {
	e := Estimate{Runs: len(xs), Level: level}
	if len(xs) == 0 {
		return e
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	e.Min, e.Max = s[0], s[len(s)-1]
	n := len(s)
	if n%2 == 1 {
		e.Median = s[n/2]
	} else {
		e.Median = (s[n/2-1] + s[n/2]) / 2
	}
	cut := int(float64(n) * trim)
	kept := s[cut : n-cut]
	e.Kept = len(kept)
	sum := 0.0
	for _, x := range kept {
		sum += x
	}
	e.Mean = sum / float64(len(kept))
	if len(kept) < 2 {
		// No spread to judge: an interval wider than any mean (and
		// finite, so that it writes as JSON).
		e.HalfWidth, e.StdErr = math.MaxFloat64, math.MaxFloat64
		return e
	}
	// The winsorized sample: kept, and cut copies of each of its ends.
	lo, hi := kept[0], kept[len(kept)-1]
	wsum := sum + float64(cut)*(lo+hi)
	wmean := wsum / float64(n)
	ss := float64(cut) * ((lo-wmean)*(lo-wmean) + (hi-wmean)*(hi-wmean))
	for _, x := range kept {
		ss += (x - wmean) * (x - wmean)
	}
	sw := math.Sqrt(ss / float64(n-1))
	e.StdErr = sw / ((1 - 2*trim) * math.Sqrt(float64(n)))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(len(kept) - 1)}.Quantile(1 - (1-level)/2)
	e.HalfWidth = t * e.StdErr
	return e
}

// StopRule says when a measurement has enough samples: at least Min, then
// as soon as the confidence interval's half-width is within RelCI of the
// mean, and at the latest after Max samples or when Budget is spent. A
// measurement stopped by Max or Budget before its interval converged is
// refused ([NoisyError]).
type StopRule struct {
	Min, Max int
	RelCI    float64       // e.g. 0.02: the interval within ±2 % of the mean
	Budget   time.Duration // for this quantity
	Trim     float64       // cut at each tail, 0.25 (MPIPerf's g')
	Level    float64       // confidence level, 0.95
	Batch    int           // samples asked for at a time
}

// NoisyError is the refusal to calibrate on a machine too noisy for the
// confidence interval of a quantity to converge.
type NoisyError struct {
	What     string
	Estimate Estimate
	Want     float64 // the RelCI asked for
	Spent    time.Duration
}

// Error says which quantity did not converge, how far it got in what
// time, and what to do.
func (e *NoisyError) Error() string {
	return fmt.Sprintf("the machine is too noisy to calibrate: %s: after %d samples in %s the %.0f %% confidence interval of the mean is ±%.1f %% (want ±%.1f %%); "+
		"stop other programs on this machine and run again, or accept a wider interval with --ci",
		e.What, e.Estimate.Runs, e.Spent.Round(time.Millisecond), 100*e.Estimate.Level, 100*e.Estimate.RelHalfWidth(), 100*e.Want)
}

// A sampler takes n more samples of one quantity (in nanoseconds). The
// measurement loop asks it for batches; tests give it a fake source.
type sampler interface {
	sample(n int) ([]float64, error)
}

// samplerFunc adapts a function to a sampler.
type samplerFunc func(n int) ([]float64, error)

func (f samplerFunc) sample(n int) ([]float64, error) { return f(n) }

// measureUntil samples s in batches until rule stops it, and returns the
// estimate and the raw samples. elapsed reports the time spent since the
// measurement began (the real clock, or a fake one in tests).
func measureUntil(what string, s sampler, rule StopRule, elapsed func() time.Duration) (Estimate, []float64, error) {
	var xs []float64
	for {
		n := max(rule.Batch, 1)
		if len(xs) < rule.Min {
			n = max(n, rule.Min-len(xs))
		}
		n = max(min(n, rule.Max-len(xs)), 1)
		batch, err := s.sample(n)
		if err != nil {
			return Estimate{}, xs, fmt.Errorf("%s: %v", what, err)
		}
		xs = append(xs, batch...)
		e := trimmedEstimate(xs, rule.Trim, rule.Level)
		if len(xs) >= rule.Min && e.RelHalfWidth() <= rule.RelCI {
			return e, xs, nil
		}
		if spent := elapsed(); len(xs) >= rule.Max || spent >= rule.Budget {
			return e, xs, &NoisyError{What: what, Estimate: e, Want: rule.RelCI, Spent: spent}
		}
	}
}
