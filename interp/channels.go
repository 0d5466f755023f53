// This file defines channels inside a rank (issue 19 item 2): buffered and
// unbuffered channels between a rank's goroutines and its main thread,
// select, close and range over a channel, in modeled time.
//
// A channel is a queue of values, each stamped with the time it was sent.
// A send to a buffered channel with room costs CAS and returns; a send to
// a full or unbuffered channel waits until a receiver takes its value. A
// receive takes the oldest value at max(its clock, the value's time) +
// CAS; a sender waiting for it resumes then. A receive from a closed and
// empty channel returns the zero value (ok false) at max(its clock, the
// close). A goroutine that must wait blocks, as it does on a lock; the
// main thread runs the rank's goroutines until what it waits for is
// there (a value, a receiver, the close), and a wait nothing can end is a
// deadlock, reported with what each goroutine waits for, as Go's runtime
// reports "all goroutines are asleep". Operations happen in the order of
// the clocks at which they are asked for (a thread lets any thread with a
// smaller clock go first).
//
// select takes, among its ready cases, the one whose value has been there
// longest (ties: the first case): Go chooses at random, the model
// deterministically. A send case is ready when the buffer has room or a
// receiver waits; such a send does not wait for the receiver to take its
// value. With no ready case, default is taken if there is one, else the
// select waits for any of its channels.

package interp

import (
	"fmt"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// chanV is a channel's state.
type chanV struct {
	id        int64
	cap       int
	buf       []chanItem     // values sent, oldest first
	sends     []*pendingSend // senders waiting for a receiver (unbuffered, or a full buffer)
	receivers int            // threads blocked receiving (a select's send case is ready)
	closed    bool
	closedAt  int64
	zero      V
}

type chanItem struct {
	v V
	t int64 // when it was sent
}

// pendingSend is a send waiting for a receiver to take its value.
type pendingSend struct {
	v      V
	t      int64
	done   bool
	doneAt int64 // when a receiver took it
}

// selectWait is what a thread blocked in a select waits for: any of its
// channels.
type selectWait struct {
	chans []*chanV
	recv  []*chanV // those of its receive cases: their receivers it counts
}

// ready reports whether a receive from ch would not wait.
func (ch *chanV) ready() bool { return len(ch.buf) > 0 || len(ch.sends) > 0 || ch.closed }

// sendReady reports whether a select's send case on ch is ready: the
// buffer has room or a receiver waits (or ch is closed: the send panics).
func (ch *chanV) sendReady() bool { return ch.closed || len(ch.buf) < ch.cap || ch.receivers > 0 }

// since is when what a receive from ready ch would take became available.
func (ch *chanV) since() int64 {
	switch {
	case len(ch.buf) > 0:
		return ch.buf[0].t
	case len(ch.sends) > 0:
		return ch.sends[0].t
	}
	return ch.closedAt
}

// channelOp compiles an instruction that makes or uses a channel, and
// returns nil for any other.
func (c *compiler) channelOp(cf *function, instr ssa.Instruction) op {
	site := c.l.Pos(instr.Pos()).String()
	switch in := instr.(type) {
	case *ssa.MakeChan:
		dst, size := c.slot(cf, in), c.operand(cf, in.Size)
		zero := zeroOf(in.Type().Underlying().(*types.Chan).Elem())
		return func(p *proc, fr *frame) ctl {
			n := size.get(fr).I
			if n < 0 {
				return p.fail(site, "makechan: size out of range")
			}
			return set(fr, dst, V{R: &chanV{id: p.w.newID(), cap: int(n), zero: zero}})
		}
	case *ssa.Send:
		ch, v := c.operand(cf, in.Chan), c.operand(cf, in.X)
		return func(p *proc, fr *frame) ctl {
			return p.chanSend(chanOf(ch.get(fr)), copyValue(v.get(fr)), site)
		}
	case *ssa.UnOp:
		if in.Op != token.ARROW {
			return nil
		}
		dst, ch := c.slot(cf, in), c.operand(cf, in.X)
		return func(p *proc, fr *frame) ctl {
			return p.chanRecv(chanOf(ch.get(fr)), fr, dst, in.CommaOk, site)
		}
	case *ssa.Select:
		return c.selectOp(cf, in, site)
	case *ssa.Call:
		if b, ok := in.Call.Value.(*ssa.Builtin); !ok || b.Name() != "close" {
			return nil
		}
		ch := c.operand(cf, in.Call.Args[0])
		return func(p *proc, fr *frame) ctl { return p.chanClose(chanOf(ch.get(fr)), site) }
	}
	return nil
}

func chanOf(v V) *chanV {
	ch, _ := v.R.(*chanV)
	return ch
}

// chanSend sends v on ch from the running thread.
func (p *proc) chanSend(ch *chanV, v V, site string) ctl {
	p.burstWait()
	if ch == nil {
		return p.fail(site, "send on a nil channel: it blocks forever")
	}
	th := p.thisThread()
	if th != nil && th.pend != nil {
		// Resumed: its value was taken, or it waits on.
		if !th.pend.done {
			th.blocked = ch
			return cYield
		}
		p.cur.clock = max(p.cur.clock, th.pend.doneAt)
		th.pend = nil
		return cNext
	}
	if c, wait := p.turn(); wait {
		return c
	}
	if ch.closed {
		return p.fail(site, "send on closed channel")
	}
	if !p.spend(int64(p.w.mach.Threads.CAS), site, "send") {
		return cStop
	}
	if len(ch.buf) < ch.cap {
		ch.buf = append(ch.buf, chanItem{v, p.cur.clock})
		p.wake(ch)
		return cNext
	}
	ps := &pendingSend{v: v, t: p.cur.clock}
	ch.sends = append(ch.sends, ps)
	p.wake(ch)
	if th != nil {
		th.pend, th.blocked = ps, ch
		return cYield
	}
	if !p.mainWaits(func() bool { return ps.done }, site, fmt.Sprintf("send on channel %d", ch.id)) {
		return cStop
	}
	p.mainResumes(ps.doneAt)
	return cNext
}

// chanRecv receives from ch into dst (a tuple with ok when commaOk).
func (p *proc) chanRecv(ch *chanV, fr *frame, dst int, commaOk bool, site string) ctl {
	p.burstWait()
	if ch == nil {
		return p.fail(site, "receive from a nil channel: it blocks forever")
	}
	th := p.thisThread()
	if th != nil && th.recvOn != nil {
		th.recvOn.receivers--
		th.recvOn = nil
	}
	if c, wait := p.turn(); wait {
		return c
	}
	if !ch.ready() {
		if th != nil {
			ch.receivers++
			th.recvOn, th.blocked = ch, ch
			return cYield
		}
		if !p.mainWaits(ch.ready, site, fmt.Sprintf("receive from channel %d", ch.id)) {
			return cStop
		}
	}
	v, ok := p.chanTake(ch)
	if commaOk {
		return set(fr, dst, V{R: tuple{v, boolV(ok)}})
	}
	return set(fr, dst, v)
}

// chanTake takes what a receive from ready ch takes, at the later of the
// running thread's clock and its arrival, plus CAS.
func (p *proc) chanTake(ch *chanV) (V, bool) {
	cas := int64(p.w.mach.Threads.CAS)
	at := max(p.cur.clock, ch.since())
	switch {
	case len(ch.buf) > 0:
		it := ch.buf[0]
		ch.buf = ch.buf[1:]
		p.advanceTo(addTime(at, cas))
		if len(ch.sends) > 0 {
			// Room now: the first waiting sender's value goes in.
			s := ch.sends[0]
			ch.sends = ch.sends[1:]
			ch.buf = append(ch.buf, chanItem{s.v, max(s.t, p.cur.clock)})
			s.done, s.doneAt = true, p.cur.clock
		}
		p.wake(ch)
		return it.v, true
	case len(ch.sends) > 0:
		s := ch.sends[0]
		ch.sends = ch.sends[1:]
		p.advanceTo(addTime(at, cas))
		s.done, s.doneAt = true, p.cur.clock
		p.wake(ch)
		return s.v, true
	}
	p.advanceTo(at) // closed and empty
	return cloneZero(ch.zero), false
}

// mainWaits runs the rank's goroutines until cond holds; a wait nothing
// can end is a deadlock. False when the run stops.
func (p *proc) mainWaits(cond func() bool, site, what string) bool {
	ts := p.gos
	if ts == nil {
		if cond() {
			return true
		}
		p.fail(site, what+": no goroutine of the rank can end the wait (deadlock: all goroutines are asleep)")
		return false
	}
	// Until cond holds and no goroutine that can run is behind the main
	// thread: what they do before its clock happens before its operation.
	done, ok := p.runThreadsUntil(ts, func() bool { return cond() && !p.goBehind(p.main.clock) })
	if !ok {
		return false
	}
	if !done && !cond() {
		msg := what + ": no goroutine of the rank can end the wait (deadlock: all goroutines are asleep)"
		if stuck := ts.stuck(); stuck != "" {
			msg += ": " + stuck
		}
		p.fail(site, msg)
		return false
	}
	return true
}

// goBehind reports whether a goroutine the main thread started can run
// at a clock before t.
func (p *proc) goBehind(t int64) bool {
	ts := p.gos
	if ts == nil {
		return false
	}
	start := int64(p.w.mach.Threads.Start)
	for _, th := range ts.threads {
		if at, ok := ts.candidate(th, start); ok && at < t {
			return true
		}
	}
	return false
}

// mainCatchUp runs, before an operation of the main thread on a channel,
// a lock, a Once or an atomic, the goroutines that can run before its
// clock. False when the run stops.
func (p *proc) mainCatchUp() bool {
	if p.cur != &p.main || p.threads != nil || !p.goBehind(p.main.clock) {
		return true
	}
	// Their operations at clocks past the main thread's wait for its
	// (letEarlierGo): it asked first.
	p.mainAsks = true
	_, ok := p.runThreadsUntil(p.gos, func() bool { return !p.goBehind(p.main.clock) })
	p.mainAsks = false
	return ok
}

// turn lets the threads before the running one go first: a thread
// with a smaller clock (it yields: cYield), or, for the main thread, the
// goroutines behind it (run now; cStop if the run stops). wait says that
// the operation does not go on now.
func (p *proc) turn() (ctl, bool) {
	if p.letEarlierGo() {
		return cYield, true
	}
	if !p.mainCatchUp() {
		return cStop, true
	}
	return cNext, false
}

// chanClose closes ch.
func (p *proc) chanClose(ch *chanV, site string) ctl {
	if ch == nil {
		return p.fail(site, "close of nil channel")
	}
	if c, wait := p.turn(); wait {
		return c
	}
	if ch.closed {
		return p.fail(site, "close of closed channel")
	}
	if !p.spend(int64(p.w.mach.Threads.CAS), site, "close") {
		return cStop
	}
	ch.closed, ch.closedAt = true, p.cur.clock
	p.wake(ch)
	return cNext
}

// selectOp compiles a select statement: its result is the tuple (index,
// ok, the values of its receive cases).
func (c *compiler) selectOp(cf *function, in *ssa.Select, site string) op {
	dst := c.slot(cf, in)
	type state struct {
		ch, v operand
		send  bool
		recv  int // index among the receive cases
	}
	var states []state
	nrecv := 0
	for _, st := range in.States {
		s := state{ch: c.operand(cf, st.Chan), send: st.Dir == types.SendOnly}
		if s.send {
			s.v = c.operand(cf, st.Send)
		} else {
			s.recv = nrecv
			nrecv++
		}
		states = append(states, s)
	}
	zeros := make([]V, 0, nrecv)
	for _, st := range in.States {
		if st.Dir != types.SendOnly {
			zeros = append(zeros, zeroOf(st.Chan.Type().Underlying().(*types.Chan).Elem()))
		}
	}
	return func(p *proc, fr *frame) ctl {
		p.burstWait()
		chans := make([]*chanV, len(states))
		for i, s := range states {
			chans[i] = chanOf(s.ch.get(fr))
		}
		th := p.thisThread()
		if th != nil && th.sel != nil {
			for _, ch := range th.sel.recv {
				ch.receivers--
			}
			th.sel = nil
		}
		if c, wait := p.turn(); wait {
			return c
		}
		// The ready case whose value has waited longest.
		choose := func() (int, int64) {
			pick, pickAt := -1, int64(0)
			for i, s := range states {
				ch := chans[i]
				if ch == nil {
					continue // a nil channel's case is never ready
				}
				if s.send {
					if ch.sendReady() && (pick < 0 || p.cur.clock < pickAt) {
						pick, pickAt = i, p.cur.clock
					}
					continue
				}
				if ch.ready() && (pick < 0 || ch.since() < pickAt) {
					pick, pickAt = i, ch.since()
				}
			}
			return pick, pickAt
		}
		pick, pickAt := choose()
		for p.cur == &p.main && pick >= 0 && p.goBehind(pickAt) {
			// A goroutine behind the chosen value may send an earlier
			// one: it runs first, and the choice is made again.
			if _, ok := p.runThreadsUntil(p.gos, func() bool { return !p.goBehind(pickAt) }); !ok {
				return cStop
			}
			pick, pickAt = choose()
		}
		if pick >= 0 && states[pick].send && chans[pick].closed {
			return p.fail(site, "send on closed channel")
		}
		res := make(tuple, 2+nrecv)
		res[0] = intV(int64(pick))
		for k, z := range zeros {
			res[2+k] = cloneZero(z)
		}
		if pick < 0 && !in.Blocking {
			return set(fr, dst, V{R: res}) // default
		}
		if pick < 0 {
			if th != nil {
				w := &selectWait{chans: chans}
				for i, s := range states {
					if chans[i] != nil && !s.send {
						chans[i].receivers++
						w.recv = append(w.recv, chans[i])
					}
				}
				th.sel, th.blocked = w, w
				return cYield
			}
			anyReady := func() bool { i, _ := choose(); return i >= 0 }
			if !p.mainWaits(anyReady, site, "select") {
				return cStop
			}
			return cYield // ready now: choose again
		}
		s, ch := states[pick], chans[pick]
		if s.send {
			if !p.spend(int64(p.w.mach.Threads.CAS), site, "select") {
				return cStop
			}
			v := copyValue(s.v.get(fr))
			if len(ch.buf) < ch.cap {
				ch.buf = append(ch.buf, chanItem{v, p.cur.clock})
			} else {
				ch.sends = append(ch.sends, &pendingSend{v: v, t: p.cur.clock})
			}
			p.wake(ch)
			return set(fr, dst, V{R: res})
		}
		v, ok := p.chanTake(ch)
		res[1] = boolV(ok)
		res[2+s.recv] = v
		return set(fr, dst, V{R: res})
	}
}
