// This file defines the decomposition of each rank's time into useful time
// and the starvation, latency and overhead of its communication calls
// (seed-002 §5.3), and the POP factors.

package patterns

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"

	"github.com/predict-tools/predict/trace"
)

// gap is a maximal run of overlapping communication calls of a rank's main
// thread: seed-002's idle interval between two compute blocks.
type gap struct {
	rank      int
	lo, hi    trace.Time
	calls     []*trace.Event
	overhead  intervals // OvhSI: measured plus propagated overhead
	processed bool
}

// dependency is something a gap waits for: produced (sent, posted,
// entered) by rank at prod, on the wire from inj, arrived at arr.
type dependency struct {
	rank           int
	prod, inj, arr trace.Time
}

// isCommunication reports whether op event e is a communication call (not a
// thread primitive).
func isCommunication(e *trace.Event) bool { return e.Kind == trace.KindOp && !threadOps[e.Op] }

// gaps returns the gaps of every rank's main thread, by rank and time.
func (x *index) gaps() [][]*gap {
	out := make([][]*gap, x.np)
	for r := range x.np {
		var cur *gap
		for _, e := range x.threads[threadKey{r, 0}] {
			if !isCommunication(e) {
				continue
			}
			if cur != nil && e.Enter < cur.hi || cur != nil && e.Enter == cur.lo && e.Enter == cur.hi {
				cur.hi = max(cur.hi, e.Exit)
				cur.calls = append(cur.calls, e)
				continue
			}
			cur = &gap{rank: r, lo: e.Enter, hi: e.Exit, calls: []*trace.Event{e}}
			out[r] = append(out[r], cur)
		}
	}
	return out
}

// dependencies returns what the calls of g wait for, and whether one of
// them is a collective of p participants and b bytes (whose data movement
// follows the last dependency).
func (x *index) dependencies(g *gap, cos map[int64]*collective, opts Options) (deps []dependency, collP int, collBytes int64) {
	message := func(s, post *trace.Event) dependency {
		d := dependency{rank: s.Rank, prod: s.Enter, inj: s.Exit}
		if blocksSender(protocol(s, opts.EagerLimit)) && post != nil {
			d.inj = max(s.Enter, post.Enter)
		}
		d.arr = d.inj + opts.transfer(s.Bytes)
		return d
	}
	receive := func(r *trace.Event) {
		if s := x.sends[r.Message]; s != nil {
			deps = append(deps, message(s, x.receivePost(r)))
		}
	}
	send := func(s *trace.Event) {
		if !blocksSender(protocol(s, opts.EagerLimit)) {
			return
		}
		r := x.recvs[s.Message]
		if r == nil {
			return
		}
		if post := x.receivePost(r); post != nil {
			inj := max(s.Enter, post.Enter)
			deps = append(deps, dependency{rank: post.Rank, prod: post.Enter, inj: inj, arr: inj + opts.transfer(s.Bytes)})
		}
	}
	for _, e := range g.calls {
		switch {
		case e.Collective != 0:
			co := cos[e.Collective]
			if co == nil {
				continue
			}
			// Only the last producer matters: one dependency per call.
			var from *trace.Event
			switch co.kind {
			case collOneToN:
				if e != co.root {
					from = co.root
				}
			case collNToOne:
				if e == co.root {
					from = co.last
				}
			case collScan:
				i, _ := slices.BinarySearchFunc(co.calls, e.Rank, func(c *trace.Event, r int) int { return cmp.Compare(c.Rank, r) })
				from = co.scanLast()[i]
			default:
				from = co.last
			}
			if from != nil {
				deps = append(deps, dependency{rank: from.Rank, prod: from.Enter, inj: from.Enter, arr: from.Enter})
			}
			collP, collBytes = max(collP, len(co.calls)), max(collBytes, e.Bytes)
		case e.Op == "Recv" || e.Op == "Sendrecv" && !isSend(e):
			receive(e)
		case isSend(e) && !nonblockingSends[e.Op]:
			send(e)
		case waitOps[e.Op]:
			for _, c := range x.completed[e] {
				switch {
				case isSendOpName(c.Op):
					if s := x.sends[c.Message]; s != nil {
						send(s)
					}
				case c.Message != 0:
					receive(c)
				}
			}
		}
	}
	return deps, collP, collBytes
}

// decompose splits the communication time of every rank and returns the
// per-rank times.
func (x *index) decompose(cos []*collective, opts Options) []RankTime {
	byID := make(map[int64]*collective, len(cos))
	for _, co := range cos {
		byID[co.id] = co
	}
	perRank := x.gaps()
	var all []*gap
	for _, gs := range perRank {
		all = append(all, gs...)
	}
	slices.SortStableFunc(all, func(a, b *gap) int {
		return cmp.Or(cmp.Compare(a.hi, b.hi), cmp.Compare(a.rank, b.rank), cmp.Compare(a.lo, b.lo))
	})
	times := make([]RankTime, x.np)
	for r := range times {
		times[r].Rank = r
	}
	for _, g := range all {
		w := interval{g.lo, g.hi}
		deps, collP, collBytes := x.dependencies(g, byID, opts)
		// Starvation: until the last dependency is produced.
		s2, late := g.lo, -1
		for _, d := range deps {
			if d.prod > s2 {
				s2, late = d.prod, d.rank
			}
		}
		s2 = min(s2, g.hi)
		starve := interval{g.lo, s2}
		// Latency: the last arrival, from its injection, after s2.
		var lat interval
		inj, arr := s2, s2
		for _, d := range deps {
			if d.arr > arr {
				inj, arr = d.inj, d.arr
			}
		}
		if collP > 1 {
			steps := trace.Time(bits.Len(uint(collP - 1))) // ⌈log₂ p⌉ steps of a tree
			if a := s2 + steps*opts.transfer(collBytes); a > arr {
				inj, arr = s2, a
			}
		}
		if l2 := min(max(arr, s2), g.hi); l2 > s2 {
			lat = interval{min(max(inj, s2), l2), l2}
		}
		// Overhead the late partner had during the starvation window was
		// not starvation of the partner's making: propagate it.
		var isect intervals
		if late >= 0 && late != g.rank && starve.len() > 0 {
			gs := perRank[late] // disjoint, by time
			first, _ := slices.BinarySearchFunc(gs, starve.lo, func(g *gap, t trace.Time) int {
				return cmp.Compare(g.hi, t+1) // the first gap ending after starve.lo
			})
			for _, pg := range gs[first:] {
				if pg.lo >= starve.hi {
					break
				}
				if pg.processed && pg.hi > starve.lo {
					isect = append(isect, pg.overhead.intersect(starve)...)
				}
			}
		}
		isect = isect.normalize()
		measured := intervals{starve, lat}.normalize().complementIn(w)
		g.overhead = append(measured, isect...).normalize()
		g.processed = true
		t := &times[g.rank]
		t.Starvation += starve.len() - isect.measure()
		t.Latency += lat.len()
		t.Overhead += g.overhead.measure()
	}
	// Useful time: the rest of the rank's time up to its last event; after
	// it, until the end of the run, the rank starves.
	for r := range times {
		t := &times[r]
		t.End = x.ends[r]
		var comm trace.Time
		for _, g := range perRank[r] {
			comm += g.hi - g.lo
		}
		t.Useful = t.End - comm
		t.Starvation += x.span - t.End
	}
	return times
}

// pop computes the POP factors of times over span, with the ideal run's
// decomposition when there is one.
func pop(times []RankTime, span trace.Time, ideal []RankTime, idealSpan trace.Time, haveIdeal bool) POP {
	var p POP
	var sum, most trace.Time
	for _, t := range times {
		sum += t.Useful
		most = max(most, t.Useful)
	}
	if len(times) > 0 && most > 0 {
		p.LoadBalance = float64(sum) / float64(len(times)) / float64(most)
	}
	if span > 0 {
		p.CommunicationEfficiency = float64(most) / float64(span)
	}
	p.ParallelEfficiency = p.LoadBalance * p.CommunicationEfficiency
	switch {
	case !haveIdeal:
		p.Note = "serialization and transfer need the trace of an ideal-network run of the same program"
	case idealSpan <= 0 || span <= 0:
		p.Note = "the ideal-network trace is empty"
	default:
		var idealMost trace.Time
		for _, t := range ideal {
			idealMost = max(idealMost, t.Useful)
		}
		ser := min(1, float64(idealMost)/float64(idealSpan))
		tr := min(1, float64(idealSpan)/float64(span))
		p.Serialization, p.Transfer = &ser, &tr
		if len(ideal) != len(times) {
			p.Note = fmt.Sprintf("the ideal-network trace has %d ranks, this one %d", len(ideal), len(times))
		}
	}
	return p
}
