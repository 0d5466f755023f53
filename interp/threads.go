// This file defines threads inside a rank (seed-003 §3.3.2, §4.1.2): pool
// tasks start at the master's clock plus the start cost, on the earliest
// free worker; the master resumes at the latest task's end; locks and
// semaphores wait until their release time; atomics and barriers cost
// what the machine file says. A thread runs to its end when started
// (threads do not communicate), so lock acquisitions follow task order.

package interp

import (
	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/trace"
)

// thread is a pool or Parallel worker of a rank.
type thread struct {
	exec
	free int64 // when it can take the next task
}

type poolV struct {
	workers []*thread
	results []float64
	rop     commlib.Op
	end     int64
}

type mutexV struct {
	id       int64
	released int64
	held     bool
}

type semV struct {
	id       int64
	permits  int
	released []int64 // release times of the free permits
}

type barrierV struct {
	id      int64
	n       int
	arrived []int64
	gen     int
}

type atomicV struct{ v V }

// runThread runs fn(args) on thread th of p from time start, to its end.
// It returns the thread's end time and its result.
func (p *proc) runThread(th *thread, tid int, fn V, args []V, start int64) (int64, V, bool) {
	saved, savedTid := p.cur, p.curThread
	th.clock = start
	th.stack = nil
	p.cur, p.curThread = &th.exec, tid+1
	defer func() { p.cur, p.curThread = saved, savedTid }()
	var res V
	cl, _ := fn.R.(*closure)
	if cl == nil || cl.fn == nil {
		p.fail("", "thread body is not a function of the program")
		return start, res, false
	}
	p.call(cl.fn, cl.env, args, -1, "")
	for p.cur.stack != nil {
		switch p.step() {
		case cStop:
			if p.err != nil {
				return th.clock, res, false
			}
		case cBlock, cYield:
			p.fail("", "a pool thread blocked in communication: not modeled")
			return th.clock, res, false
		}
	}
	res = p.result
	return th.clock, res, true
}

func (c *compiler) threadOp(name string, args []operand, dst int, site string) op {
	arg := func(fr *frame, i int) V { return args[i].get(fr) }
	costs := &c.w.mach.Threads
	objID := func(w *World) int64 { w.collID++; return w.collID }
	traceThread := func(p *proc, op string, enter int64, obj int64) {
		if p.w.cfg.Trace != nil {
			p.emit(trace.Event{Kind: trace.KindOp, Op: op, Peer: trace.NoPeer, Root: trace.NoPeer, Object: obj, Site: site,
				Enter: trace.Time(enter), Exit: trace.Time(p.cur.clock)})
		}
	}
	// spend advances the running thread by t of overhead.
	spend := func(p *proc, t int64) {
		p.cur.clock += t
		if p.cur == &p.main {
			p.overhead += t
		}
	}
	switch name {
	case "Comm.NewPool":
		return func(p *proc, fr *frame) ctl {
			n := int(arg(fr, 1).I)
			if n < 1 {
				return p.fail(site, "NewPool: size must be at least 1")
			}
			pool := &poolV{rop: commlib.Sum}
			for range n {
				pool.workers = append(pool.workers, &thread{})
			}
			spend(p, int64(costs.PoolCreate(n)))
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
			spend(p, int64(costs.SetTask))
			// The earliest free worker (lowest id on ties) takes it.
			best := 0
			for i, t := range pool.workers {
				if t.free < pool.workers[best].free {
					best = i
				}
			}
			th := pool.workers[best]
			start := max(p.cur.clock+int64(costs.Start), th.free)
			end, res, ok := p.runThread(th, best, arg(fr, 1), []V{intV(int64(best))}, start)
			if !ok {
				return cStop
			}
			th.free = end
			pool.end = max(pool.end, end)
			pool.results = append(pool.results, res.F())
			return cNext
		}
	case "Pool.WaitForAll":
		return func(p *proc, fr *frame) ctl {
			pool, _ := arg(fr, 0).R.(*poolV)
			enter := p.cur.clock
			if pool.end > p.cur.clock {
				// The master waits for its threads: their work is the
				// rank's compute.
				d := pool.end - p.cur.clock
				p.cur.clock = pool.end
				if p.cur == &p.main {
					p.compute += d
				}
			}
			acc := V{}
			for i, r := range pool.results {
				if i == 0 {
					acc = floatV(r)
				} else {
					acc = reduceOp(pool.rop, acc, floatV(r), true)
				}
			}
			pool.results = nil
			traceThread(p, "Pool.WaitForAll", enter, 0)
			return set(fr, dst, acc)
		}
	case "Comm.Parallel":
		return func(p *proc, fr *frame) ctl {
			n := int(arg(fr, 1).I)
			spend(p, int64(costs.PoolCreate(n)))
			start := p.cur.clock + int64(costs.Start)
			end := start
			for tid := range n {
				e, _, ok := p.runThread(&thread{}, tid, arg(fr, 2), []V{intV(int64(tid))}, start)
				if !ok {
					return cStop
				}
				end = max(end, e)
			}
			d := end - p.cur.clock
			p.cur.clock = end
			if p.cur == &p.main {
				p.compute += d
			}
			return cNext
		}
	case "Comm.NewMutex":
		return func(p *proc, fr *frame) ctl {
			spend(p, int64(costs.CreateSemaphore))
			return set(fr, dst, V{R: &mutexV{id: objID(p.w)}})
		}
	case "Mutex.Lock", "Mutex.TryLock":
		try := name == "Mutex.TryLock"
		return func(p *proc, fr *frame) ctl {
			m, _ := arg(fr, 0).R.(*mutexV)
			if m == nil {
				return p.fail(site, "Lock of a nil mutex")
			}
			enter := p.cur.clock
			if try {
				spend(p, int64(costs.TryLock))
				ok := !m.held && m.released <= p.cur.clock
				if ok {
					m.held = true
				}
				return set(fr, dst, boolV(ok))
			}
			t := int64(costs.LockAcquired(trace.Time(p.cur.clock), trace.Time(m.released)))
			if p.cur == &p.main {
				p.overhead += int64(costs.TryLock)
				p.wait += t - p.cur.clock - int64(costs.TryLock)
			}
			p.cur.clock = t
			m.held = true
			traceThread(p, "Mutex.Lock", enter, m.id)
			return cNext
		}
	case "Mutex.Unlock":
		return func(p *proc, fr *frame) ctl {
			m, _ := arg(fr, 0).R.(*mutexV)
			if m == nil || !m.held {
				return p.fail(site, "Unlock of an unlocked mutex")
			}
			enter := p.cur.clock
			spend(p, int64(costs.Release))
			m.held = false
			m.released = p.cur.clock
			traceThread(p, "Mutex.Unlock", enter, m.id)
			return cNext
		}
	case "Mutex.Critical":
		return func(p *proc, fr *frame) ctl {
			m, _ := arg(fr, 0).R.(*mutexV)
			enter := p.cur.clock
			t := int64(costs.LockAcquired(trace.Time(p.cur.clock), trace.Time(m.released)))
			if p.cur == &p.main {
				p.overhead += int64(costs.TryLock)
				p.wait += t - p.cur.clock - int64(costs.TryLock)
			}
			p.cur.clock = t
			traceThread(p, "Mutex.Lock", enter, m.id)
			// Run f in place, on the current thread.
			th := &thread{}
			end, _, ok := p.runThreadInPlace(th, arg(fr, 1))
			if !ok {
				return cStop
			}
			p.cur.clock = end
			enter = p.cur.clock
			spend(p, int64(costs.Release))
			m.released = p.cur.clock
			traceThread(p, "Mutex.Unlock", enter, m.id)
			return cNext
		}
	case "Comm.NewSemaphore":
		return func(p *proc, fr *frame) ctl {
			spend(p, int64(costs.CreateSemaphore))
			n := int(arg(fr, 1).I)
			s := &semV{id: objID(p.w), permits: n, released: make([]int64, n)}
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
			// The n earliest released permits.
			sortInt64(s.released)
			if n > len(s.released) {
				if try {
					return set(fr, dst, boolV(false))
				}
				return p.fail(site, name+": not enough free permits (a thread would wait forever)")
			}
			at := int64(0)
			if n > 0 {
				at = s.released[n-1]
			}
			if try {
				spend(p, int64(costs.TryLock))
				if at > p.cur.clock {
					return set(fr, dst, boolV(false))
				}
				s.released = s.released[n:]
				return set(fr, dst, boolV(true))
			}
			enter := p.cur.clock
			t := int64(costs.LockAcquired(trace.Time(p.cur.clock), trace.Time(at)))
			if p.cur == &p.main {
				p.overhead += int64(costs.TryLock)
				p.wait += t - p.cur.clock - int64(costs.TryLock)
			}
			p.cur.clock = t
			s.released = s.released[n:]
			traceThread(p, "Semaphore.Acquire", enter, s.id)
			return cNext
		}
	case "Semaphore.Release":
		return func(p *proc, fr *frame) ctl {
			s, _ := arg(fr, 0).R.(*semV)
			enter := p.cur.clock
			spend(p, int64(costs.Release))
			for range int(arg(fr, 1).I) {
				s.released = append(s.released, p.cur.clock)
			}
			traceThread(p, "Semaphore.Release", enter, s.id)
			return cNext
		}
	case "Comm.NewBarrier":
		return func(p *proc, fr *frame) ctl {
			spend(p, int64(costs.CreateSemaphore))
			return set(fr, dst, V{R: &barrierV{id: objID(p.w), n: int(arg(fr, 1).I)}})
		}
	case "Barrier.Wait":
		// Threads run one after the other, so a thread barrier cannot hold
		// one back until the others arrive: each thread pays the barrier's
		// cost and the waits are not modeled (noted in the result).
		return func(p *proc, fr *frame) ctl {
			spend(p, int64(costs.CAS))
			p.w.noteAssumption(site, "thread barrier: threads run one after another in the model, the barrier's waits are not modeled")
			return cNext
		}
	}
	if len(name) > 7 && (name[:7] == "AtomicI" || name[:7] == "AtomicF") {
		return c.atomicOp(name, args, dst, site)
	}
	return nil
}

// runThreadInPlace runs a func() on the current thread (Mutex.Critical).
func (p *proc) runThreadInPlace(th *thread, fn V) (int64, V, bool) {
	tid := p.curThread - 1
	return p.runThread(th, tid, fn, nil, p.cur.clock)
}

func (c *compiler) atomicOp(name string, args []operand, dst int, site string) op {
	costs := &c.w.mach.Threads
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
		// The interpreter keeps the atomic's value in its first field.
		p.cur.clock += int64(costs.CAS)
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
