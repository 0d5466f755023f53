// This file defines how the ranks of a node with more ranks than cores
// take turns on its cores (seed-004 §5.2, the core as a queueing centre),
// the way Go's scheduler shares its Ps among goroutines: a rank holds a
// core until it blocks, ends or uses up its time slice while others wait;
// a rank readied by a running one runs next on its core (runnext); other
// ready ranks wait first come first served.

package interp

import (
	"slices"

	"github.com/predict-tools/predict/trace"
)

// nodeCores is the cores of a node with more ranks than cores, shared the
// way Go's scheduler shares its Ps among the ranks' goroutines, as in the
// in-process runtime (MPI libraries poll in blocking calls and keep their
// cores: the machine file cannot say so yet):
//   - a rank holds a core from when it is ready until it blocks in
//     communication or ends: a goroutine runs on its P until it parks,
//     and commlib parks a blocked rank at once when no core is idle;
//   - or until its time slice ends while other ranks of the node are
//     ready without a core (timeSlice): it is then ready again, behind
//     them, with the rest of its compute;
//   - a rank that a running rank readies (by a message, or by the last
//     arrival at a collective) runs next on the readier's core when the
//     readier gives it up, before the ranks queued earlier: Go's runnext;
//     it needs no thread woken, so no wake-up delay;
//   - a ready rank that finds every core held waits for one, in the order
//     the ranks became ready: the run queue;
//   - a rank that waits to run next on a held core runs on another core,
//     free or freeing, only the machine's steal delay after both it is
//     ready and that core is free (machine.StealDelay): Go's idle P takes
//     a goroutine from another P's runnext only on its last round of
//     stealing, after usleep(3), which Linux's timer slack stretches to
//     tens of µs. Its readier's release still runs it at once. A rank
//     queued without such a claim is taken at once (stealing from a run
//     queue does not pause).
type nodeCores struct {
	free  []int64 // per core: when its last holder released it
	held  []bool  // per core: a rank holds it (or it is reserved for one)
	next  []*proc // per core: the rank its holder readied last (runnext)
	queue []*proc // ranks ready and waiting for a core, oldest first
	ready int     // ranks in the scheduler's heap without a core
}

// initNodeCores builds the cores of the nodes with more ranks than cores
// and gives each of their ranks its node's; other ranks never wait for a
// core.
func (w *World) initNodeCores() {
	cores := w.mach.CoresPerNode
	if cores <= 0 || len(w.procs) <= cores {
		return
	}
	nodes := map[int32]*nodeCores{}
	for _, p := range w.procs {
		if w.ranksOnNode(p) <= cores {
			continue
		}
		n := w.nodeOf[p.rank]
		if nodes[n] == nil {
			nodes[n] = &nodeCores{free: make([]int64, cores), held: make([]bool, cores), next: make([]*proc, cores)}
		}
		p.cores, p.core, p.nextOf = nodes[n], -1, -1
	}
}

// takeCore gives the ready process p a core of its node before it runs,
// and reports whether it has one; when it must wait, it joins its node's
// queue and takeCore reports false: releaseCore makes it ready again.
func (w *World) takeCore(p *proc) bool {
	n := p.cores
	if n == nil {
		return true
	}
	if p.reserved {
		p.reserved = false
		n.start(p)
		return true
	}
	if p.core >= 0 {
		return true // it yielded with its core
	}
	if p.stealing {
		// Its steal delay is over: another core may take it now.
		p.stealing = false
		p.waitedForCore(p.stealFrom, p.main.clock)
		n.clearNext(p)
	}
	if len(n.queue) == 0 {
		if k := n.pick(p.main.clock, p.main.clock); k >= 0 {
			if w.claimed(p) {
				w.deferSteal(p, k)
				return false
			}
			n.take(p, k)
			n.start(p)
			return true
		}
	}
	p.queued = true
	n.queue = append(n.queue, p)
	return false
}

// claimed reports whether p waits to run next on a core its readier
// holds, and the machine makes another core pause before it takes p.
func (w *World) claimed(p *proc) bool {
	j := p.nextOf
	return w.steal > 0 && j >= 0 && p.cores.held[j]
}

// deferSteal makes p, ready without a core, wait in the ready heap until
// core k, free, may run it: the steal delay after both p is ready and k
// free. From its clock on it waits for a core (waitedForCore, when it
// takes one or its readier's core frees).
func (w *World) deferSteal(p *proc, k int) {
	p.stealing, p.stealFrom = true, p.main.clock
	p.main.clock = addTime(max(p.main.clock, p.cores.free[k]), w.steal)
	w.ready.push(p)
}

// endSteal ends p's steal wait at t, before its end: its readier's core
// freed for it, or p lost its claim to it (p is then an ordinary ready
// rank). It is ready from t on, or from when it was ready if later.
func (w *World) endSteal(p *proc, t int64) {
	p.stealing = false
	w.readyAt(p, p.stealFrom, max(p.stealFrom, t))
}

// readyAt moves p, in the ready heap, to at: it waited for a core from
// from.
func (w *World) readyAt(p *proc, from, at int64) {
	p.waitedForCore(from, at)
	p.main.clock = at
	w.ready.repush(p)
}

// waitedForCore records that p, ready, waited for a core from from to to.
func (p *proc) waitedForCore(from, to int64) {
	if to <= from {
		return
	}
	p.runWait += to - from
	if p.w.cfg.Trace != nil {
		p.emit(trace.Event{Kind: trace.KindCoreWait, Enter: trace.Time(from), Exit: trace.Time(to), Peer: trace.NoPeer, Root: trace.NoPeer})
	}
}

// pick is the core a rank ready at clock takes, at a moment now of the
// run (its clock when it is popped, the time of a release when a core is
// released): of the released cores, the one free first, when it is free
// by then. When it frees later and another core is held (which may be
// released sooner), the rank waits for the next release instead: -1.
// Releases come in time order, by and large, so a rank takes a core freed
// ahead of the run (by a rank that ran ahead to its block) once the run
// has reached that time without an earlier release.
func (n *nodeCores) pick(clock, now int64) int {
	k, anyHeld := -1, false
	for i, free := range n.free {
		if n.held[i] {
			anyHeld = true
			continue
		}
		if k < 0 || free < n.free[k] {
			k = i
		}
	}
	if k >= 0 && (n.free[k] <= max(clock, now) || !anyHeld) {
		return k
	}
	return -1
}

// sooner is the core other than j, not held, that would run q, ready
// and waiting to run next on j, before t: the one that runs it first, at
// max(q's clock, the core's release) plus the steal delay. -1 when none
// does. The scheduler meets q only after q's readier ran on past such a
// release, to its own at t.
func (n *nodeCores) sooner(q *proc, j int, t, steal int64) (int, int64) {
	best, at := -1, t
	for i, f := range n.free {
		if i == j || n.held[i] {
			continue
		}
		if c := addTime(max(q.main.clock, f), steal); c < at {
			best, at = i, c
		}
	}
	return best, at
}

// take gives core k to p; p no longer waits to run next anywhere.
func (n *nodeCores) take(p *proc, k int) {
	n.held[k] = true
	p.core = k
	n.clearNext(p)
}

// clearNext takes p out of the core it was to run next on, if any.
func (n *nodeCores) clearNext(p *proc) {
	if j := p.nextOf; j >= 0 {
		if n.next[j] == p {
			n.next[j] = nil
		}
		p.nextOf = -1
	}
}

// grant gives core k to q, waiting for a core, starts it there and makes
// it ready.
func (w *World) grant(q *proc, k int) {
	q.queued = false
	q.cores.take(q, k)
	q.cores.start(q)
	w.ready.push(q)
}

// start starts p on its core from when p is ready or the core frees,
// whichever is later; the time between is waiting for a core. Its time
// slice starts then, unless it inherited its readier's (runnext); the
// compute left when it was preempted runs first.
func (n *nodeCores) start(p *proc) {
	ready := p.main.clock
	begin := max(ready, n.free[p.core])
	p.runWait += begin - ready
	p.main.clock = begin
	tracing := p.w.cfg.Trace != nil
	if tracing && begin > ready {
		p.emit(trace.Event{Kind: trace.KindCoreWait, Enter: trace.Time(ready), Exit: trace.Time(begin), Peer: trace.NoPeer, Root: trace.NoPeer})
	}
	if !p.inherited {
		p.sliceEnd = addTime(begin, timeSlice)
	}
	p.inherited = false
	if d := p.debt; d > 0 {
		p.main.clock = addTime(begin, d)
		p.debt = 0
		if tracing {
			p.emitCompute(p.debtFrag, begin, p.main.clock)
		}
		p.debtFrag = nil
	}
}

// timeSlice is how long a rank computes on a core while others wait for
// one before it is preempted: Go's (sysmon preempts a goroutine that ran
// 10 ms, forcePreemptNS), which a rank and the ranks it readies share
// (runnext inherits the slice).
const timeSlice = 10 * int64(trace.Millisecond)

// slice is how much of a compute of t from at p runs before it is
// preempted: all of it, unless it passes the end of p's time slice while
// other ranks of its node are ready without a core (waiting for one, or
// not yet run: those ready later than the slice's end then find the core
// free again). Preempted, p gives its core up and is ready again at the
// slice's end, with the rest of its compute. A rank alone with its core
// is preempted too and runs on at once: its slices start again, every
// 10 ms.
func (p *proc) slice(at, t int64) int64 {
	n := p.cores
	end := addTime(at, t)
	if end <= p.sliceEnd {
		return t
	}
	if len(n.queue) == 0 && n.ready == 0 {
		p.sliceEnd += (end - p.sliceEnd + timeSlice - 1) / timeSlice * timeSlice
		return t
	}
	return min(t, max(0, p.sliceEnd-at))
}

// uncount takes p out of its node's count of ranks ready without a core.
func (p *proc) uncount() {
	if p.counted {
		p.cores.ready--
		p.counted = false
	}
}

// handoff records that the running rank readies p, blocked until now:
// when both share a node with more ranks than cores, p runs next on the
// running rank's core (Go's runnext, which the rank readied before loses).
// It reports whether p was handed the core that way.
func (w *World) handoff(p *proc) bool {
	n, r := p.cores, w.running
	if n == nil || r == nil || r == p || r.cores != n || r.core < 0 {
		return false
	}
	if old := n.next[r.core]; old != nil {
		old.nextOf = -1
		if old.stealing {
			// Displaced to the run queue, from which a core takes it at
			// once.
			w.endSteal(old, r.main.clock)
		}
	}
	n.clearNext(p)
	n.next[r.core], p.nextOf = p, r.core
	return true
}

// releaseCore frees p's core at t, when p blocked or ended. The rank p
// readied last takes it first (from when its message arrives, if later:
// the in-process runtime readies it when the data is there); the ranks
// waiting take the cores then, oldest first, as far as they can go.
func (w *World) releaseCore(p *proc, t int64) {
	n := p.cores
	if n == nil || p.core < 0 {
		return
	}
	k := p.core
	n.held[k], n.free[k] = false, max(n.free[k], t)
	p.core = -1
	if q := n.next[k]; q != nil {
		n.next[k], q.nextOf = nil, -1
		// It runs in p's time slice.
		q.sliceEnd, q.inherited = p.sliceEnd, true
		switch {
		case q.queued:
			i := slices.Index(n.queue, q)
			n.queue = slices.Delete(n.queue, i, i+1)
			w.grant(q, k)
		case q.stealing && q.main.clock <= t:
			// p ran ahead of q's steal, which comes first: another
			// core takes q then, as deferred.
			q.inherited = false
		case q.stealing:
			// Its readier frees the core before another took q: q runs
			// there from now (or from when it was ready).
			q.uncount()
			n.take(q, k)
			q.reserved = true
			w.endSteal(q, t)
		case !q.parked && !q.done && q.core < 0:
			if k2, at := n.sooner(q, k, t, w.steal); k2 >= 0 && len(n.queue) == 0 && n.ready == 1 && q.counted {
				// p ran ahead of q, past the moment another core freed:
				// that core takes q first (after the steal delay), when
				// no other rank of the node is ready for it.
				q.inherited = false
				q.uncount()
				n.take(q, k2)
				q.reserved = true
				w.readyAt(q, q.main.clock, at)
				break
			}
			// Ready in the heap, not yet run: the core is kept for it.
			n.take(q, k)
			q.reserved = true
			q.uncount()
		default:
			q.inherited = false
		}
	}
	for len(n.queue) > 0 {
		q := n.queue[0]
		k := n.pick(q.main.clock, t)
		if k < 0 {
			break
		}
		n.queue[0] = nil
		n.queue = n.queue[1:]
		if w.claimed(q) {
			// Another core takes it only after the steal delay; the
			// next in the queue may take this one at once.
			q.queued = false
			w.deferSteal(q, k)
			continue
		}
		w.grant(q, k)
	}
}

// parkEvery is the compute of the ranks of nodes with more ranks than
// cores over the times they blocked and gave their core up (0: none).
func (w *World) parkEvery() trace.Time {
	if w.parks == 0 {
		return 0
	}
	var compute int64
	for _, p := range w.procs {
		if p.cores != nil {
			compute += p.compute
		}
	}
	return trace.Time(compute / w.parks)
}

// coresLimit says, when ranks of the in-process runtime (a machine whose
// blocked ranks give up their cores: a wake-up curve or a steal delay)
// took turns on a node's cores, what the model's scheduling leaves out.
// Go's scheduler also leaves a core idle while ranks are ready in ways
// the model does not follow (the thread of an idle core woken late): on
// this project's corpus at np = 4 and 8 on 2 cores, programs whose ranks
// give a core up every 40-70 us of compute (pic, cg) ran 20-50 % longer
// than predicted (README, Accuracy). The same text at every np, so that a
// sweep says it once; run's breakdown says how often (Result.ParkEvery).
func (w *World) coresLimit() string {
	if w.parks == 0 || (len(w.wake) == 0 && w.steal == 0) {
		return ""
	}
	return "ranks of the in-process runtime took turns on a node's cores: the model follows Go's scheduler (a rank readied runs next, the run queue, 10 ms slices, the steal delay), but the runtime also leaves cores idle while ranks are ready in ways it does not follow; programs whose ranks give a core up every 100 us of compute or less (the breakdown says how often) have run up to half again as long as predicted (pic, cg at np = 4 and 8 on 2 cores)"
}
