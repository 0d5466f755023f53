// This file defines the thread pool of a rank and Parallel: the fork/join
// part of the hybrid model (the thread library of ParJava's Appendix 1).

package commlib

import (
	"sync"

	"github.com/predict-tools/predict/trace"
)

// Pool is a rank's fixed set of worker threads. The rank's main thread
// queues tasks with SetTask; the first free worker runs each; WaitForAll
// waits for the group of tasks queued since the last WaitForAll and
// returns the reduction of their values. A rank has at most one pool.
type Pool struct {
	c  *Comm
	id int64
	n  int

	mu          sync.Mutex
	op          Op
	queue       []poolTask
	results     []float64 // values of the current group, by submission order
	outstanding int       // tasks of the current group not finished
	idle        waitQueue // workers waiting for a task
	waitAll     waitQueue // WaitForAll waiting for the group
	closed      bool
	exited      sync.WaitGroup
}

type poolTask struct {
	index int
	run   func(tid int) float64
}

// NewPool creates the rank's pool of n worker threads.
func (c *Comm) NewPool(n int) *Pool {
	t0 := c.traceStart()
	if n < 1 {
		c.fail("NewPool", "%d threads: want at least 1", n)
	}
	if c.p.pool != nil {
		c.fail("NewPool", "this rank already has a pool of %d threads: a rank has one pool, created once", c.p.pool.n)
	}
	p := &Pool{c: c, id: c.w.nextObj.Add(1), n: n, op: Sum}
	c.p.pool = p
	c.w.running.Add(int64(n))
	p.exited.Add(n)
	for tid := range n {
		go p.worker(tid)
	}
	if c.w.tracer != nil {
		c.emit(t0, &trace.Event{Op: "NewPool", Peer: trace.NoPeer, Root: trace.NoPeer, Object: p.id})
	}
	return p
}

// Size returns the number of worker threads.
func (p *Pool) Size() int { return p.n }

// SetReduceOp sets how WaitForAll combines task values (Sum by default).
func (p *Pool) SetReduceOp(op Op) {
	if !floatOps(op) {
		p.c.fail("Pool.SetReduceOp", "operator %v does not apply to float64 task values", op)
	}
	p.mu.Lock()
	p.op = op
	p.mu.Unlock()
}

// SetTask queues a task. tid is the id (0..Size()-1) of the worker that
// runs it; its value is combined by WaitForAll.
func (p *Pool) SetTask(task func(tid int) float64) {
	t0 := p.c.traceStart()
	if task == nil {
		p.c.fail("Pool.SetTask", "nil task")
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		p.c.fail("Pool.SetTask", "the pool is closed")
	}
	p.queue = append(p.queue, poolTask{index: len(p.results), run: task})
	p.results = append(p.results, 0)
	p.outstanding++
	if len(p.idle) > 0 {
		wt := p.idle[0]
		p.idle = p.idle[1:]
		wt.unpark()
	}
	p.mu.Unlock()
	if p.c.w.tracer != nil {
		p.c.emit(t0, &trace.Event{Op: "Pool.SetTask", Peer: trace.NoPeer, Root: trace.NoPeer, Object: p.id})
	}
}

// WaitForAll blocks until every task queued since the last WaitForAll has
// finished and returns their values combined with the reduce operator, in
// submission order (0 when there were none).
func (p *Pool) WaitForAll() float64 {
	t0 := p.c.traceStart()
	v := p.waitGroup("Pool.WaitForAll")
	if p.c.w.tracer != nil {
		p.c.emit(t0, &trace.Event{Op: "Pool.WaitForAll", Peer: trace.NoPeer, Root: trace.NoPeer, Object: p.id})
	}
	return v
}

func (p *Pool) waitGroup(op string) float64 {
	wt := p.c.w.newWaiter(p.c.p.rank, op)
	wt.thread = p.c.w.threadOf()
	p.c.w.await(wt, &p.mu, func(wt *waiter) bool {
		if p.outstanding == 0 {
			return true
		}
		p.waitAll.add(wt)
		return false
	})
	wt.release()
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.results) == 0 {
		return 0
	}
	acc := p.results[0]
	for _, v := range p.results[1:] {
		acc = reduceFloat64(p.op, acc, v)
	}
	p.results = p.results[:0]
	return acc
}

// Close waits for the queued tasks and stops the workers. A rank's pool is
// closed when its body returns.
func (p *Pool) Close() {
	p.mu.Lock()
	closed := p.closed
	p.mu.Unlock()
	if closed {
		return
	}
	p.waitGroup("Pool.Close")
	p.mu.Lock()
	p.closed = true
	p.idle.wakeAll()
	p.mu.Unlock()
	p.c.w.giveTurn() // the workers need their turns to end
	p.exited.Wait()
	p.c.w.takeTurn()
}

func (p *Pool) worker(tid int) {
	w := p.c.w
	defer p.exited.Done()
	defer w.goroutineDone()
	defer w.recoverRank(p.c.p.rank, 1+tid)
	w.takeTurn()
	defer w.giveTurn()
	w.registerThread(1 + tid)
	defer w.unregisterThread()
	wt := w.newWaiter(p.c.p.rank, "waiting for a task")
	wt.idle, wt.thread = true, 1+tid
	defer wt.release()
	for {
		var task poolTask
		var ok bool
		w.await(wt, &p.mu, func(wt *waiter) bool {
			if len(p.queue) > 0 {
				task, ok = p.queue[0], true
				p.queue = p.queue[1:]
				return true
			}
			if p.closed {
				return true
			}
			p.idle.add(wt)
			return false
		})
		if !ok {
			return
		}
		v := task.run(tid)
		p.mu.Lock()
		p.results[task.index] = v
		p.outstanding--
		if p.outstanding == 0 {
			p.waitAll.wakeAll()
		}
		p.mu.Unlock()
	}
}

// Parallel runs body(tid) for tid 0..n-1 on n threads and returns when all
// have finished (fork/join).
func (c *Comm) Parallel(n int, body func(tid int)) {
	t0 := c.traceStart()
	if n < 1 {
		c.fail("Parallel", "%d threads: want at least 1", n)
	}
	w := c.w
	var mu sync.Mutex
	var done waitQueue
	remaining := n
	w.running.Add(int64(n))
	for tid := range n {
		go func() {
			defer w.goroutineDone()
			defer func() {
				mu.Lock()
				remaining--
				if remaining == 0 {
					done.wakeAll()
				}
				mu.Unlock()
			}()
			defer w.recoverRank(c.p.rank, 1+tid)
			w.takeTurn()
			defer w.giveTurn()
			w.registerThread(1 + tid)
			defer w.unregisterThread()
			body(tid)
		}()
	}
	wt := w.newWaiter(c.p.rank, "Parallel")
	wt.thread = w.threadOf()
	w.await(wt, &mu, func(wt *waiter) bool {
		if remaining == 0 {
			return true
		}
		done.add(wt)
		return false
	})
	wt.release()
	if w.tracer != nil {
		c.emit(t0, &trace.Event{Op: "Parallel", Peer: trace.NoPeer, Root: trace.NoPeer})
	}
}
