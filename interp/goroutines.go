// This file defines goroutines inside a rank and the sync primitives that
// join and guard them (issue 19): a go statement starts a logical thread
// of its rank, and sync.WaitGroup, sync.Mutex, sync.RWMutex and sync.Once
// follow modeled time as commlib's threads and locks do (threads.go).
//
// A goroutine costs its creator the machine file's thread Create and
// starts Start later, at its creator's clock then. It runs on its rank's
// share of the node's cores (cores.go), interleaved with the rank's other
// threads by smallest clock, and its locks are taken in the order of the
// clocks at which they are asked for. Goroutines started by the rank's
// main thread run when the main thread waits for them (WaitGroup.Wait, as
// a pool's tasks run at WaitForAll), and before each of its operations
// on what they share (a channel, a lock, a Once, an atomic): those behind
// its clock run up to it, and their operations past it wait for its
// (mainCatchUp), so that every operation happens in the order of the
// clocks at which it is asked for. Goroutines the
// main thread never waits for run when the rank ends; its end does not
// wait for them (as a Go program's does not), and the run says so.
//
// In the modeled trace their operations are named as modelgen names them
// ("sync.WaitGroup.Wait"); a real run's trace has none of them (commlib
// does not see them), and validate's regions leave them out.
//
// Costs: Add and Done are atomics (CAS); Wait returns at the later of its
// clock plus CAS and the latest Done; Lock and RLock are taken at
// max(t, release) + TryLock; Unlock and RUnlock cost Release. Once.Do
// costs CAS; the first call runs its function to its end on the calling
// thread (as a critical section is run: it must not block), and a later
// call returns no earlier than that end.

package interp

import (
	"fmt"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// wgV is a sync.WaitGroup's state.
type wgV struct {
	id    int64
	count int
	last  int64 // the latest Done
}

// rwMutexV is a sync.RWMutex's state.
type rwMutexV struct {
	id       int64
	writer   bool  // held for writing
	readers  int   // holders for reading
	released int64 // the latest release, by a writer or a reader
	wrote    int64 // the latest writer's release
}

// onceV is a sync.Once's state.
type onceV struct {
	done bool
	end  int64 // when the first call's function returned
}

// spawnOp compiles a go statement: the goroutine's function and
// arguments are evaluated now, and it starts as a thread of the rank.
func (c *compiler) spawnOp(cf *function, in *ssa.Go) op {
	cc := &in.Call
	site := c.l.Pos(in.Pos()).String()
	if _, ok := cc.Value.(*ssa.Builtin); ok {
		return c.failOp(in, "go statement calling a builtin: not supported by the interpreter")
	}
	args := make([]operand, len(cc.Args))
	for i, a := range cc.Args {
		args[i] = c.operand(cf, a)
	}
	if cc.IsInvoke() {
		recv, method := c.operand(cf, cc.Value), cc.Method
		return func(p *proc, fr *frame) ctl {
			fn, self, msg := c.dynMethod(recv.get(fr), method)
			if msg != "" {
				return p.fail(site, "go statement: "+msg)
			}
			return p.spawn(fn, nil, append([]V{self}, evalArgs(args, fr)...), nil, nil, site)
		}
	}
	if f := cc.StaticCallee(); f != nil {
		fv := c.funcValue(f)
		if fv.fn == nil {
			return c.failOp(in, "go statement starting %s, a function outside the program: not supported by the interpreter", f)
		}
		fn := fv.fn
		env := c.closureEnv(cf, cc)
		return func(p *proc, fr *frame) ctl {
			return p.spawn(fn, evalArgs(env, fr), evalArgs(args, fr), nil, nil, site)
		}
	}
	fnv := c.operand(cf, cc.Value)
	return func(p *proc, fr *frame) ctl {
		cl := progFunc(fnv.get(fr))
		if cl == nil {
			return p.fail(site, "go statement: the goroutine's function is nil or not the program's")
		}
		return p.spawn(cl.fn, cl.env, evalArgs(args, fr), nil, nil, site)
	}
}

// dynMethod is the program's method that calling method on interface
// value r runs, and its receiver; msg says why there is none.
func (c *compiler) dynMethod(r V, method *types.Func) (fn *function, self V, msg string) {
	m, i, msg := c.methodOf(r, method)
	if msg != "" {
		return nil, V{}, msg
	}
	cl := c.funcValue(m)
	if cl.fn == nil {
		return nil, V{}, m.String() + " is outside the program: not supported by the interpreter"
	}
	return cl.fn, i.v, ""
}

// spawn starts a goroutine running fn(args) with free variables env; wg,
// if not nil, is the WaitGroup its end marks Done (WaitGroup.Go), and
// grp, if not nil, the errgroup its end reports to (errgroup.go).
func (p *proc) spawn(fn *function, env, args []V, wg *wgV, grp *groupV, site string) ctl {
	costs := &p.w.mach.Threads
	if !p.spend(int64(costs.Create), site, "go") {
		return cStop
	}
	start := addTime(p.cur.clock, int64(costs.Start))
	ts := p.threads
	if ts == nil {
		// Started by the main thread: it runs when the main thread
		// waits for it.
		if p.gos == nil {
			p.gos, p.gosSite = &threadSet{}, site
		}
		ts = p.gos
	}
	th := &thread{id: len(ts.threads), task: -1, wg: wg, group: grp}
	saved := p.cur
	th.clock = start
	p.cur = &th.exec
	c := p.call(fn, env, args, -1, site)
	p.cur = saved
	if c == cStop && p.err != nil {
		return cStop
	}
	ts.threads = append(ts.threads, th)
	if ts == p.threads || ts == p.gos {
		p.useCores(ts) // the main thread computes beside its goroutines from now on
	}
	return cNext
}

// goroutineEnd is the end of goroutine th, in its turn: errgroup's
// error and token (groupEnd), then its WaitGroup's Done (CAS). False when
// the run stops.
func (p *proc) goroutineEnd(th *thread) bool {
	if th.group != nil {
		p.groupEnd(th.group, th.ret)
	}
	th.ret = V{}
	if th.wg != nil {
		p.cur.clock = addTime(p.cur.clock, int64(p.w.mach.Threads.CAS))
		if p.wgAdd(th.wg, -1, "") == cStop {
			return false
		}
	}
	return true
}

// endGoroutines runs, when the rank ends, the goroutines its main thread
// did not wait for; the rank's end does not wait for them, and those that
// stay blocked (on a channel no one sends to) stay so, as in Go.
// An error they meet is p's (p.err).
func (p *proc) endGoroutines() {
	ts := p.gos
	if ts == nil {
		return
	}
	p.gos = nil
	p.runThreadsUntil(ts, nil) // their clocks are theirs: the main thread's stays
	for _, th := range ts.threads {
		if !th.done {
			p.w.noteAssumption(p.gosSite, "goroutines still running or blocked when their rank ended: the rank's end does not wait for them")
			break
		}
	}
}

// syncOf returns the state of the sync object recv points to, made by
// mk on first use, or nil when recv is nil.
func syncOf[T any](p *proc, recv V, mk func() *T) *T {
	s, _ := target(recv).(*structV)
	if s == nil {
		return nil
	}
	if p.syncs == nil {
		p.syncs = map[*structV]any{}
	}
	st, _ := p.syncs[s].(*T)
	if st == nil {
		st = mk()
		p.syncs[s] = st
	}
	return st
}

// progFunc is the program's function that v holds, or nil (a nil func, or
// one outside the program).
func progFunc(v V) *closure {
	if cl, _ := v.R.(*closure); cl != nil && cl.fn != nil {
		return cl
	}
	return nil
}

// followedSyncOp compiles a call of a followed sync or errgroup operation
// f, named name by modelgen.GoSyncOp.
func (c *compiler) followedSyncOp(name string, f *ssa.Function, args []operand, dst int, site string) op {
	if isErrgroupOp(name) {
		return c.errgroupOp(name, f, args, dst, site)
	}
	return c.goSyncOp(name, args, dst, site)
}

// goSyncOp compiles a call of a followed method of package sync (named as
// modelgen.GoSyncOp names it).
func (c *compiler) goSyncOp(name string, args []operand, dst int, site string) op {
	sid := c.siteID(site) // the burst of compute after the operation starts here (noise.go)
	costs := &c.cp.mach.Threads
	wg := func(p *proc, fr *frame) *wgV {
		return syncOf(p, args[0].get(fr), func() *wgV { return &wgV{id: p.w.newID()} })
	}
	mu := func(p *proc, fr *frame) *mutexV {
		return syncOf(p, args[0].get(fr), func() *mutexV { return &mutexV{id: p.w.newID()} })
	}
	rw := func(p *proc, fr *frame) *rwMutexV {
		return syncOf(p, args[0].get(fr), func() *rwMutexV { return &rwMutexV{id: p.w.newID()} })
	}
	nilRecv := func(p *proc) ctl {
		return p.fail(site, name+" on a nil pointer (invalid memory address or nil pointer dereference)")
	}
	switch name {
	case "sync.WaitGroup.Add", "sync.WaitGroup.Done":
		return func(p *proc, fr *frame) ctl {
			g := wg(p, fr)
			if g == nil {
				return nilRecv(p)
			}
			d := -1
			if name == "sync.WaitGroup.Add" {
				d = int(args[1].get(fr).I)
			}
			if !p.spend(int64(costs.CAS), site, name) {
				return cStop
			}
			return p.wgAdd(g, d, site)
		}
	case "sync.WaitGroup.Wait":
		return func(p *proc, fr *frame) ctl {
			if p.mustYield(sid) {
				return cYield // the ranks behind it first, as at WaitForAll
			}
			g := wg(p, fr)
			if g == nil {
				return nilRecv(p)
			}
			return p.wgWait(g, site, name)
		}
	case "sync.WaitGroup.Go":
		return func(p *proc, fr *frame) ctl {
			g := wg(p, fr)
			if g == nil {
				return nilRecv(p)
			}
			cl := progFunc(args[1].get(fr))
			if cl == nil {
				return p.fail(site, name+": the function is nil or not the program's")
			}
			if !p.spend(int64(costs.CAS), site, name) {
				return cStop
			}
			g.count++
			return p.spawn(cl.fn, cl.env, nil, g, nil, site)
		}
	case "sync.Mutex.Lock":
		return func(p *proc, fr *frame) ctl { return p.lock(mu(p, fr), site, name) }
	case "sync.Mutex.TryLock":
		return func(p *proc, fr *frame) ctl { return p.tryLock(mu(p, fr), fr, dst, site, name) }
	case "sync.Mutex.Unlock":
		return func(p *proc, fr *frame) ctl { return p.unlock(mu(p, fr), site, name) }
	case "sync.RWMutex.Lock", "sync.RWMutex.RLock", "sync.RWMutex.TryLock", "sync.RWMutex.TryRLock":
		read := name == "sync.RWMutex.RLock" || name == "sync.RWMutex.TryRLock"
		try := name == "sync.RWMutex.TryLock" || name == "sync.RWMutex.TryRLock"
		return func(p *proc, fr *frame) ctl {
			m := rw(p, fr)
			if m == nil {
				return nilRecv(p)
			}
			return p.rwLock(m, read, try, fr, dst, site, name)
		}
	case "sync.RWMutex.Unlock", "sync.RWMutex.RUnlock":
		read := name == "sync.RWMutex.RUnlock"
		return func(p *proc, fr *frame) ctl {
			m := rw(p, fr)
			if m == nil {
				return nilRecv(p)
			}
			return p.rwUnlock(m, read, site, name)
		}
	case "sync.Once.Do":
		return func(p *proc, fr *frame) ctl {
			o := syncOf(p, args[0].get(fr), func() *onceV { return &onceV{} })
			if o == nil {
				return nilRecv(p)
			}
			if c, wait := p.turn(); wait {
				return c
			}
			if !p.spend(int64(costs.CAS), site, name) {
				return cStop
			}
			if o.done {
				p.cur.clock = max(p.cur.clock, o.end)
				return cNext
			}
			// The first call runs f to its end in place, so that the
			// later callers return no earlier than it does.
			o.done = true
			end, ok := p.runInPlace(args[1].get(fr))
			if !ok {
				return cStop
			}
			p.cur.clock, o.end = end, end
			return cNext
		}
	}
	// modelgen.GoSyncOp names no other.
	return func(p *proc, fr *frame) ctl { return p.fail(site, name+" is not modeled") }
}

// wgAdd adds d to g's counter; at zero it wakes the threads waiting.
func (p *proc) wgAdd(g *wgV, d int, site string) ctl {
	g.count += d
	if g.count < 0 {
		return p.fail(site, "sync: negative WaitGroup counter (more Done than Add)")
	}
	if d < 0 {
		g.last = max(g.last, p.cur.clock)
	}
	if g.count == 0 {
		p.wake(g)
	}
	return cNext
}

// wgWait returns the running thread at the later of its clock plus CAS
// and g's latest Done, once g's counter is zero. The main thread first
// runs the goroutines it started; a goroutine waits until the counter
// reaches zero.
func (p *proc) wgWait(g *wgV, site, name string) ctl {
	enter := p.cur.clock
	if p.cur == &p.main && p.threads == nil {
		// The rank's goroutines run until the counter is zero; those
		// that are not done then go on later (a goroutine blocked for
		// good on a channel does not hold up a Wait that does not count
		// it, as in Go).
		if p.gos != nil {
			if _, ok := p.runThreadsUntil(p.gos, func() bool { return g.count == 0 }); !ok {
				return cStop
			}
		}
		if g.count > 0 {
			msg := fmt.Sprintf("sync.WaitGroup.Wait waits forever: its counter is %d once every goroutine of the rank that can run has run (an Add without its Done, or a deadlock)", g.count)
			if p.gos != nil {
				if stuck := p.gos.stuck(); stuck != "" {
					msg += ": " + stuck
				}
			}
			return p.fail(site, msg)
		}
	} else if g.count > 0 {
		if th := p.thisThread(); th != nil {
			th.blocked = g
			return cYield
		}
		return p.fail(site, fmt.Sprintf("sync.WaitGroup.Wait waits forever: its counter is %d and no goroutine runs", g.count))
	}
	end := max(addTime(enter, int64(p.w.mach.Threads.CAS)), g.last)
	if p.overflowed(end, site, name) {
		return cStop
	}
	p.advanceTo(end)
	p.traceThread(name, site, enter, g.id)
	return cNext
}

// rwLock takes m for reading (read) or writing at max(t, release) +
// TryLock: a reader after the latest writer's release, a writer after
// every holder's. try answers at once, in dst, whether it took m.
func (p *proc) rwLock(m *rwMutexV, read, try bool, fr *frame, dst int, site, name string) ctl {
	if c, wait := p.turn(); wait {
		return c
	}
	costs := &p.w.mach.Threads
	busy, since := m.writer || m.readers > 0, m.released
	if read {
		busy, since = m.writer, m.wrote
	}
	if try {
		if !p.spend(int64(costs.TryLock), site, name) {
			return cStop
		}
		ok := !busy && since <= p.cur.clock
		if ok {
			p.rwTake(m, read)
		}
		return set(fr, dst, boolV(ok))
	}
	if busy {
		if th := p.thisThread(); th != nil {
			th.blocked = m
			return cYield
		}
		if !p.mainWaits(func() bool {
			if read {
				return !m.writer
			}
			return !m.writer && m.readers == 0
		}, site, fmt.Sprintf("%s of RWMutex %d", name, m.id)) {
			return cStop
		}
		since = m.released
		if read {
			since = m.wrote
		}
	}
	enter, ok := p.acquire(since, site, name)
	if !ok {
		return cStop
	}
	p.rwTake(m, read)
	p.traceThread(name, site, enter, m.id)
	return cNext
}

func (p *proc) rwTake(m *rwMutexV, read bool) {
	if read {
		m.readers++
	} else {
		m.writer = true
	}
}

// rwUnlock releases m's read or write hold after Release and wakes the
// threads waiting for it.
func (p *proc) rwUnlock(m *rwMutexV, read bool, site, name string) ctl {
	if (read && m.readers == 0) || (!read && !m.writer) {
		return p.fail(site, name+" of an RWMutex not so locked")
	}
	enter := p.cur.clock
	if !p.spend(int64(p.w.mach.Threads.Release), site, name) {
		return cStop
	}
	m.released = max(m.released, p.cur.clock)
	if read {
		m.readers--
	} else {
		m.writer = false
		m.wrote = p.cur.clock
	}
	p.wake(m)
	p.traceThread(name, site, enter, m.id)
	return cNext
}
