package estimator

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func TestTrimmedEstimate(t *testing.T) {
	e := trimmedEstimate([]float64{8, 1, 7, 2, 6, 3, 5, 4}, 0.25, 0.95)
	// Kept: 3, 4, 5, 6; winsorized: 3, 3, 3, 4, 5, 6, 6, 6, s_w = √2;
	// SE = √2 / (0.5·√8) = 1; t(0.975, 3) = 3.1824.
	if e.Runs != 8 || e.Kept != 4 || e.Mean != 4.5 || e.Median != 4.5 || e.Min != 1 || e.Max != 8 {
		t.Errorf("%+v", e)
	}
	if math.Abs(e.StdErr-1) > 1e-12 || math.Abs(e.HalfWidth-3.1824) > 0.001 {
		t.Errorf("standard error %g, half-width %g, want 1 and 3.182", e.StdErr, e.HalfWidth)
	}
	// One outlier in ten is trimmed away.
	xs := []float64{100, 101, 99, 100, 100, 101, 99, 100, 100, 5000}
	if e := trimmedEstimate(xs, 0.25, 0.95); e.Mean < 99 || e.Mean > 101 {
		t.Errorf("an outlier moved the trimmed mean: %+v", e)
	}
}

// fakeClock is a clock that a fake source advances by what each sample
// would have taken.
type fakeClock struct{ now time.Duration }

func (c *fakeClock) elapsed() time.Duration { return c.now }

// noisySource samples mean·(1 + noise·u) with u uniform in [−1, 1), plus
// a spike of spike·mean with probability spikes; each sample advances the
// clock by its own value.
func noisySource(clock *fakeClock, rng *rand.Rand, mean, noise, spikes, spike float64) sampler {
	return samplerFunc(func(n int) ([]float64, error) {
		out := make([]float64, n)
		for i := range out {
			x := mean * (1 + noise*(2*rng.Float64()-1))
			if rng.Float64() < spikes {
				x += spike * mean
			}
			out[i] = x
			clock.now += time.Duration(x)
		}
		return out, nil
	})
}

func TestStopRule(t *testing.T) {
	rule := StopRule{Min: 10, Max: 5000, RelCI: 0.01, Budget: time.Second, Trim: 0.25, Level: 0.95, Batch: 10}

	// Quiet: stops as soon as the interval is within 1 %, long before Max.
	clock := &fakeClock{}
	e, xs, err := measureUntil("quiet", noisySource(clock, rand.New(rand.NewPCG(1, 1)), 1000, 0.05, 0, 0), rule, clock.elapsed)
	if err != nil || e.RelHalfWidth() > 0.01 || len(xs) >= 200 || math.Abs(e.Mean-1000) > 10 {
		t.Errorf("quiet: %v, %d samples, %+v", err, len(xs), e)
	}

	// Spikes (a preempted sample in five, ten times the mean) are cut by
	// the trim: the estimate stays near the true mean.
	clock = &fakeClock{}
	e, _, err = measureUntil("spiky", noisySource(clock, rand.New(rand.NewPCG(2, 2)), 1000, 0.05, 0.2, 10), rule, clock.elapsed)
	if err != nil || math.Abs(e.Mean-1000) > 20 {
		t.Errorf("spiky: %v, %+v", err, e)
	}

	// Too noisy to converge within the budget: refused, saying what and why.
	clock = &fakeClock{}
	rule.Budget = 200 * time.Microsecond
	_, xs, err = measureUntil("ping-pong 1 B", noisySource(clock, rand.New(rand.NewPCG(3, 3)), 1000, 0.9, 0.4, 20), rule, clock.elapsed)
	var noisy *NoisyError
	if !errors.As(err, &noisy) || !strings.Contains(err.Error(), "too noisy to calibrate: ping-pong 1 B") ||
		!strings.Contains(err.Error(), "want ±1.0 %") || clock.now < rule.Budget || clock.now > 2*rule.Budget {
		t.Errorf("noisy: %v after %d samples, %s of fake time", err, len(xs), clock.now)
	}

	// Max samples ends it too.
	clock = &fakeClock{}
	rule.Budget, rule.Max = time.Hour, 40
	_, xs, err = measureUntil("capped", noisySource(clock, rand.New(rand.NewPCG(4, 4)), 1000, 0.9, 0, 0), rule, clock.elapsed)
	if !errors.As(err, &noisy) || len(xs) != 40 {
		t.Errorf("capped: %v after %d samples", err, len(xs))
	}

	// The source's failure is the measurement's.
	_, _, err = measureUntil("broken", samplerFunc(func(int) ([]float64, error) { return nil, errors.New("rank 1 died") }), rule, clock.elapsed)
	if err == nil || err.Error() != "broken: rank 1 died" {
		t.Errorf("broken: %v", err)
	}
}

// TestTrimmedCoverage: the 95 % interval of the 25 %-trimmed mean of
// normal samples covers the true mean 93–97 % of the time (seeded).
func TestTrimmedCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 21))
	for _, n := range []int{20, 40, 101} {
		const trials = 2000
		covered := 0
		xs := make([]float64, n)
		for range trials {
			for i := range xs {
				xs[i] = 10 + 3*rng.NormFloat64()
			}
			if e := trimmedEstimate(xs, 0.25, 0.95); math.Abs(e.Mean-10) <= e.HalfWidth {
				covered++
			}
		}
		t.Logf("n = %d: covered %d of %d", n, covered, trials)
		if p := float64(covered) / trials; p < 0.93 || p > 0.97 {
			t.Errorf("n = %d: the 95 %% interval covered the mean in %.1f %% of %d trials", n, 100*p, trials)
		}
	}
}
