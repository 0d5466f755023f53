// This file defines the execution of compiled functions by a logical
// process or thread: frames, calls, returns, jumps with φ moves, collapsed
// loops, replayed decisions and charged compute time.

package interp

import (
	"fmt"
	"go/token"
	"math"

	"github.com/predict-tools/predict/trace"
)

// frame is one activation of a compiled function.
type frame struct {
	f      *function
	s      []V
	blk    *block
	pc     int
	dst    int // the caller's slot for the result; -1 for none
	defers []deferred
	site   string // the call site, for errors and traces
}

type deferred struct {
	fn   V
	args []V
}

// exec is a thread of execution: the main thread of a rank, a pool thread
// or the driver.
type exec struct {
	stack []*frame
	clock int64
}

// Reused values. A value made by slicing or by conversion to an interface
// is never modified, and the program cannot tell equal ones apart, so an
// instruction that would make a value equal to one it made before in the
// same frame returns that one: a loop that slices its buffers (or passes
// them as an any) again and again, alternating between two when it swaps
// them, reuses two values instead of allocating one per iteration. The
// instruction's slot dst holds its last value, its hidden slot alt the one
// before; on a hit in alt the two swap (the instruction then writes dst),
// on a miss dst's value moves to alt. Instructions outside loops have no
// alt (-1) and always make a new value.

// sameSlice returns the slice value of the window (a, off, n, cp) that
// the frame holds in dst or alt, or nil.
func (fr *frame) sameSlice(dst, alt int, a *array, off, n, cp int) *V {
	is := func(v V) bool {
		s, _ := v.R.(*sliceV)
		return s != nil && s.a == a && s.off == off && s.len == n && s.cap == cp
	}
	if alt < 0 {
		return nil
	}
	return fr.reuse(dst, alt, is(fr.s[dst]), is(fr.s[alt]))
}

// sameBoxed returns the interface value holding v (a scalar or a slice
// value, the same one) that the frame holds in dst or alt, or nil.
func (fr *frame) sameBoxed(dst, alt int, v V) *V {
	is := func(last V) bool {
		i, _ := last.R.(*iface)
		if i == nil || i.v.I != v.I {
			return false
		}
		switch r := v.R.(type) {
		case nil:
			return i.v.R == nil
		case *sliceV:
			s, _ := i.v.R.(*sliceV)
			return s == r
		}
		return false
	}
	if alt < 0 {
		return nil
	}
	return fr.reuse(dst, alt, is(fr.s[dst]), is(fr.s[alt]))
}

func (fr *frame) reuse(dst, alt int, inDst, inAlt bool) *V {
	switch {
	case inDst:
	case inAlt:
		fr.s[alt], fr.s[dst] = fr.s[dst], fr.s[alt]
	default:
		fr.s[alt] = fr.s[dst]
		return nil
	}
	return &fr.s[dst]
}

func (p *proc) top() *frame { return p.cur.stack[len(p.cur.stack)-1] }

// step runs the current thread of p until it blocks, must yield, or ends.
func (p *proc) step() ctl {
	for {
		fr := p.top()
		ops := fr.blk.ops
		for fr.pc < len(ops) {
			o := ops[fr.pc]
			fr.pc++
			switch c := o(p, fr); c {
			case cNext, cJump:
				if c == cJump && p.cur.stack == nil {
					return cStop
				}
				if p.yieldAfter {
					p.yieldAfter = false
					return cYield // done: the thread goes on where it is
				}
				if c == cJump {
					goto next
				}
			case cYield:
				fr.pc--
				return c
			default:
				return c
			}
		}
		// A block without a terminator (a kept block ends with one, so
		// this is a compiler bug): stop with an error rather than loop.
		return p.fail(fr.f.id, fmt.Sprintf("block %d of %s ended without a jump", fr.blk.index, fr.f.id))
	next:
	}
}

// call pushes a frame for fn with the given arguments. dst is the caller's
// result slot.
func (p *proc) call(fn *function, env []V, args []V, dst int, site string) ctl {
	fr, c := p.newFrame(fn, dst, site)
	if fr == nil {
		return c
	}
	for i, s := range fn.params {
		if i < len(args) {
			fr.s[s] = args[i]
		}
	}
	for i, s := range fn.free {
		if i < len(env) {
			fr.s[s] = env[i]
		}
	}
	p.cur.stack = append(p.cur.stack, fr)
	return cJump
}

// callFrom is call with the arguments and free variables read from the
// caller's frame straight into the new one.
func (p *proc) callFrom(caller *frame, fn *function, env, args []operand, dst int, site string) ctl {
	fr, c := p.newFrame(fn, dst, site)
	if fr == nil {
		return c
	}
	for i, s := range fn.params {
		if i < len(args) {
			fr.s[s] = args[i].get(caller)
		}
	}
	for i, s := range fn.free {
		if i < len(env) {
			fr.s[s] = env[i].get(caller)
		}
	}
	p.cur.stack = append(p.cur.stack, fr)
	return cJump
}

// newFrame returns a frame for a call of fn, recycled if fn has a free
// one, or nil and how execution goes on when the call fails.
func (p *proc) newFrame(fn *function, dst int, site string) (*frame, ctl) {
	if !fn.compiled {
		p.w.comp.drain()
	}
	if len(fn.blocks) == 0 {
		return nil, p.fail(site, "call of "+fn.id+", which has no body in the program (an external or assembly function)")
	}
	if len(p.cur.stack) >= maxDepth {
		return nil, p.fail(site, fmt.Sprintf("stack overflow: more than %d nested calls", maxDepth))
	}
	fr := popFree(&fn.freeFrames)
	if fr == nil {
		fr = &frame{f: fn, s: make([]V, fn.nslots)}
	}
	fr.blk, fr.dst, fr.site = fn.blocks[0], dst, site
	return fr, cNext
}

// releaseFrame takes back the frame of a call that returned. Nothing
// refers to a frame after its return: the ops that keep their frame (to
// store a result when a wait or a collective ends) do so only while the
// call blocks in them, and a frame's slots are not addressable (variables
// that are live in memory are boxes). Recycling is checked like that of
// messages (recycle.go).
func (fn *function) releaseFrame(fr *frame) {
	switch recycling {
	case recycleOff:
		return
	case recyclePoison:
		for i := range fr.s {
			fr.s[i] = poisonValue
		}
		fr.blk, fr.pc, fr.dst, fr.site = nil, -1, -7, "released"
		return
	}
	clear(fr.s)
	clear(fr.defers)
	*fr = frame{f: fn, s: fr.s, defers: fr.defers[:0]}
	fn.freeFrames = append(fn.freeFrames, fr)
}

// maxDepth bounds the interpreted call depth.
const maxDepth = 10000

// ret returns from the current frame.
func (p *proc) ret(fr *frame, res []operand) ctl {
	var v V
	switch len(res) {
	case 0:
	case 1:
		v = res[0].get(fr)
	default:
		t := make(tuple, len(res))
		for i, r := range res {
			t[i] = r.get(fr)
		}
		v = V{R: t}
	}
	st := p.cur.stack
	st[len(st)-1] = nil
	p.cur.stack = st[:len(st)-1]
	dst := fr.dst
	fr.f.releaseFrame(fr)
	if len(p.cur.stack) == 0 {
		p.cur.stack = nil
		p.result = v
		return cJump
	}
	if dst >= 0 {
		p.top().s[dst] = v
	}
	return cJump
}

// jump moves fr along the edge from its block to succ, doing the φ moves
// and running a collapsed loop as a whole.
func (p *proc) jump(fr *frame, succ *block) ctl {
	from := fr.blk
	if succ.index <= from.index { // a back edge
		if p.cur.clock != p.spinClock {
			p.spinClock, p.spins = p.cur.clock, 0
		}
		p.spins++
		if p.spins > maxSpins {
			return p.fail(fr.f.id, p.endlessLoop(fr, succ))
		}
	}
	p.moveTo(fr, from, succ)
	if lp := succ.loop; lp != nil && !lp.blocks[from.index] {
		return p.runLoop(fr, lp)
	}
	return cJump
}

// moveTo does the φ moves of the edge from → to and makes to current.
func (p *proc) moveTo(fr *frame, from, to *block) {
	k := -1
	for i, pb := range to.preds {
		if pb.Index == from.index {
			k = i
			break
		}
	}
	if k >= 0 {
		moves := to.phis[k]
		switch len(moves) {
		case 0:
		case 1:
			fr.s[moves[0].dst] = moves[0].src.get(fr)
		default:
			// The moves are parallel: read all, then write. Up to 8 on
			// the stack (a loop's φs), more on the heap.
			var buf [8]V
			vals := buf[:0]
			if len(moves) > len(buf) {
				vals = make([]V, 0, len(moves))
			}
			vals = vals[:len(moves)]
			for i, m := range moves {
				vals[i] = m.src.get(fr)
			}
			for i, m := range moves {
				fr.s[m.dst] = vals[i]
			}
		}
	}
	fr.blk, fr.pc = to, 0
}

// runLoop runs a collapsed loop entered at its header: its time is its
// trip count times the measured time of an iteration, and execution goes
// on at its exit.
func (p *proc) runLoop(fr *frame, lp *loopPlan) ctl {
	// A header that computes the bound (its kept instructions are pure
	// values): run them, not its branch.
	if ops := fr.blk.ops; lp.runHeader && len(ops) > 1 {
		for _, o := range ops[:len(ops)-1] {
			if c := o(p, fr); c != cNext {
				return c
			}
		}
	}
	for _, o := range lp.boundPrep {
		if c := o(p, fr); c != cNext {
			return c
		}
	}
	var trips int64
	switch {
	case lp.ind != nil:
		first := lp.init.get(fr).I + lp.ind.Offset
		step := lp.ind.Step
		if lp.ind.StepValue != nil {
			step = lp.step.get(fr).I
		}
		trips = tripCount(first, lp.bound.get(fr).I, step, lp.ind.Op)
		last := trips // the induction's value when the loop is left
		if lp.ind.TestAtBottom {
			trips++
			last = trips - 1
		}
		fr.s[lp.phiSlot] = intV(lp.init.get(fr).I + last*step)
		if in := lp.inner; in != nil {
			// A nest timed per inner iteration: outer × inner trips.
			for _, o := range lp.innerPrep {
				if c := o(p, fr); c != cNext {
					return c
				}
			}
			k := tripCount(lp.innerInit.get(fr).I+in.Offset, lp.innerBound.get(fr).I, in.Step, in.Op)
			switch {
			case in.TestAtBottom && lp.innerGuarded:
				// Go's range over an int: a guard runs it at all only
				// when its start passes the test (tripsOnEntry's count).
				k = tripCount(lp.innerInit.get(fr).I, lp.innerBound.get(fr).I, in.Step, in.Op)
			case in.TestAtBottom:
				k++
			}
			trips = mulTime(trips, k)
		}
	case lp.clockOp != token.ILLEGAL:
		// for Wtime() < end: each iteration moves the clock by its time.
		end := roundTime(lp.bound.get(fr).F() * 1e12)
		per := max(p.w.compute(lp.perIter), 1)
		if lp.perIter == 0 {
			// Not timed by the profile: the loop ends when the clock
			// reaches end, one tick of a picosecond per iteration.
			per = 1
		}
		// Clocks are ≥ 0: d neither wraps nor, below, rounds up past
		// the range; an end past the clock's limit is reached there.
		d := max(end, p.cur.clock-1) - p.cur.clock
		if d > overflowClock-per {
			return p.leaveLoop(fr, lp, overflowClock)
		}
		switch lp.clockOp {
		case token.LSS:
			trips = max(ceilDiv(d, per), 0)
		case token.LEQ:
			trips = max(floorDiv(d, per)+1, 0)
		}
		// The loop lasts until the clock passes end: its iterations
		// (target time already) take it there, whatever the profile
		// says an iteration costs, even nothing.
		return p.leaveLoop(fr, lp, mulTime(trips, per))
	case lp.ranked != nil:
		trips = p.nextTrips(lp)
	}
	work := lp.entryTime(trips)
	if lp.count != nil {
		// Counted in units: its units × the measured time over the
		// units counted at the profiled np, rounded once.
		work = roundTime(float64(lp.count(p, fr)) * float64(lp.unit.total) / float64(lp.unit.units))
	}
	return p.leaveLoop(fr, lp, p.w.compute(work))
}

// entryTime is the time of an entry of a collapsed loop that runs trips
// iterations (of its innermost body for a nest timed per innermost
// iteration): trips × the time of an iteration, or, for an unbalanced
// loop whose iterations differ by their index, the sum of its
// iterations' estimates (seed-003 §4.3.2.3) in closed form: its first
// iterations' prefix, and the later ones at their time.
func (lp *loopPlan) entryTime(trips int64) int64 {
	k := int64(len(lp.firstIters))
	if k == 0 || trips <= 0 {
		return mulTime(max(trips, 0), lp.perIter)
	}
	return addTime(lp.firstIters[min(trips, k)-1], mulTime(max(trips-k, 0), lp.laterIter))
}

// leaveLoop charges a collapsed loop its time t and goes on at its exit.
func (p *proc) leaveLoop(fr *frame, lp *loopPlan, t int64) ctl {
	if c := p.charge(lp.frag, t); c != cNext {
		if c == cPreempt {
			p.moveTo(fr, lp.exitFrom, lp.exit) // the rest of the loop's time is the debt
		}
		return c
	}
	if f := lp.frag; f.limit > 0 && p.w.hot[f.index].freq > f.limit {
		return p.runaway(f, fr)
	}
	p.moveTo(fr, lp.exitFrom, lp.exit)
	return cJump
}

// tripCount is the number of iterations of "for i := first; i op bound;
// i += step".
func tripCount(first, bound, step int64, op token.Token) int64 {
	var n int64
	switch {
	case (op == token.LSS || op == token.NEQ) && step > 0:
		n = ceilDiv(bound-first, step)
	case op == token.LEQ && step > 0:
		n = floorDiv(bound-first, step) + 1
	case (op == token.GTR || op == token.NEQ) && step < 0:
		n = ceilDiv(first-bound, -step)
	case op == token.GEQ && step < 0:
		n = floorDiv(first-bound, -step) + 1
	}
	return max(n, 0)
}

func ceilDiv(a, b int64) int64 {
	if a <= 0 {
		return -((-a) / b)
	}
	return (a + b - 1) / b
}

func floorDiv(a, b int64) int64 {
	if a >= 0 {
		return a / b
	}
	return -((-a + b - 1) / b)
}

// charge adds t picoseconds of compute to the running thread and to the
// fragment's hot-spot counters; cStop when the clock passes its limit.
func (p *proc) charge(fr *fragment, t int64) ctl {
	at := p.cur.clock
	if (fr.alone > 0 || fr.loaded > 0) && p.cur == &p.main {
		t0 := t
		if fr.alone > 0 && p.share < 1 {
			t = unshared(fr, t, p.share)
		}
		if fr.loaded > 0 && p.load > 0 {
			t += int64(math.Round(float64(t0) * (fr.loaded - 1) * p.load))
		}
		if p.w.cfg.Nodes {
			base := t0
			if fr.alone > 0 {
				base = int64(math.Round(float64(t0) * fr.alone))
			}
			p.sharing += t - base
		}
	}
	if p.w.noise != nil && p.cur == &p.main && p.rank >= 0 && t > 0 {
		t = p.noisy(t) // its burst's deviation (noise.go)
	}
	if fr.alone > 0 && p.cur != &p.main && p.threads != nil && p.threads.share < 1 {
		// A thread's fragment, likewise by the share its node's cores
		// see with the rank's threads running.
		t = unshared(fr, t, p.threads.share)
	}
	if p.cur == &p.main && p.threads == nil && p.gos != nil && p.gos.coreFree != nil && t > 0 {
		// Beside its goroutines, on the cores they share.
		at = p.onCore(p.gos.coreFree, at, t)
	}
	if p.curThread > 0 && p.threads != nil && p.threads.coreFree != nil && t > 0 {
		at = p.onCore(p.threads.coreFree, at, t)
		// The threads book the cores in the order of their clocks: one
		// whose clock is now behind another's lets it book first, or a
		// thread stepping through many computes at once would book the
		// cores far ahead of those that are ready before (psort's
		// recursion: three quarters on two cores ran as 2 + 1, not 1.5).
		// Not inside a critical section, which runs to its end.
		p.yieldAfter = p.threads.inPlace == 0
	}
	run := t // what runs now; the rest, after a preemption
	if p.cores != nil && p.cur == &p.main {
		run = p.slice(at, t)
	}
	c := addTime(at, run)
	if c == overflowClock {
		return p.clockOverflow(fr.pos, "compute")
	}
	p.cur.clock = c
	if p.cur == &p.main {
		p.compute += t
	} else {
		p.threadBusy += t
	}
	h := &p.w.hot[fr.index]
	h.time = addTime(h.time, t) // summed over ranks: may pass the limit
	if !fr.units {
		h.freq++
	}
	if p.w.cfg.Trace != nil && run > 0 {
		p.emitCompute(fr, at, c)
	}
	if run < t {
		p.debt, p.debtFrag = t-run, fr
		return cPreempt
	}
	return cNext
}

// emitCompute traces fragment fr computing from enter to exit.
func (p *proc) emitCompute(fr *fragment, enter, exit int64) {
	p.emit(trace.Event{Kind: trace.KindCompute, Op: fr.node, Site: fr.pos, Enter: trace.Time(enter), Exit: trace.Time(exit), Peer: trace.NoPeer, Root: trace.NoPeer})
}

func chargeOp(f *fragment) op {
	if f.alloc != nil {
		return f.alloc.op(f)
	}
	return func(p *proc, fr *frame) ctl {
		if c := p.charge(f, int64(p.w.mach.Compute(trace.Time(f.mean)))); c != cNext {
			return c
		}
		if f.limit > 0 && p.w.hot[f.index].freq > f.limit {
			return p.runaway(f, fr)
		}
		return cNext
	}
}

// runDefers runs the deferred calls of fr, last first, one per execution
// of the op (it runs again until none is left).
func (p *proc) runDefers(fr *frame) ctl {
	if len(fr.defers) == 0 {
		return cNext
	}
	d := fr.defers[len(fr.defers)-1]
	fr.defers = fr.defers[:len(fr.defers)-1]
	fr.pc-- // come back for the next one
	c := p.callValue(d.fn, d.args, -1, fr.site)
	if c == cYield {
		// A deferred operation that lets an earlier thread go first:
		// it runs again when this thread resumes (step takes pc back to
		// this RunDefers).
		fr.defers = append(fr.defers, d)
		fr.pc++
	}
	return c
}

// fail stops the process with an error at where.
func (p *proc) fail(where, msg string) ctl {
	if p.err == nil {
		p.err = &Error{Rank: p.rank, Thread: p.thread(), Pos: where, Msg: msg}
	}
	return cStop
}

func (p *proc) thread() int {
	if p.cur == &p.main {
		return 0
	}
	return p.curThread
}
