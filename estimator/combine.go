// This file combines the runs of a timing pass into one profile.

package estimator

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/predict-tools/predict/estimator/probe"
	"github.com/predict-tools/predict/profile"
)

// combine makes p, filled from one probed run, the profile of all of
// them (raws, p's own among them) and of the plain runs' compute
// (plainNS, ns). A fragment's mean is the median of its means over the
// runs: the machine's other load strikes a run, not a fragment of every
// run, and the median is the run that neither a slow interruption nor a
// lucky one decides (the minimum of the means, which the issue names,
// picks the run in which the other fragments were slow as often as this
// one was fast; the median is as robust with three runs and unbiased).
// Its spread over the runs widens its error bound: half the spread is a
// bound the runs' own statistics cannot see, and the only one of a
// fragment whose own statistics give none (δ = 1: executed once a run,
// or σ as large as its mean, where seed-003's δ ≤ 3σ/(√N(t̄ − σ)) says
// nothing though the mean of many executions is known well). The plain
// run's compute is the median over the plain runs, as the fragments' are
// over the probed runs: a prediction is of the typical run, the one
// predict validate compares with the median of its own. The minimum read
// the luckiest run, and on a shared machine whose runs spread by 20 % it
// put every prediction 10-20 % under the runs it predicted (stencil's
// profile at np = 2 predicted 0.68× its own plain runs' median). The
// plain runs' spread is (median − least)/least: one run slowed by
// something else does not make the profile doubtful, most runs spread
// do. Then, where regions account for every nanosecond, the fragments are
// scaled to it (scaleToPlain).
// fragKey names a fragment of a profile: a node may have a fragment of
// each kind (a loop and its region).
type fragKey struct {
	node string
	kind profile.FragmentKind
}

func keyOf(f profile.FragmentStats) fragKey { return fragKey{f.Node, f.Kind} }

// perRun fills a profile of p's np and alpha from each raw run alone.
func perRun(p *profile.File, plan *Plan, raws []*probe.Raw) []*profile.File {
	out := make([]*profile.File, len(raws))
	for i, r := range raws {
		out[i] = &profile.File{Alpha: p.Alpha, NP: p.NP}
		fill(out[i], plan, r)
	}
	return out
}

func combine(p *profile.File, plan *Plan, raws []*probe.Raw, plainNS []int64) {
	p.Runs = len(raws) // the probed runs: the plain ones, and the pilot when it ran this program
	if len(plainNS) > 0 {
		p.Runs = len(plainNS)
		lo, mid := slices.Min(plainNS), median(plainNS)
		p.PlainComputePS = mid * 1000
		if lo > 0 {
			p.SpreadRel = float64(mid-lo) / float64(lo)
		}
	}
	if len(raws) > 1 {
		means := map[fragKey][]float64{}
		perIter := map[string][]float64{}
		for _, q := range perRun(p, plan, raws) {
			for _, f := range q.Fragments {
				k := keyOf(f)
				means[k] = append(means[k], float64(f.MeanPS))
			}
			for _, l := range q.Loops {
				perIter[l.Node] = append(perIter[l.Node], float64(l.PerIterPS))
			}
		}
		for i := range p.Fragments {
			f := &p.Fragments[i]
			xs := means[keyOf(*f)]
			if len(xs) < 2 || f.Kind == profile.FragBranch {
				continue
			}
			med := median(xs)
			f.MeanPS = int64(math.Round(med))
			if med > 0 {
				f.SpreadRel = (slices.Max(xs) - slices.Min(xs)) / med
				if f.ErrorRel >= 1 {
					// No bound from the run's own statistics (measured
					// once, or spread as wide as its mean): the means
					// of independent runs are, by their spread.
					f.ErrorRel, f.ErrorPS = 0, 0
				}
				f.ErrorRel = math.Min(1, math.Max(f.ErrorRel, f.SpreadRel/2))
				f.ErrorPS = max(f.ErrorPS, int64(math.Round(f.SpreadRel/2*med)))
			}
		}
		for i := range p.Loops {
			if l := &p.Loops[i]; len(perIter[l.Node]) >= 2 && l.PerIterPS > 0 {
				l.Scale(median(perIter[l.Node]) / float64(l.PerIterPS))
			}
		}
	}
	setTotals(p)
	total := float64(p.MeasuredPS)
	if plan.Regions && p.Clock != profile.ClockThread && p.PlainComputePS > 0 && total > 0 {
		if cov := total / float64(p.PlainComputePS); cov < MinCoverage {
			why := "the rest is time the probes' compensation or their perturbation hid"
			if p.ProbedFaster() {
				// Nothing went unmeasured: the whole probed run was
				// shorter than the plain one (its own warning says by how
				// much), and its fragments with it.
				why = "the run with probes was itself shorter than the run without, so the fragments read fast rather than time went unmeasured"
			}
			p.Warnings = append(p.Warnings, fmt.Sprintf("the fragments and regions measured %.0f%% of the plain run's compute (%v of %v): %s; spread over the fragments by scaling",
				100*cov, time.Duration(total/1000), time.Duration(p.PlainComputePS/1000), why))
		}
		scaleToPlain(p, float64(p.PlainComputePS)/total)
	} else if cov := p.Coverage(); cov > 0 && cov < MinCoverage {
		// By the thread clock (threads or goroutines), fragments and
		// regions against the plain run's CPU time, which holds the
		// runtime's own work (the garbage collector's, commlib's polling)
		// too: not scaled, said.
		if p.Clock == profile.ClockThread {
			p.Warnings = append(p.Warnings, fmt.Sprintf("the fragments and regions account for %.0f%% of the plain run's CPU time: the rest (the runtime's own threads, the garbage collector, commlib's polling, or time the probes' compensation hid) is not in the prediction", 100*cov))
		} else {
			// A plan without regions (an earlier version's).
			p.Warnings = append(p.Warnings, fmt.Sprintf("the fragments (and commlib) account for %.0f%% of the plain run's time: the rest is in no fragment and is not in the prediction", 100*cov))
		}
	}
}

// MinCoverage is the coverage under which a profile warns: the share of
// the plain run that the fragments (before any scaling) measured.
const MinCoverage = 0.95

// rankMedians returns, per rank, the median of the runs' times (ns) in
// ps; nil without runs.
func rankMedians(runs [][]int64) []int64 {
	if len(runs) == 0 {
		return nil
	}
	out := make([]int64, len(runs[0]))
	for r := range out {
		var ts []int64
		for _, run := range runs {
			ts = append(ts, run[r])
		}
		out[r] = median(ts) * 1000
	}
	return out
}
