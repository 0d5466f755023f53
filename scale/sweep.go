// This file defines the sweep: the process counts of a range and the
// baseline predicted, what failures mean for the sweep, and the analysis
// of the points.

package scale

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/predict-tools/predict/trace"
)

// SweepOptions say what a sweep predicts and how.
type SweepOptions struct {
	// NPs are the process counts of the range: each gets a row, or a
	// Failure when its prediction fails.
	NPs []int
	// Baseline is the process count speedups are relative to, 1 when
	// 0. It is predicted even when it is not one of NPs (it then gets
	// no row).
	Baseline int
	// Weak says that the program's arguments grow with np (Options.Weak).
	Weak bool
	// Workers is how many predictions run at once (GOMAXPROCS when ≤ 0).
	Workers int
	// Progress, when not nil, is told how the sweep goes.
	Progress Progress
}

// Sweep predicts one run per process count of o.NPs and of the baseline
// with predict (in parallel, largest np first: predictAll) and analyses
// the points ([Analyze]); the Analysis's Limits are those of every
// prediction, sorted. Name, Machine, Profile and Args are the caller's to
// fill.
//
// A process count whose prediction fails is one of the Analysis's Failed
// (when it is one of o.NPs) and the others are finished. It is an error
// when every process count of o.NPs failed (the error lists why, per np),
// when the baseline failed (speedups are relative to it), and for the
// errors of predictAll: a process count below 1, ctx done.
func Sweep(ctx context.Context, o SweepOptions, predict PredictFunc) (Analysis, error) {
	baseline := o.Baseline
	if baseline == 0 {
		baseline = 1
	}
	all := append(slices.Clone(o.NPs), baseline)
	slices.Sort(all)
	all = slices.Compact(all)
	points, failed, err := predictAll(ctx, all, o.Workers, predict, o.Progress)
	if err != nil {
		return Analysis{}, err
	}
	if err := sweepFailed(o.NPs, baseline, points, failed); err != nil {
		return Analysis{}, err
	}
	var baseTime trace.Time
	var shown []Point
	limits := map[string]bool{}
	for _, p := range points {
		if p.NP == baseline {
			baseTime = p.Time
		}
		if slices.Contains(o.NPs, p.NP) {
			shown = append(shown, p)
		}
		for _, l := range p.Limits {
			limits[l] = true
		}
	}
	failed = slices.DeleteFunc(failed, func(f Failure) bool { return !slices.Contains(o.NPs, f.NP) })
	a, err := Analyze(shown, failed, Options{BaselineNP: baseline, BaselineTime: baseTime, Weak: o.Weak})
	if err != nil {
		return Analysis{}, err
	}
	a.Limits = append([]string{}, slices.Sorted(maps.Keys(limits))...)
	return a, nil
}

// sweepFailed returns the error of a sweep that has nothing to show:
// every process count of the range failed, or the baseline did (speedups
// are relative to it). A sweep where only some process counts failed is
// not an error: the table reports them.
func sweepFailed(nps []int, baseline int, points []Point, failed []Failure) error {
	var shown int
	for _, p := range points {
		if slices.Contains(nps, p.NP) {
			shown++
		}
	}
	var b strings.Builder
	for _, f := range failed {
		if f.NP == baseline && shown > 0 {
			return fmt.Errorf("the baseline np=%d failed (speedups are relative to it; --baseline picks another): %s", f.NP, f.Error)
		}
		fmt.Fprintf(&b, "\n  np=%d: %s", f.NP, f.Error)
	}
	if shown == 0 {
		return fmt.Errorf("the prediction failed at every np:%s", b.String())
	}
	return nil
}
