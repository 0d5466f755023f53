// This file defines the machine's drift: how much faster or slower the
// machine ran the program during a validation than during the timing pass
// whose profile the predictions use.

package validate

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/predict-tools/predict/profile"
	"github.com/predict-tools/predict/trace"
)

// A prediction is the timing pass's measurement carried to other np; a
// real run is measured later. On a shared machine the two can be minutes
// and 20 % apart: the same program, at the same np, runs that much slower
// or faster (other tenants, the memory's state, the clock). That is not
// the model's error, and it must not read as one. The timing pass keeps
// every plain run's span (profile.File.PlainSpansPS); the validation runs
// the same program at the profile's np and arguments among its own runs
// and sets the two against each other. The ratio of their medians is the
// drift; the error at the timing pass's speed is the error with the
// measured times divided by it.

// Drift is the machine's speed during the real runs against the timing
// pass's, measured on the program itself at the profile's np.
type Drift struct {
	NP int `json:"np"`
	// Profiled are the timing pass's plain runs; Now this validation's
	// runs at the same np and arguments.
	Profiled     Spread `json:"profiled"`
	ProfiledRuns int    `json:"profiled_runs"`
	Now          Spread `json:"now"`
	NowRuns      int    `json:"now_runs"`
	// Ratio is Now.Median over Profiled.Median: above 1, the machine runs
	// the program slower now.
	Ratio float64 `json:"ratio"`
	// Beyond: the medians differ by more than DriftTolerance and one
	// set's median lies outside the other's range (min to max): the
	// drift is the machine's, not the runs' noise.
	Beyond bool `json:"beyond_noise"`
	// ProfiledAt is when the profile was written (its Created).
	ProfiledAt string `json:"profiled_at,omitempty"`
}

// DriftTolerance is the drift under which the machine is taken as
// unchanged (the run clock's own reproducibility on a quiet machine).
const DriftTolerance = 0.03

// driftRef says at which np and arguments the validation can measure the
// drift of profile p, or why it cannot (a non-empty reason).
func driftRef(p *profile.File, args func(int) []string) (np int, why string) {
	np = max(p.NP, 1)
	switch {
	case len(p.PlainSpansPS) == 0:
		return 0, "the profile keeps no plain runs' spans (written by an older predict, or elsewhere): measure it again (--no-cache) to tell the machine's drift from the model's error"
	case p.Host != profile.ThisHost():
		return 0, fmt.Sprintf("the profile was measured on %s, not here (%s): the real runs cannot be set against it", p.Host, profile.ThisHost())
	case !slices.Equal(normArgs(args(np)), normArgs(p.Args)):
		return 0, fmt.Sprintf("the profile was measured with arguments %q, these runs use %q at np=%d", p.Args, args(np), np)
	}
	return np, ""
}

func normArgs(a []string) []string {
	if len(a) == 0 {
		return nil
	}
	return a
}

// driftOf sets the runs' spans (at the profile's np) against p's plain runs.
func driftOf(p *profile.File, spans []trace.Time) *Drift {
	return driftFrom(max(p.NP, 1), p.PlainSpansPS, p.Created, spreadOf(spans), len(spans))
}

// driftFrom sets the spread of nowRuns runs against plain runs' spans
// (ps) at np.
func driftFrom(np int, plainPS []int64, created string, now Spread, nowRuns int) *Drift {
	prof := make([]trace.Time, len(plainPS))
	for i, s := range plainPS {
		prof[i] = trace.Time(s)
	}
	d := &Drift{NP: np, Profiled: spreadOf(prof), ProfiledRuns: len(prof), Now: now, NowRuns: nowRuns, ProfiledAt: created}
	if d.Profiled.Median > 0 {
		d.Ratio = float64(d.Now.Median) / float64(d.Profiled.Median)
	}
	outside := func(t trace.Time, s Spread) bool { return t < s.Min || t > s.Max }
	apart := outside(d.Profiled.Median, d.Now) || outside(d.Now.Median, d.Profiled)
	d.Beyond = apart && math.Abs(d.Ratio-1) > DriftTolerance
	return d
}

// Pooled is d set against the plain runs of several timing passes
// (plainPS, every one's spans): the drift of a prediction that is their
// median.
func (d *Drift) Pooled(plainPS []int64) *Drift {
	return driftFrom(d.NP, plainPS, d.ProfiledAt, d.Now, d.NowRuns)
}

// ErrorAt is the error of predicted against the measured median at the
// timing passes' speed: the measured time divided by the drift.
func (d *Drift) ErrorAt(predicted, measured trace.Time) float64 {
	return float64(predicted)*d.Ratio/float64(measured) - 1
}

// Adjust sets pt's error at the timing pass's speed (nothing for a nil
// drift).
func (d *Drift) Adjust(pt *Point) {
	if d == nil || d.Ratio <= 0 || pt.Predicted <= 0 || pt.Measured.Median <= 0 {
		return
	}
	e := d.ErrorAt(pt.Predicted, pt.Measured.Median)
	pt.ErrorAtProfileSpeed = &e
}

// text says what the drift is, in a line.
func (d *Drift) text() string {
	when := ""
	if t, err := time.Parse(time.RFC3339, d.ProfiledAt); err == nil {
		when = " of " + t.UTC().Format("15:04 UTC")
	}
	same := fmt.Sprintf("the program at np=%d ran %.2f× the time of the timing pass%s (medians: %v now over %d runs, %v then over %d)",
		d.NP, d.Ratio, when, d.Now.Median, d.NowRuns, d.Profiled.Median, d.ProfiledRuns)
	if !d.Beyond {
		return "Machine drift: none beyond the runs' noise: " + same
	}
	way := "slower"
	if d.Ratio < 1 {
		way = "faster"
	}
	return fmt.Sprintf("WARNING: the machine ran %.0f%% %s than during the timing pass: %s. Errors of that size are the machine's, not the model's; \"at profile speed\" is the error with the real runs divided by %.2f",
		100*math.Abs(d.Ratio-1), way, same, d.Ratio)
}
