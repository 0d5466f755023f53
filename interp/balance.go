// This file defines the check of the ranks' balance at the profile's np:
// the model's ranks' compute against the timing pass's plain runs', rank
// by rank, so that work that differs between ranks where the model
// charges them alike is said, never silently averaged.

package interp

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/profile"
)

// balanceGap is the largest difference, in shares of the ranks' mean
// compute, between a rank's share in the model and in the plain runs at
// the profile's np that goes unsaid. The plain runs of a rank at np = 2
// on 2 cores move by a few percent of the mean (descheduling counts as
// compute there); a gap of a fifth of the mean is work the model puts on
// the wrong rank.
const balanceGap = 0.2

// balance is the check's text, computed once per profile.
type balance struct {
	once sync.Once
	text string
}

// balanceOf runs the model at the profile's np and arguments and compares
// each rank's compute with the profile's plain runs'
// (profile.File.PlainRankComputePS): "" when they agree, when the
// profile has no per-rank record (or one of threads or goroutines, by the
// thread clock), or when the run fails (the prediction's own run reports
// that).
func (prog *Program) balanceOf(prof *profile.File, mach *machine.Machine, units map[string]unitTime) string {
	if prof == nil || prof.NP < 2 || len(prof.PlainRankComputePS) != prof.NP || prof.Clock == profile.ClockThread || slices.Min(prof.PlainRankComputePS) <= 0 {
		// A rank of threads or goroutines times its commlib calls on
		// each of them: they may add up past its span, and its compute
		// is not its share of the work.
		return ""
	}
	b := entryFor(&prog.perProfMu, &prog.balances, prof)
	b.once.Do(func() {
		// The mean charges, as the plain runs' medians.
		w, err := prog.run(Config{NP: prof.NP, Machine: meanMachine(mach), Profile: prof, Args: prof.Args, RankDetail: -1}, units, false)
		if err != nil {
			return
		}
		model := make([]int64, prof.NP)
		for _, p := range w.procs {
			if p.rank >= 0 && p.rank < prof.NP {
				model[p.rank] = p.compute
			}
		}
		b.text = balanceText(prof.NP, model, prof.PlainRankComputePS)
	})
	return b.text
}

// balanceText compares the model's compute per rank with the plain runs'
// (both in ps) at np: the rank whose share of the ranks' mean differs most
// between the two, said when by more than balanceGap.
func balanceText(np int, model, real []int64) string {
	mMean, rMean := mean(model), mean(real)
	if mMean <= 0 || rMean <= 0 {
		return ""
	}
	worst, gap := -1, 0.0
	for r := range real {
		d := float64(model[r])/mMean - float64(real[r])/rMean
		if d < 0 {
			d = -d
		}
		if d > gap {
			worst, gap = r, d
		}
	}
	if gap <= balanceGap {
		return ""
	}
	span := func(ts []int64) string {
		lo, hi := ts[0], ts[0]
		for _, t := range ts {
			lo, hi = min(lo, t), max(hi, t)
		}
		return fmt.Sprintf("%v to %v", time.Duration(lo/1000), time.Duration(hi/1000))
	}
	return fmt.Sprintf("at the profile's np=%d the model's ranks compute %s where the timing pass's plain runs computed %s: rank %d does %.0f%% of the ranks' mean work in the model and %.0f%% in the program; work that differs between the ranks where the model charges them alike (a loop timed whole is charged every rank the ranks' mean time of an iteration) is not in the prediction, at this np or any other",
		np, span(model), span(real), worst, 100*float64(model[worst])/mMean, 100*float64(real[worst])/rMean)
}

// mean is the mean of ts, 0 for none.
func mean(ts []int64) float64 {
	if len(ts) == 0 {
		return 0
	}
	var s float64
	for _, t := range ts {
		s += float64(t)
	}
	return s / float64(len(ts))
}
