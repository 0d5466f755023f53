// This file defines a rank's thread scheduler (seed-003 §3.4, §4.1.2):
// its threads and pool, the locks, semaphores, barriers and atomics they
// share, and the order in which they run: interleaved, always the one with
// the smallest clock next, a thread about to take a lock, a semaphore or an
// atomic letting any thread with a smaller clock go first (threads.go
// defines the operations).

package interp

import (
	"fmt"
	"strings"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/trace"
)

// thread is a pool or Parallel worker of a rank.
type thread struct {
	exec
	id   int
	free int64 // when it can take the next task
	task int   // the pool task it runs, -1 when idle
	done bool
	// blocked is the mutex, semaphore or barrier it waits for.
	blocked any
	// passed is the barrier whose release woke it: its Wait returns.
	passed *barrierV
	// wg is the WaitGroup its end marks Done (a goroutine of
	// WaitGroup.Go), or nil.
	wg *wgV
	// group is the errgroup whose goroutine it is, or nil.
	group *groupV
	// ending: its function returned (ret) and its end, an operation on
	// wg or group, waits for its turn (goroutineEnd).
	ending bool
	ret    V
	// pend is its send waiting for a receiver; recvOn the channel it
	// waits to receive from; sel the channels of the select it waits in
	// (channels.go).
	pend   *pendingSend
	recvOn *chanV
	sel    *selectWait
}

// task is a pool task set by the master: it starts at set + Start.
type task struct {
	fn  V
	set int64
}

type poolV struct {
	workers []*thread
	queue   []task
	next    int       // the next task of queue to start
	results []float64 // by task
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
	waiting []*thread
	release int64 // when the last complete round left the barrier
}

type atomicV struct{ v V }

// threadSet is what a rank's scheduler runs: threads, and the pool whose
// queued tasks idle workers take.
type threadSet struct {
	threads []*thread
	pool    *poolV
	inPlace int // > 0 inside a critical section: no thread switches
	// coreFree are the times the rank's cores free, when its threads
	// outnumber them (cores.go); nil: a core each.
	coreFree []int64
	// share is how much of the profile's sharing its threads' node sees
	// (cores.go, threadShareOf), set when they start running.
	share float64
}

// startThread makes th run fn(args) from time start.
func (p *proc) startThread(th *thread, fn V, args []V, start int64) bool {
	cl, _ := fn.R.(*closure)
	if cl == nil || cl.fn == nil {
		p.fail("", "thread body is not a function of the program")
		return false
	}
	saved := p.cur
	th.clock, th.stack = start, nil
	p.cur = &th.exec
	c := p.call(cl.fn, cl.env, args, -1, "")
	p.cur = saved
	return c != cStop || p.err == nil
}

// candidate is the clock at which th would run next, and whether it can:
// a running thread at its clock, an idle pool worker when a task is
// queued, at the later of its free time and the task's start.
func (ts *threadSet) candidate(th *thread, start int64) (int64, bool) {
	switch {
	case th.done || th.blocked != nil:
		return 0, false
	case th.ending:
		return th.clock, true
	case th.stack != nil:
		return th.clock, true
	case ts.pool != nil && ts.pool.next < len(ts.pool.queue):
		return max(th.free, addTime(ts.pool.queue[ts.pool.next].set, start)), true
	}
	return 0, false
}

// first returns the thread that runs next: the smallest candidate clock,
// the lowest id on ties.
func (ts *threadSet) first(start int64) (*thread, int64) {
	var best *thread
	var at int64
	for _, th := range ts.threads {
		if t, ok := ts.candidate(th, start); ok && (best == nil || t < at) {
			best, at = th, t
		}
	}
	return best, at
}

// runThreads runs the threads of ts until every one is done (and, for a
// pool, every queued task has run).
func (p *proc) runThreads(ts *threadSet) bool {
	if _, ok := p.runThreadsUntil(ts, nil); !ok {
		return false
	}
	if stuck := ts.stuck(); stuck != "" {
		p.fail("", "deadlock among the threads of the rank: "+stuck)
		return false
	}
	return true
}

// stuck lists the threads of ts that wait for an object, or is empty.
func (ts *threadSet) stuck() string {
	var stuck []string
	for _, th := range ts.threads {
		if th.blocked != nil {
			stuck = append(stuck, fmt.Sprintf("thread %d (clock %s) waits for %s", th.id, trace.Time(th.clock), objectName(th.blocked)))
		}
	}
	return strings.Join(stuck, "; ")
}

// runThreadsUntil runs the threads of ts, one step of the earliest at a
// time, until until (when not nil) holds, which it reports, or none can
// run; the threads keep their state (blocked ones stay blocked). The
// second result is false when the run stops (an error).
func (p *proc) runThreadsUntil(ts *threadSet, until func() bool) (bool, bool) {
	saved, savedTid, savedSet := p.cur, p.curThread, p.threads
	defer func() { p.cur, p.curThread, p.threads = saved, savedTid, savedSet }()
	p.threads = ts
	p.useCores(ts)
	start := int64(p.w.mach.Threads.Start)
	for {
		if until != nil && until() {
			return true, true
		}
		th, at := ts.first(start)
		if th == nil {
			break
		}
		if th.ending {
			// A goroutine's end (WaitGroup.Go's Done, errgroup's error
			// and token), taken at its clock in turn with the others.
			p.cur, p.curThread = &th.exec, th.id+1
			th.ending, th.done = false, true
			if !p.goroutineEnd(th) {
				return false, false
			}
			continue
		}
		if th.stack == nil {
			// An idle worker takes the next task.
			pool := ts.pool
			k := pool.next
			pool.next++
			th.task = k
			if !p.startThread(th, pool.queue[k].fn, []V{intV(int64(th.id))}, at) {
				return false, false
			}
		}
		p.cur, p.curThread = &th.exec, th.id+1
		switch p.step() {
		case cStop:
			if p.err != nil {
				return false, false
			}
			// The thread's function returned.
			th.free = th.clock
			if pool := ts.pool; pool != nil && th.task >= 0 {
				pool.results[th.task] = p.result.F()
				pool.end = max(pool.end, th.clock)
				th.task = -1
			} else if th.wg != nil || th.group != nil {
				// Its Done (and errgroup's token) are operations on
				// objects the other threads share: they happen in turn,
				// at its clock, after what the threads before it do.
				th.ending, th.ret = true, p.result
			} else {
				th.done = true
			}
		case cBlock:
			p.fail("", "a thread or goroutine of the rank blocked in communication: not modeled (only the rank's main goroutine may communicate)")
			return false, false
		}
		// cYield: it waits for a lock or for a thread with a smaller
		// clock; the loop picks the next one.
	}
	return until != nil && until(), true
}

// advanceTo moves the running thread's clock to t (not back); on the main
// thread the wait is for its threads (a pool's WaitForAll, Parallel, a
// WaitGroup, a channel): their work is the rank's compute.
func (p *proc) advanceTo(t int64) {
	if t <= p.cur.clock {
		return
	}
	if p.cur == &p.main {
		p.mainResumes(t)
		return
	}
	p.cur.clock = t
}

// mainResumes moves the main thread to t: the wait for its goroutines is
// the rank's compute (their work), as at a WaitGroup's Wait.
func (p *proc) mainResumes(t int64) {
	if d := t - p.main.clock; d > 0 {
		p.compute += d
		p.joined += d
		p.main.clock = t
	}
}

// objectName names a lock, semaphore or barrier for errors.
func objectName(o any) string {
	switch o := o.(type) {
	case *mutexV:
		return fmt.Sprintf("mutex %d", o.id)
	case *semV:
		return fmt.Sprintf("semaphore %d", o.id)
	case *barrierV:
		return fmt.Sprintf("barrier %d", o.id)
	case *chanV:
		return fmt.Sprintf("channel %d", o.id)
	case *selectWait:
		return "a select"
	case *wgV:
		return fmt.Sprintf("WaitGroup %d (counter %d)", o.id, o.count)
	case *rwMutexV:
		return fmt.Sprintf("RWMutex %d", o.id)
	}
	return "an object"
}

// thisThread is the running thread, or nil on the rank's main thread.
func (p *proc) thisThread() *thread {
	if p.threads == nil || p.cur == &p.main || p.threads.inPlace > 0 {
		return nil
	}
	for _, th := range p.threads.threads {
		if &th.exec == p.cur {
			return th
		}
	}
	return nil
}

// letEarlierGo reports whether the running thread must let a thread with
// a smaller clock (or an equal one and a lower id) go first before it
// takes a lock or touches an atomic.
func (p *proc) letEarlierGo() bool {
	me := p.thisThread()
	if me == nil {
		return false
	}
	start := int64(p.w.mach.Threads.Start)
	for _, th := range p.threads.threads {
		if th == me {
			continue
		}
		if t, ok := p.threads.candidate(th, start); ok && (t < me.clock || (t == me.clock && th.id < me.id)) {
			return true
		}
	}
	// The main thread catching up on its goroutines asked at its clock
	// (first on ties).
	return p.mainAsks && p.threads == p.gos && p.main.clock <= me.clock
}

// wake makes the threads waiting for o runnable again.
func (p *proc) wake(o any) {
	ts := p.threads
	if ts == nil {
		ts = p.gos // the main thread woke goroutines waiting for it
	}
	if ts == nil {
		return
	}
	for _, th := range ts.threads {
		if th.blocked == o {
			th.blocked = nil
		} else if w, ok := th.blocked.(*selectWait); ok {
			for _, ch := range w.chans {
				if ch != nil && ch == o {
					th.blocked = nil
				}
			}
		}
	}
}
