// This file defines threads inside a rank (seed-003 §3.4, §4.1.2): a pool
// task starts at the master's clock when it was set plus the start cost,
// on the earliest free worker; the master resumes at the latest task's
// end; locks and semaphores are taken at t + TryLock + max(0, release −
// t); atomics and barriers cost what the machine file says. A rank's
// threads run interleaved, always the one with the smallest clock next,
// and a thread about to take a lock, a semaphore or an atomic lets any
// thread with a smaller clock go first: acquisitions happen in the order
// of the clocks at which they are asked for (causal order), not in the
// order the tasks were set.

package interp

import (
	"strconv"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/commlib/catalog"
	"github.com/predict-tools/predict/trace"
)

func (c *compiler) threadOp(name string, args []operand, dst int, site string) op {
	sid := c.siteID(site) // the burst of compute after the operation starts here (noise.go)
	arg := func(fr *frame, i int) V { return args[i].get(fr) }
	costs := &c.cp.mach.Threads
	traceThread := func(p *proc, op string, enter int64, obj int64) { p.traceThread(op, site, enter, obj) }
	spend := func(p *proc, t int64) bool { return p.spend(t, site, name) }
	switch name {
	case "Comm.NewPool":
		return func(p *proc, fr *frame) ctl {
			n := int(arg(fr, 1).I)
			if n < 1 {
				return p.fail(site, "NewPool: size must be at least 1")
			}
			pool := &poolV{rop: commlib.Sum}
			for i := range n {
				pool.workers = append(pool.workers, &thread{id: i, task: -1})
			}
			if !spend(p, int64(costs.PoolCreate(n))) {
				return cStop
			}
			for _, t := range pool.workers {
				t.free = p.cur.clock
			}
			return set(fr, dst, V{R: pool})
		}
	case "Pool.Size":
		return func(p *proc, fr *frame) ctl {
			pool, _ := arg(fr, 0).R.(*poolV)
			return set(fr, dst, intV(int64(len(pool.workers))))
		}
	case "Pool.SetReduceOp":
		return func(p *proc, fr *frame) ctl {
			pool, _ := arg(fr, 0).R.(*poolV)
			pool.rop = commlib.Op(arg(fr, 1).I)
			return cNext
		}
	case "Pool.Close":
		return func(p *proc, fr *frame) ctl { return cNext }
	case "Pool.SetTask":
		return func(p *proc, fr *frame) ctl {
			pool, _ := arg(fr, 0).R.(*poolV)
			if pool == nil {
				return p.fail(site, "SetTask on a nil pool")
			}
			if !spend(p, int64(costs.SetTask)) {
				return cStop
			}
			// Queued: the earliest free worker takes it when the master
			// waits for the pool, from the master's clock now.
			pool.queue = append(pool.queue, task{fn: arg(fr, 1), set: p.cur.clock})
			pool.results = append(pool.results, 0)
			return cNext
		}
	case "Pool.WaitForAll":
		return func(p *proc, fr *frame) ctl {
			if p.mustYield(sid) {
				return cYield // the ranks behind it first: whether they wait decides its threads' cores
			}
			pool, _ := arg(fr, 0).R.(*poolV)
			enter := p.cur.clock
			if !p.runThreads(&threadSet{threads: pool.workers, pool: pool}) {
				return cStop
			}
			if p.overflowed(pool.end, site, name) {
				return cStop
			}
			p.advanceTo(pool.end) // the master waits for its threads
			acc := V{}
			for i, r := range pool.results {
				if i == 0 {
					acc = floatV(r)
				} else {
					acc = reduceOp(pool.rop, acc, floatV(r), true)
				}
			}
			pool.results, pool.queue, pool.next = nil, nil, 0
			traceThread(p, "Pool.WaitForAll", enter, 0)
			return set(fr, dst, acc)
		}
	case "Comm.Parallel":
		return func(p *proc, fr *frame) ctl {
			if p.mustYield(sid) {
				return cYield // as WaitForAll
			}
			n := int(arg(fr, 1).I)
			if !spend(p, int64(costs.PoolCreate(n))) {
				return cStop
			}
			start := addTime(p.cur.clock, int64(costs.Start))
			ts := &threadSet{}
			for tid := range n {
				th := &thread{id: tid, task: -1}
				if !p.startThread(th, arg(fr, 2), []V{intV(int64(tid))}, start) {
					return cStop
				}
				ts.threads = append(ts.threads, th)
			}
			if !p.runThreads(ts) {
				return cStop
			}
			end := start
			for _, th := range ts.threads {
				end = max(end, th.clock)
			}
			if p.overflowed(end, site, name) {
				return cStop
			}
			p.advanceTo(end)
			return cNext
		}
	case "Comm.NewMutex":
		return func(p *proc, fr *frame) ctl {
			if !spend(p, int64(costs.CreateSemaphore)) {
				return cStop
			}
			return set(fr, dst, V{R: &mutexV{id: p.w.newID()}})
		}
	case "Mutex.Lock", "Mutex.TryLock":
		try := name == "Mutex.TryLock"
		return func(p *proc, fr *frame) ctl {
			m, _ := arg(fr, 0).R.(*mutexV)
			if try {
				return p.tryLock(m, fr, dst, site, name)
			}
			return p.lock(m, site, name)
		}
	case "Mutex.Unlock":
		return func(p *proc, fr *frame) ctl {
			m, _ := arg(fr, 0).R.(*mutexV)
			return p.unlock(m, site, name)
		}
	case "Mutex.Critical":
		return func(p *proc, fr *frame) ctl {
			m, _ := arg(fr, 0).R.(*mutexV)
			if m == nil {
				return p.fail(site, "Critical of a nil mutex")
			}
			if p.letEarlierGo() {
				return cYield
			}
			if m.held {
				if th := p.thisThread(); th != nil {
					th.blocked = m
					return cYield
				}
				return p.fail(site, "Critical on a mutex the rank's main thread holds already (it would wait forever)")
			}
			enter, ok := p.acquire(m.released, site, name)
			if !ok {
				return cStop
			}
			traceThread(p, "Mutex.Lock", enter, m.id)
			// Run f in place, on the current thread, holding the lock.
			m.held = true
			end, ok := p.runInPlace(arg(fr, 1))
			m.held = false
			if !ok {
				return cStop
			}
			p.cur.clock = end
			enter = p.cur.clock
			if !spend(p, int64(costs.Release)) {
				return cStop
			}
			m.released = p.cur.clock
			p.wake(m)
			traceThread(p, "Mutex.Unlock", enter, m.id)
			return cNext
		}
	case "Comm.NewSemaphore":
		return func(p *proc, fr *frame) ctl {
			if !spend(p, int64(costs.CreateSemaphore)) {
				return cStop
			}
			n := int(arg(fr, 1).I)
			s := &semV{id: p.w.newID(), permits: n, released: make([]int64, n)}
			return set(fr, dst, V{R: s})
		}
	case "Semaphore.Acquire", "Semaphore.TryAcquire":
		try := name == "Semaphore.TryAcquire"
		return func(p *proc, fr *frame) ctl {
			s, _ := arg(fr, 0).R.(*semV)
			n := int(arg(fr, 1).I)
			if s == nil || n > s.permits {
				return p.fail(site, name+": more permits than the semaphore has")
			}
			if p.letEarlierGo() {
				return cYield
			}
			// The n earliest released permits.
			sortInt64(s.released)
			if n > len(s.released) {
				if try {
					return set(fr, dst, boolV(false))
				}
				if th := p.thisThread(); th != nil {
					th.blocked = s // until enough permits are released
					return cYield
				}
				return p.fail(site, name+": not enough free permits (the rank's main thread would wait forever)")
			}
			at := int64(0)
			if n > 0 {
				at = s.released[n-1]
			}
			if try {
				if !spend(p, int64(costs.TryLock)) {
					return cStop
				}
				if at > p.cur.clock {
					return set(fr, dst, boolV(false))
				}
				s.released = s.released[n:]
				return set(fr, dst, boolV(true))
			}
			enter, ok := p.acquire(at, site, name)
			if !ok {
				return cStop
			}
			s.released = s.released[n:]
			traceThread(p, "Semaphore.Acquire", enter, s.id)
			return cNext
		}
	case "Semaphore.Release":
		return func(p *proc, fr *frame) ctl {
			s, _ := arg(fr, 0).R.(*semV)
			enter := p.cur.clock
			if !spend(p, int64(costs.Release)) {
				return cStop
			}
			for range int(arg(fr, 1).I) {
				s.released = append(s.released, p.cur.clock)
			}
			p.wake(s)
			traceThread(p, "Semaphore.Release", enter, s.id)
			return cNext
		}
	case "Comm.NewBarrier":
		return func(p *proc, fr *frame) ctl {
			if !spend(p, int64(costs.CreateSemaphore)) {
				return cStop
			}
			return set(fr, dst, V{R: &barrierV{id: p.w.newID(), n: int(arg(fr, 1).I)}})
		}
	case "Barrier.Wait":
		// A thread waits until the barrier's n-th thread arrives; all
		// leave at the latest arrival plus one atomic operation.
		return func(p *proc, fr *frame) ctl {
			b, _ := arg(fr, 0).R.(*barrierV)
			if b == nil {
				return p.fail(site, "Wait on a nil barrier")
			}
			th := p.thisThread()
			if th != nil && th.passed == b {
				// Woken by the last arrival.
				th.passed = nil
				enter := p.cur.clock
				p.cur.clock = max(p.cur.clock, b.release)
				traceThread(p, "Barrier.Wait", enter, b.id)
				return cNext
			}
			if b.n <= 1 {
				if !spend(p, int64(costs.CAS)) {
					return cStop
				}
				return cNext
			}
			if th == nil {
				return p.fail(site, "Barrier.Wait on the rank's main thread: only the barrier's threads may wait (it would wait forever)")
			}
			b.arrived = append(b.arrived, p.cur.clock)
			if len(b.arrived) < b.n {
				b.waiting = append(b.waiting, th)
				th.blocked = b
				return cYield
			}
			rel := int64(0)
			for _, t := range b.arrived {
				rel = max(rel, t)
			}
			b.release = addTime(rel, int64(costs.CAS))
			if p.overflowed(b.release, site, name) {
				return cStop
			}
			for _, w := range b.waiting {
				w.blocked, w.passed = nil, b
			}
			b.arrived, b.waiting = b.arrived[:0], b.waiting[:0]
			enter := p.cur.clock
			p.cur.clock = b.release
			traceThread(p, "Barrier.Wait", enter, b.id)
			return cNext
		}
	}
	if o, ok := catalog.Lookup(name); ok && o.Class == catalog.ClassAtomic {
		return c.atomicOp(name, args, dst, site)
	}
	return nil
}

// spend advances the running thread by t of overhead; false when its
// clock passes the limit (the run stops).
func (p *proc) spend(t int64, site, name string) bool {
	if !p.advance(t, site, name) {
		return false
	}
	if p.cur == &p.main {
		p.overhead += t
	}
	return true
}

// traceThread records a thread operation of the running thread from enter
// to its clock now.
func (p *proc) traceThread(op, site string, enter, obj int64) {
	if p.w.cfg.Trace != nil {
		p.emit(trace.Event{Kind: trace.KindOp, Op: op, Peer: trace.NoPeer, Root: trace.NoPeer, Object: obj, Site: site,
			Enter: trace.Time(enter), Exit: trace.Time(p.cur.clock)})
	}
}

// lock takes m for the running thread at max(its clock, m's release) +
// TryLock; a thread finding m held waits until its holder unlocks it.
func (p *proc) lock(m *mutexV, site, name string) ctl {
	if m == nil {
		return p.fail(site, "Lock of a nil mutex")
	}
	if c, wait := p.turn(); wait {
		return c
	}
	if m.held {
		if th := p.thisThread(); th != nil {
			th.blocked = m // until its holder unlocks it
			return cYield
		}
		if !p.mainWaits(func() bool { return !m.held }, site, "Lock of mutex "+strconv.FormatInt(m.id, 10)) {
			return cStop
		}
	}
	enter, ok := p.acquire(m.released, site, name)
	if !ok {
		return cStop
	}
	m.held = true
	p.traceThread(name, site, enter, m.id)
	return cNext
}

// acquire advances the running thread to when it gets a lock or permits
// last released at released (machine.ThreadCosts.LockAcquired): the
// attempt is the main thread's overhead, the rest its wait. It returns
// the clock before, and false when the clock passes its limit.
func (p *proc) acquire(released int64, site, name string) (int64, bool) {
	enter := p.cur.clock
	costs := &p.w.mach.Threads
	t := int64(costs.LockAcquired(trace.Time(p.cur.clock), trace.Time(released)))
	if p.overflowed(t, site, name) {
		return enter, false
	}
	if p.cur == &p.main {
		p.overhead += int64(costs.TryLock)
		p.wait += t - p.cur.clock - int64(costs.TryLock)
	}
	p.cur.clock = t
	return enter, true
}

// tryLock takes m if it is free at the running thread's clock, after one
// attempt (TryLock), and sets the result slot dst to whether it did.
func (p *proc) tryLock(m *mutexV, fr *frame, dst int, site, name string) ctl {
	if m == nil {
		return p.fail(site, "TryLock of a nil mutex")
	}
	if c, wait := p.turn(); wait {
		return c
	}
	if !p.spend(int64(p.w.mach.Threads.TryLock), site, name) {
		return cStop
	}
	ok := !m.held && m.released <= p.cur.clock
	if ok {
		m.held = true
	}
	return set(fr, dst, boolV(ok))
}

// unlock releases m after Release and wakes the threads waiting for it.
func (p *proc) unlock(m *mutexV, site, name string) ctl {
	if m == nil || !m.held {
		return p.fail(site, "Unlock of an unlocked mutex")
	}
	enter := p.cur.clock
	if !p.spend(int64(p.w.mach.Threads.Release), site, name) {
		return cStop
	}
	m.held = false
	m.released = p.cur.clock
	p.wake(m)
	p.traceThread(name, site, enter, m.id)
	return cNext
}

// runInPlace runs a func() on the current thread to its end (the body of
// Mutex.Critical): no other thread runs meanwhile.
func (p *proc) runInPlace(fn V) (int64, bool) {
	cl, _ := fn.R.(*closure)
	if cl == nil || cl.fn == nil {
		p.fail("", "critical section body is not a function of the program")
		return p.cur.clock, false
	}
	if p.threads != nil {
		p.threads.inPlace++
		defer func() { p.threads.inPlace-- }()
	}
	saved := p.cur
	th := &exec{clock: saved.clock}
	p.cur = th
	defer func() { p.cur = saved }()
	if c := p.call(cl.fn, cl.env, nil, -1, ""); c == cStop && p.err != nil {
		return th.clock, false
	}
	for p.cur.stack != nil {
		switch p.step() {
		case cStop:
			if p.err != nil {
				return th.clock, false
			}
		case cBlock, cYield:
			p.fail("", "a critical section blocked (communication or a lock inside it): not modeled")
			return th.clock, false
		}
	}
	return th.clock, true
}

func (c *compiler) atomicOp(name string, args []operand, dst int, site string) op {
	costs := &c.cp.mach.Threads
	isF := name[:7] == "AtomicF"
	method := name[len("AtomicInt."):]
	if isF {
		method = name[len("AtomicFloat."):]
	}
	return func(p *proc, fr *frame) ctl {
		a := args[0].get(fr)
		var cell *ptr
		switch r := a.R.(type) {
		case *structV:
			cell = &ptr{s: r, i: 0}
		case *ptr:
			cell = r
		default:
			return p.fail(site, name+" of a nil atomic")
		}
		if p.letEarlierGo() {
			return cYield
		}
		// The interpreter keeps the atomic's value in its first field.
		if !p.advance(int64(costs.CAS), site, name) {
			return cStop
		}
		if p.cur == &p.main {
			p.overhead += int64(costs.CAS)
		}
		old := cell.load()
		add := func(x, y V) V {
			if isF {
				return floatV(x.F() + y.F())
			}
			return intV(x.I + y.I)
		}
		switch method {
		case "Load":
			return set(fr, dst, old)
		case "Store":
			cell.store(args[1].get(fr))
			return cNext
		case "Add":
			n := add(old, args[1].get(fr))
			cell.store(n)
			return set(fr, dst, n)
		case "Swap":
			cell.store(args[1].get(fr))
			return set(fr, dst, old)
		case "CompareAndSwap":
			if old.I == args[1].get(fr).I {
				cell.store(args[2].get(fr))
				return set(fr, dst, boolV(true))
			}
			return set(fr, dst, boolV(false))
		}
		return p.fail(site, name+" is not modeled")
	}
}

func sortInt64(xs []int64) {
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && xs[j] < xs[j-1]; j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}
