// This file defines the records of replayed values at other np: what an
// opaque decision, a loop whose bound is opaque and an opaque argument of
// a commlib call did at an np other than the profile's own.

package profile

import (
	"fmt"
	"math"
	"sort"
)

// Replay is what one run of the instrumented program at NP recorded of
// the values the interpreter replays: each rank's decisions, the trip
// counts of the loops whose bound is opaque, and the opaque arguments of
// commlib calls. They belong to that run's decomposition of the data
// (at np = 1 a rank owns every vertex of a graph; at np = 2 half of
// them), so the interpreter replays them at that np, and between two
// records follows their trend (Trend).
type Replay struct {
	NP        int             `json:"np"`
	Args      []string        `json:"args,omitempty"` // the program's arguments at NP
	Decisions []DecisionStats `json:"decisions,omitempty"`
	Loops     []LoopTrips     `json:"loops,omitempty"`
	CommArgs  []ArgStats      `json:"comm_args,omitempty"`
}

// LoopTrips are one opaque loop's trip counts per rank (LoopStats.Ranks)
// in a Replay.
type LoopTrips struct {
	Node  string      `json:"node"`
	Ranks []RankTrips `json:"ranks"`
}

// Record is one np's replayed values: the profile's own (its NP) or one
// of its Replays.
type Record struct {
	NP        int
	Decisions map[string]*DecisionStats // by node
	Loops     map[string][]RankTrips    // by node: opaque loops only
	CommArgs  []ArgStats
}

// Records returns the profile's records, its own first, the others by np.
func (p *File) Records() []*Record {
	own := &Record{NP: max(p.NP, 1), Decisions: map[string]*DecisionStats{}, Loops: map[string][]RankTrips{}, CommArgs: p.CommArgs}
	for i := range p.Decisions {
		own.Decisions[p.Decisions[i].Node] = &p.Decisions[i]
	}
	for _, l := range p.Loops {
		if len(l.Ranks) > 0 {
			own.Loops[l.Node] = l.Ranks
		}
	}
	out := []*Record{own}
	for i := range p.Replays {
		r := &p.Replays[i]
		rec := &Record{NP: r.NP, Decisions: map[string]*DecisionStats{}, Loops: map[string][]RankTrips{}, CommArgs: r.CommArgs}
		for k := range r.Decisions {
			rec.Decisions[r.Decisions[k].Node] = &r.Decisions[k]
		}
		for _, l := range r.Loops {
			rec.Loops[l.Node] = l.Ranks
		}
		out = append(out, rec)
	}
	sort.SliceStable(out[1:], func(i, j int) bool { return out[1+i].NP < out[1+j].NP })
	return out
}

// npDistance is how far np is from record r's np, by ratio.
func npDistance(np int, r *Record) float64 { return math.Abs(math.Log(float64(np) / float64(r.NP))) }

// Nearest returns the index of the record whose np is nearest np (by
// ratio; the larger on a tie), and whether it is np's own.
func Nearest(recs []*Record, np int) (int, bool) {
	best, dist := 0, math.Inf(1)
	for i, r := range recs {
		if r.NP == np {
			return i, true
		}
		d := npDistance(np, r)
		if d < dist-1e-12 || (math.Abs(d-dist) <= 1e-12 && r.NP > recs[best].NP) {
			best, dist = i, d
		}
	}
	return best, false
}

// Pair returns the indices of the two records nearest np, by ratio, the
// lower np first: those a trend at np is drawn between. recs holds at
// least two.
func Pair(recs []*Record, np int) [2]int {
	a, b := -1, -1
	for i, r := range recs {
		switch d := npDistance(np, r); {
		case a < 0 || d < npDistance(np, recs[a]):
			a, b = i, a
		case b < 0 || d < npDistance(np, recs[b]):
			b = i
		}
	}
	if recs[a].NP > recs[b].NP {
		a, b = b, a
	}
	return [2]int{a, b}
}

// Trend is how a replayed quantity changes with np, from its values at
// two records: y(np) = Y1·(np/NP1)^K where both are positive (a rank's
// share of the data: K = −1; a count that does not depend on np: K = 0),
// otherwise the straight line through them (a loop over the other ranks:
// 0 at np = 1, 7 at np = 8, 1 at np = 2) — except beyond the second
// record where the first is a zero at np = 1 (zeroAtOne): there it stays
// at the second's value.
type Trend struct {
	NP0, NP1 int
	Y0, Y1   float64
}

// At returns the trend's value at np, never below zero.
func (t Trend) At(np int) float64 {
	if t.NP0 == t.NP1 {
		return t.Y1
	}
	if t.Y0 > 0 && t.Y1 > 0 {
		return t.Y1 * math.Pow(float64(np)/float64(t.NP1), t.K())
	}
	if t.zeroAtOne() && np > t.NP1 {
		return t.Y1
	}
	y := t.Y1 + (t.Y1-t.Y0)*float64(np-t.NP1)/float64(t.NP1-t.NP0)
	return max(y, 0)
}

// zeroAtOne reports whether the trend rises from nothing at np = 1. One
// rank alone has no neighbour to exchange with, so a zero there says only
// that the quantity passes between ranks, not how it grows: the line
// through it would make every rank's share grow as np − 1 and the work of
// all ranks as np² (what particles migrate to a neighbour, the halo a rank
// receives: their totals grow with the boundaries between ranks, np, not
// with the pairs of ranks). A loop whose trips count the other ranks
// themselves has np for bound, which the model computes, not replays.
func (t Trend) zeroAtOne() bool {
	return t.NP0 == 1 && t.Y0 == 0 && t.Y1 > 0 && t.NP1 > t.NP0
}

// K is the power law's exponent (0 where the trend is a straight line).
func (t Trend) K() float64 {
	if t.Y0 > 0 && t.Y1 > 0 && t.NP0 != t.NP1 {
		return math.Log(t.Y1/t.Y0) / math.Log(float64(t.NP1)/float64(t.NP0))
	}
	return 0
}

// String says the trend as a reader checks it.
func (t Trend) String() string {
	if t.Y0 > 0 && t.Y1 > 0 {
		return fmt.Sprintf("∝ np^%.2f between np=%d and %d", t.K(), t.NP0, t.NP1)
	}
	if t.zeroAtOne() {
		return fmt.Sprintf("linear in np between np=1 (0) and %d (%.4g), held beyond np=%d: a zero at np=1, where a rank has no neighbour, gives no trend", t.NP1, t.Y1, t.NP1)
	}
	return fmt.Sprintf("linear in np between np=%d (%.4g) and %d (%.4g)", t.NP0, t.Y0, t.NP1, t.Y1)
}
