// This file defines the collective patterns: waits at barriers and n-to-n
// collectives and their completion, late broadcast, early reduce, early
// scan (Scalasca), and the root alone inside a rooted collective (UPC).

package patterns

import (
	"cmp"
	"slices"

	"github.com/predict-tools/predict/commlib/catalog"
	"github.com/predict-tools/predict/trace"
)

// Collective kinds.
const (
	collBarrier = iota + 1
	collNxN
	collOneToN
	collNToOne
	collScan
	collOther
)

// collectiveKind is the kind of collective op: its shape in commlib's
// catalog.
func collectiveKind(op string) int {
	o, ok := catalog.ByTraceName(op)
	if !ok {
		if op == "Reduce_scatter" || op == "ReduceScatter" { // MPI's, in traces of other tools
			return collNxN
		}
		return collOther
	}
	switch o.Shape {
	case catalog.Barrier:
		return collBarrier
	case catalog.AllToAll:
		return collNxN
	case catalog.OneToAll:
		return collOneToN
	case catalog.AllToOne:
		return collNToOne
	case catalog.Prefix:
		return collScan
	}
	return collOther
}

// collective is one instance of a collective: one call per rank, by rank.
type collective struct {
	id       int64
	op       string
	kind     int
	calls    []*trace.Event
	root     *trace.Event // the root's call, for rooted kinds
	last     *trace.Event // the call entered last
	firstOut *trace.Event // the call that exited first
	prefix   []*trace.Event
}

// scanLast returns, for each call, the call entered last among it and the
// calls of lower ranks.
func (co *collective) scanLast() []*trace.Event {
	if co.prefix == nil {
		co.prefix = make([]*trace.Event, len(co.calls))
		var last *trace.Event
		for i, e := range co.calls {
			if last == nil || e.Enter > last.Enter {
				last = e
			}
			co.prefix[i] = last
		}
	}
	return co.prefix
}

// collectiveInstances returns the valid collective instances, by id.
func (x *index) collectiveInstances() []*collective {
	var out []*collective
	for _, id := range sortedKeys(x.collectives, cmp.Compare[int64]) {
		calls := slices.Clone(x.collectives[id])
		slices.SortFunc(calls, compareEvents)
		co := &collective{id: id, op: calls[0].Op, kind: collectiveKind(calls[0].Op), calls: calls}
		ok := true
		for i, e := range calls {
			if e.Op != co.op {
				x.warnf(e, "collective %d is %s on rank %d but %s here; instance ignored", id, co.op, calls[0].Rank, e.Op)
				ok = false
				break
			}
			if i > 0 && calls[i-1].Rank == e.Rank {
				x.warnf(e, "rank %d calls collective %d twice; instance ignored", e.Rank, id)
				ok = false
				break
			}
			if co.last == nil || e.Enter > co.last.Enter {
				co.last = e
			}
			if co.firstOut == nil || e.Exit < co.firstOut.Exit {
				co.firstOut = e
			}
		}
		if !ok {
			continue
		}
		if co.kind == collOneToN || co.kind == collNToOne {
			root := calls[0].Root
			for _, e := range calls {
				if e.Rank == root {
					co.root = e
				}
			}
			if co.root == nil {
				x.warnf(calls[0], "collective %d has no call of its root (rank %d); root patterns skipped", id, root)
			}
		}
		out = append(out, co)
	}
	return out
}

// collectivePatterns finds the Scalasca collective patterns.
func (x *index) collectivePatterns(c *collector, cos []*collective) {
	for _, co := range cos {
		latest := co.last.Enter
		switch co.kind {
		case collBarrier, collNxN:
			wait, completion := "WaitAtBarrier", "BarrierCompletion"
			if co.kind == collNxN {
				wait, completion = "WaitAtNxN", "NxNCompletion"
			}
			for _, e := range co.calls {
				in := min(latest, e.Exit)
				c.add(instance{pattern: wait, vocabulary: Scalasca, at: e, lost: in - e.Enter, culprit: co.last})
				c.add(instance{pattern: completion, vocabulary: Scalasca, at: e,
					lost: e.Exit - max(co.firstOut.Exit, in), culprit: co.firstOut})
			}
		case collOneToN:
			if co.root == nil {
				continue
			}
			for _, e := range co.calls {
				if e != co.root {
					c.add(instance{pattern: "LateBroadcast", vocabulary: Scalasca, at: e,
						lost: min(co.root.Enter, e.Exit) - e.Enter, culprit: co.root})
				}
			}
		case collNToOne:
			if co.root != nil {
				e := co.root
				c.add(instance{pattern: "EarlyReduce", vocabulary: Scalasca, at: e, lost: min(latest, e.Exit) - e.Enter,
					culprit: co.last})
			}
		case collScan:
			for i, e := range co.calls {
				last := co.scanLast()[i]
				c.add(instance{pattern: "EarlyScan", vocabulary: Scalasca, at: e, lost: min(last.Enter, e.Exit) - e.Enter,
					culprit: last})
			}
		}
	}
}

// waitInsideCollective finds UPC's wait inside a collective (seed-000
// §3.12): the time the root of a rooted collective is alone inside it, its
// call minus the union of the others' calls.
func (x *index) waitInsideCollective(c *collector, cos []*collective) {
	for _, co := range cos {
		if co.root == nil {
			continue
		}
		root := co.root
		var others intervals
		for _, e := range co.calls {
			if e != root {
				others = append(others, interval{max(e.Enter, root.Enter), min(e.Exit, root.Exit)})
			}
		}
		alone := root.Duration() - others.normalize().measure()
		c.add(instance{pattern: "WaitInsideCollective", vocabulary: UPC, at: root, lost: alone})
	}
}
