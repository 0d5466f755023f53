// This file defines the error bound of a prediction: seed-003 §4.4's
// program-level bound carried through the interpretation.

package interp

import (
	"fmt"

	"github.com/predict-tools/predict/trace"
)

// bound returns the ± of a prediction whose busiest rank computes
// compute: the relative bounds of the fragments the run charged,
// weighted by the time it charged each (δ_P = Σ t_i δ_i / Σ t_i), plus
// half the spread of the profile's runs (what the runs' own statistics
// cannot see), applied to that compute. Communication comes from the
// machine model, which has no error bound of its own here.
func (w *World) bound(compute trace.Time) trace.Time {
	var total, weighted float64
	for i, f := range w.frags {
		t := float64(w.hot[i].time)
		total += t
		weighted += t * f.errRel
	}
	rel := 0.0
	if total > 0 {
		rel = weighted / total
	}
	if w.prof != nil {
		rel += w.prof.SpreadRel / 2
	}
	return trace.Time(rel*float64(compute) + 0.5)
}

// BoundText is " ± X (Y %)" for the predicted time, or "" without a
// bound (no profile, or nothing charged).
func (r *Result) BoundText() string {
	if r.Bound <= 0 || r.Time <= 0 {
		return ""
	}
	return fmt.Sprintf(" ± %v (%.1f%%)", r.Bound, 100*float64(r.Bound)/float64(r.Time))
}
