// This file chooses, for a run at np, the record of replayed values the
// run replays (profile.Record): the timing pass's record at that np when
// it has one, otherwise the nearest, scaled by the trend between two
// records (profile.Trend).
//
//   - A loop whose bound is opaque: its trips per entry follow the trend
//     of their mean over all ranks (a rank's share of N keys: ∝ 1/np;
//     what arrives from the neighbours, none at np = 1: held beyond the
//     second record, profile.Trend).
//   - The exit test of a loop the model iterates: the runs of the outcome
//     that stays in the loop are stretched by the trend of the ratio of
//     staying to leaving outcomes (the loop's trips per entry).
//   - Any other decision: the share of the outcome that falls between
//     the records follows a power law (is the neighbour mine: 1 at np = 1,
//     1/2 at np = 2, 1/np); the replay keeps the recorded sequence and
//     turns the surplus outcomes evenly into the other one.
//
// Opaque commlib arguments are replayed only at an np the timing pass
// recorded (a peer and a length belong to their decomposition); a
// collective's per-peer counts and displacements are spread evenly
// elsewhere (spreadargs.go).

package interp

import (
	"fmt"
	"math"
	"slices"

	"github.com/predict-tools/predict/profile"
)

// recordChoice is a record a run replays, and how it got there: the
// run's (Compiled.rec, which opaque commlib arguments replay) or one
// decision's or loop's (the nearest record that has it).
type recordChoice struct {
	index int  // into Compiled.recs
	np    int  // its np
	exact bool // the run's own np
}

// chooseRecord selects the records of a run at np and sets each replayed
// decision's and loop's values and scaling for it.
func (cp *Compiled) chooseRecord(np int) {
	cp.runNP = np
	if len(cp.recs) == 0 {
		cp.rec = recordChoice{np: cp.profNP, exact: true}
		return
	}
	i, exact := profile.Nearest(cp.recs, np)
	cp.rec = recordChoice{index: i, np: cp.recs[i].NP, exact: exact}
	for _, d := range cp.decisions {
		d.setRecord(cp, np)
	}
	for _, lp := range cp.loops {
		if lp.ranked != nil {
			lp.setRecord(cp, np)
		}
	}
	for _, r := range cp.argReplays {
		r.byRank = r.byRec[i]
		r.setSpread(cp, np)
	}
}

// itemRecord chooses, among the records that have an item (has), the one
// a run at np replays: its own np's, else the nearest; and, when it is
// not np's own, the two nearest np's records that give its trend (trend
// false with fewer than two). ok is false when no record has it.
func (cp *Compiled) itemRecord(np int, has func(i int) bool) (ch recordChoice, pair [2]int, trend, ok bool) {
	var idx []int
	var recs []*profile.Record
	for i, r := range cp.recs {
		if has(i) {
			idx, recs = append(idx, i), append(recs, r)
		}
	}
	if len(idx) == 0 {
		return recordChoice{np: cp.profNP}, pair, false, false
	}
	k, exact := profile.Nearest(recs, np)
	ch = recordChoice{index: idx[k], np: recs[k].NP, exact: exact}
	if !exact && len(idx) >= 2 {
		p := profile.Pair(recs, np)
		pair, trend = [2]int{idx[p[0]], idx[p[1]]}, true
	}
	return ch, pair, trend, true
}

// trendOf is the trend of a quantity q over the pair's records, the
// record to scale from (base), and q there. The base is ch's record, or,
// where q is zero there and not at the other record of the pair, that one
// (nothing scales a sequence of zeros: a loop over the other ranks has no
// trips at np = 1). ok is false where a record lacks q.
func (cp *Compiled) trendOf(ch recordChoice, pair [2]int, q func(rec int) (float64, bool)) (t profile.Trend, base recordChoice, at float64, ok bool) {
	y0, ok0 := q(pair[0])
	y1, ok1 := q(pair[1])
	at, okAt := q(ch.index)
	if !ok0 || !ok1 || !okAt {
		return t, ch, 0, false
	}
	t = profile.Trend{NP0: cp.recs[pair[0]].NP, NP1: cp.recs[pair[1]].NP, Y0: y0, Y1: y1}
	base = ch
	if at == 0 {
		for _, i := range pair {
			if y, _ := q(i); y > 0 {
				base, at = recordChoice{index: i, np: cp.recs[i].NP}, y
				break
			}
		}
	}
	return t, base, at, true
}

// setRecord sets the decision's outcomes for the chosen record, and
// their scaling to np where it is not np's own.
func (d *decision) setRecord(cp *Compiled, np int) {
	d.thin, d.stretch, d.trend = 0, 0, ""
	ch, pair, trend, ok := cp.itemRecord(np, func(i int) bool { return d.byRec[i] != nil })
	d.from, d.byRank = ch, nil
	if !ok {
		return // in no record: its default
	}
	d.byRank = d.byRec[ch.index]
	if !trend || d.stats == nil || d.check {
		return
	}
	counts := func(rec int) (t, f int64, ok bool) {
		for _, ro := range d.byRec[rec] {
			t, f, ok = t+ro.True, f+ro.False, true
		}
		return t, f, ok && t+f > 0
	}
	if d.exit {
		// Trips per entry: staying outcomes per leaving one, each rank
		// entering at least once (a loop left by a return never tests
		// false).
		tr, base, at, ok := cp.trendOf(ch, pair, func(rec int) (float64, bool) {
			t, f, ok := counts(rec)
			stay, leave := t, f
			if !d.stay {
				stay, leave = f, t
			}
			return float64(stay) / float64(max(leave, int64(len(d.byRec[rec])))), ok
		})
		if ok && at > 0 {
			d.from, d.byRank = base, d.byRec[base.index]
			d.stretch = tr.At(np) / at
			d.trend = fmt.Sprintf("the loop's trips per entry scaled by %.4g to np=%d (%s)", d.stretch, np, tr)
		}
		return
	}
	share := func(rec int) (float64, bool) {
		t, f, ok := counts(rec)
		return float64(t) / float64(t+f), ok
	}
	tr, _, _, ok := cp.trendOf(ch, pair, share)
	if !ok {
		return
	}
	at, _ := share(ch.index) // thinning scales a share of zero too
	// The outcome whose share falls with np follows the power law; the
	// other is what is left of it.
	what := "true"
	if tr.Y1 > tr.Y0 {
		tr.Y0, tr.Y1, at, what = 1-tr.Y0, 1-tr.Y1, 1-at, "false"
	}
	want := min(tr.At(np), 1)
	if want == at {
		return
	}
	// The falling outcome's share goes from at to want: where it falls,
	// that outcome is thinned; where it rises, the other one is.
	d.thinTrue = (want < at) == (what == "true")
	if want < at {
		d.thin = want / at
	} else {
		d.thin = (1 - want) / (1 - at)
	}
	d.trend = fmt.Sprintf("the share of %s scaled from %.4g to %.4g at np=%d (%s)", what, at, want, np, tr)
}

// setRecord sets the loop's trips for the chosen record, and their
// scaling to np where it is not np's own.
func (lp *loopPlan) setRecord(cp *Compiled, np int) {
	lp.scale, lp.trend = 1, ""
	ch, pair, trend, ok := cp.itemRecord(np, func(i int) bool { return lp.byRec[i] != nil })
	if !ok {
		lp.from, lp.byRank, lp.meanTrips = ch, nil, lp.meanRec[0]
		return
	}
	lp.from, lp.byRank, lp.meanTrips = ch, lp.byRec[ch.index], lp.meanRec[ch.index]
	if !trend {
		return
	}
	tr, base, at, ok := cp.trendOf(ch, pair, func(rec int) (float64, bool) {
		return meanTripsOf(lp.byRec[rec]), lp.byRec[rec] != nil
	})
	if ok && at > 0 {
		lp.from, lp.byRank = base, lp.byRec[base.index]
		lp.scale = tr.At(np) / at
		lp.meanTrips = int64(math.Round(at * lp.scale))
		lp.trend = fmt.Sprintf("scaled by %.4g to np=%d (trips per entry %s)", lp.scale, np, tr)
	}
}

// rankMap indexes a record's entries (one per rank) by their rank.
func rankMap[T any](xs []T, rank func(*T) int) map[int]*T {
	m := make(map[int]*T, len(xs))
	for i := range xs {
		m[rank(&xs[i])] = &xs[i]
	}
	return m
}

// meanTripsOf is the mean trips per entry over every rank's record.
func meanTripsOf(ranks map[int]*profile.RankTrips) float64 {
	var trips, entries float64
	for _, r := range ranks {
		for _, run := range r.Runs {
			trips += float64(run[0]) * float64(run[1])
			entries += float64(run[1])
		}
	}
	if entries == 0 {
		return 0
	}
	return trips / entries
}

// scaled returns n scaled by f, carrying the fraction to the next.
func scaled(n int64, f float64, carry *float64) int64 {
	if f == 1 {
		return n
	}
	x := float64(n)*f + *carry
	k := math.Floor(x)
	*carry = x - k
	return int64(k)
}

// recSource says where values replayed from record ch come from.
func (w *World) recSource(ch recordChoice) string {
	if w.prof == nil {
		return "(no profile)"
	}
	s := fmt.Sprintf("from the profile at np=%d", ch.np)
	if ch.index > 0 {
		s = fmt.Sprintf("from the profile's record at np=%d (the timing pass's run recording them there)", ch.np)
	}
	if len(w.procs) > ch.np {
		s += fmt.Sprintf(", reused for ranks %d..%d", ch.np, len(w.procs)-1)
	}
	return s
}

// recNPs lists the np of the records, as "1 and 2".
func (w *World) recNPs() string {
	var s string
	recs := slices.SortedFunc(slices.Values(w.recs), func(a, b *profile.Record) int { return a.NP - b.NP })
	for i, r := range recs {
		switch {
		case i == 0:
		case i == len(recs)-1:
			s += " and "
		default:
			s += ", "
		}
		s += fmt.Sprint(r.NP)
	}
	return s
}

func (d *decision) trendNote() string {
	if d.trend == "" {
		return ""
	}
	return ", " + d.trend
}

func (lp *loopPlan) trendNote() string {
	if lp.trend == "" {
		return ""
	}
	return ", " + lp.trend
}
