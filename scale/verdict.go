// This file defines the one-line verdict of an analysis and the
// decomposition of lost time it rests on.

package scale

import (
	"fmt"
	"strings"

	"github.com/predict-tools/predict/trace"
)

// A loss is a part of the time lost at one process count, relative to the
// baseline: machine time (time × np, all ranks together) beyond what the
// baseline run took: BaselineNP·Baseline in strong scaling, np·Baseline in
// weak scaling (every rank has the baseline's work). For perfect scaling
// every part is 0; they add up to np·Time minus that.
type loss struct {
	what   string  // what the time went to, for the verdict
	amount float64 // picoseconds of machine time
}

// losses decomposes the lost machine time at p into computation,
// communication, waiting, and imbalance (ranks idle after they finish
// before the slowest one), in that order.
func losses(p, base Point, weak bool) []loss {
	np, bnp := float64(p.NP), float64(base.NP)
	computation := "computation that does not shrink with np"
	if weak {
		bnp = np
		computation = "computation that grows with np"
	}
	part := func(at, bt trace.Time) float64 { return np*float64(at) - bnp*float64(bt) }
	return []loss{
		{computation, part(p.Compute, base.Compute)},
		{"communication", part(p.Comm, base.Comm)},
		{"waiting for other ranks", part(p.Wait, base.Wait)},
		{"waiting for a core (more ranks than cores on a node)", part(p.CoreWait, base.CoreWait)},
		{"imbalance (ranks idle after they finish)", part(p.idle(), base.idle())},
	}
}

// mainLoss returns the largest part of the lost time at p, or "" when no
// time is lost.
func mainLoss(p, base Point, weak bool) string {
	var best loss
	for _, l := range losses(p, base, weak) {
		if l.amount > best.amount {
			best = l
		}
	}
	return best.what
}

// verdict says in one line how far the analysed sweep scales and what
// limits it. Every word comes from the figures: the process count where
// the efficiency falls below one half, the peak of the speedup, the
// largest part of the time lost at the largest np, and the node whose
// share grows fastest.
func verdict(a *Analysis, base Point) string {
	rows := a.Rows
	last := rows[len(rows)-1]
	if last.NP <= a.BaselineNP {
		return strings.Join(append([]string{fmt.Sprintf("no prediction above the baseline np=%d: nothing to say about scaling", a.BaselineNP)},
			failedPart(a.Failed)...), "; ")
	}
	// The last process count above the baseline that still scales.
	var limit *Row
	for i := range rows {
		r := &rows[i]
		if a.HalfEfficiencyNP != 0 && r.NP >= a.HalfEfficiencyNP {
			break
		}
		if r.NP > a.BaselineNP {
			limit = r
		}
	}
	var parts []string
	switch {
	case limit == nil && a.Weak():
		first := firstAbove(rows, a.BaselineNP)
		parts = append(parts, fmt.Sprintf("weak scaling breaks down at once: the time at np=%d is %.2f× the baseline's (efficiency %.2f)",
			first.NP, 1/first.Efficiency, first.Efficiency))
	case limit == nil:
		first := firstAbove(rows, a.BaselineNP)
		parts = append(parts, fmt.Sprintf("does not scale: efficiency %.2f already at np=%d", first.Efficiency, first.NP))
	case a.Weak() && a.HalfEfficiencyNP == 0:
		parts = append(parts, fmt.Sprintf("weak-scales to np=%d (efficiency T(%d)/T(np) %.2f) across the whole sweep", limit.NP, a.BaselineNP, limit.Efficiency))
	case a.Weak():
		parts = append(parts, fmt.Sprintf("weak-scales to np=%d (efficiency T(%d)/T(np) %.2f)", limit.NP, a.BaselineNP, limit.Efficiency))
	case a.HalfEfficiencyNP == 0:
		parts = append(parts, fmt.Sprintf("scales to np=%d (efficiency %.2f) across the whole sweep", limit.NP, limit.Efficiency))
	default:
		parts = append(parts, fmt.Sprintf("scales to np=%d (efficiency %.2f)", limit.NP, limit.Efficiency))
	}
	if a.BaselineNP < a.PeakNP && a.PeakNP < last.NP {
		what := "speedup"
		if a.Weak() {
			what = "scaled speedup"
		}
		parts = append(parts, fmt.Sprintf("%s peaks at np=%d (%.3g×)", what, a.PeakNP, a.PeakSpeedup))
	}

	lastPoint := Point{NP: last.NP, Time: last.Time, Compute: last.Compute, Comm: last.Comm, Wait: last.Wait, CoreWait: last.CoreWait}
	cause := mainLoss(lastPoint, base, a.Weak())
	if cause != "" && last.Efficiency < 1 {
		var b strings.Builder
		switch {
		case a.HalfEfficiencyNP == 0:
			fmt.Fprintf(&b, "the time lost at np=%d goes mostly to %s", last.NP, cause)
		case limit == nil:
			fmt.Fprintf(&b, "%s dominates the time lost", cause)
		default:
			fmt.Fprintf(&b, "beyond np=%d, %s dominates the time lost", limit.NP, cause)
		}
		if g := a.Growing; g != nil {
			where := g.Node.Pos
			if where == "" {
				where = g.Node.ID
			}
			fmt.Fprintf(&b, "; fastest-growing share at %s (%.1f%% → %.1f%%)", where, 100*g.FirstShare, 100*g.LastShare)
		}
		parts = append(parts, b.String())
	}
	return strings.Join(append(parts, failedPart(a.Failed)...), "; ")
}

// failedPart is the part of the verdict that names the process counts
// that failed, if any.
func failedPart(failed []Failure) []string {
	if len(failed) == 0 {
		return nil
	}
	nps := make([]string, len(failed))
	for i, f := range failed {
		nps[i] = fmt.Sprint(f.NP)
	}
	return []string{fmt.Sprintf("no prediction at np=%s (failed, see above)", strings.Join(nps, ", "))}
}

// firstAbove returns the first row above the baseline np (rows are sorted
// and one of them is above it).
func firstAbove(rows []Row, baseNP int) Row {
	for _, r := range rows {
		if r.NP > baseNP {
			return r
		}
	}
	return rows[0]
}
