// This file defines the synchronization primitives of threads inside a
// rank: semaphores, mutexes (critical sections), thread barriers, atomics.

package commlib

import (
	"math"
	"sync"
	"sync/atomic"

	"github.com/predict-tools/predict/trace"
)

// Semaphore is a counting semaphore shared by the threads of a rank.
type Semaphore struct {
	c       *Comm
	id      int64
	kind    string // "Semaphore" or "Mutex", for messages and traces
	mu      sync.Mutex
	permits int
	queue   waitQueue
}

// NewSemaphore creates a semaphore with the given number of permits.
func (c *Comm) NewSemaphore(permits int) *Semaphore {
	if permits < 0 {
		c.fail("NewSemaphore", "%d permits: want zero or more", permits)
	}
	return &Semaphore{c: c, id: c.w.nextObj.Add(1), kind: "Semaphore", permits: permits}
}

// Acquire blocks until n permits are available and takes them.
func (s *Semaphore) Acquire(n int) { s.acquire(s.kind+".Acquire", n) }

func (s *Semaphore) acquire(op string, n int) {
	c := s.c
	t0 := c.traceStart()
	if n < 1 {
		c.fail(op, "%d permits: want at least 1", n)
	}
	s.mu.Lock()
	ok := s.permits >= n
	if ok {
		s.permits -= n
	}
	s.mu.Unlock()
	if !ok {
		wt := c.w.newWaiter(c.p.rank, op)
		wt.thread = c.w.threadOf()
		c.w.await(wt, &s.mu, func(wt *waiter) bool {
			if s.permits >= n {
				s.permits -= n
				return true
			}
			s.queue.add(wt)
			return false
		})
		wt.release()
	}
	if c.w.tracer != nil {
		c.emit(t0, &trace.Event{Op: op, Peer: trace.NoPeer, Root: trace.NoPeer, Object: s.id, Bytes: int64(n)})
	}
}

// TryAcquire takes n permits if they are available now.
func (s *Semaphore) TryAcquire(n int) bool { return s.tryAcquire(s.kind+".TryAcquire", n) }

func (s *Semaphore) tryAcquire(op string, n int) bool {
	c := s.c
	t0 := c.traceStart()
	if n < 1 {
		c.fail(op, "%d permits: want at least 1", n)
	}
	s.mu.Lock()
	ok := s.permits >= n
	if ok {
		s.permits -= n
	}
	s.mu.Unlock()
	if c.w.tracer != nil && ok {
		c.emit(t0, &trace.Event{Op: op, Peer: trace.NoPeer, Root: trace.NoPeer, Object: s.id, Bytes: int64(n)})
	}
	return ok
}

// Release returns n permits.
func (s *Semaphore) Release(n int) { s.release(s.kind+".Release", n, -1) }

func (s *Semaphore) release(op string, n, limit int) {
	c := s.c
	t0 := c.traceStart()
	if n < 1 {
		c.fail(op, "%d permits: want at least 1", n)
	}
	s.mu.Lock()
	if limit >= 0 && s.permits+n > limit {
		s.mu.Unlock()
		c.fail(op, "unlock of a %s that is not locked", s.kind)
	}
	s.permits += n
	s.queue.wakeAll()
	s.mu.Unlock()
	if c.w.tracer != nil {
		c.emit(t0, &trace.Event{Op: op, Peer: trace.NoPeer, Root: trace.NoPeer, Object: s.id, Bytes: int64(n)})
	}
}

// Mutex is a lock (binary semaphore) guarding a critical section shared by
// the threads of a rank. Unlike sync.Mutex it takes part in deadlock
// detection and tracing, and the predictor models its contention.
type Mutex struct{ s Semaphore }

// NewMutex creates an unlocked mutex.
func (c *Comm) NewMutex() *Mutex {
	return &Mutex{s: Semaphore{c: c, id: c.w.nextObj.Add(1), kind: "Mutex", permits: 1}}
}

// Lock blocks until the mutex is free and takes it.
func (m *Mutex) Lock() { m.s.acquire("Mutex.Lock", 1) }

// TryLock takes the mutex if it is free now.
func (m *Mutex) TryLock() bool { return m.s.tryAcquire("Mutex.TryLock", 1) }

// Unlock frees the mutex; unlocking a free mutex is an error.
func (m *Mutex) Unlock() { m.s.release("Mutex.Unlock", 1, 1) }

// Critical runs f with the mutex held.
func (m *Mutex) Critical(f func()) {
	m.Lock()
	defer m.Unlock()
	f()
}

// Barrier is a reusable barrier for n threads of a rank.
type Barrier struct {
	c     *Comm
	id    int64
	n     int
	mu    sync.Mutex
	count int
	gen   int64
	queue waitQueue
}

// NewBarrier creates a barrier for n threads.
func (c *Comm) NewBarrier(n int) *Barrier {
	if n < 1 {
		c.fail("NewBarrier", "%d threads: want at least 1", n)
	}
	return &Barrier{c: c, id: c.w.nextObj.Add(1), n: n}
}

// Wait blocks until n threads have called Wait in this round.
func (b *Barrier) Wait() {
	c := b.c
	t0 := c.traceStart()
	b.mu.Lock()
	gen := b.gen
	b.count++
	last := b.count == b.n
	if last {
		b.count = 0
		b.gen++
		b.queue.wakeAll()
	}
	b.mu.Unlock()
	if !last {
		wt := c.w.newWaiter(c.p.rank, "Barrier.Wait")
		wt.thread = c.w.threadOf()
		c.w.await(wt, &b.mu, func(wt *waiter) bool {
			if b.gen != gen {
				return true
			}
			b.queue.add(wt)
			return false
		})
		wt.release()
	}
	if c.w.tracer != nil {
		c.emit(t0, &trace.Event{Op: "Barrier.Wait", Peer: trace.NoPeer, Root: trace.NoPeer, Object: b.id})
	}
}

// AtomicInt is an int64 updated atomically by the threads of a rank. The
// zero value is 0 and ready to use.
type AtomicInt struct{ v atomic.Int64 }

// Load returns the value.
func (a *AtomicInt) Load() int64 { return a.v.Load() }

// Store sets the value.
func (a *AtomicInt) Store(v int64) { a.v.Store(v) }

// Add adds d and returns the new value.
func (a *AtomicInt) Add(d int64) int64 { return a.v.Add(d) }

// Swap sets v and returns the old value.
func (a *AtomicInt) Swap(v int64) int64 { return a.v.Swap(v) }

// CompareAndSwap sets new if the value is old, and reports whether it did.
func (a *AtomicInt) CompareAndSwap(old, new int64) bool { return a.v.CompareAndSwap(old, new) }

// AtomicFloat is a float64 updated atomically by the threads of a rank.
// The zero value is 0 and ready to use.
type AtomicFloat struct{ bits atomic.Uint64 }

// Load returns the value.
func (a *AtomicFloat) Load() float64 { return math.Float64frombits(a.bits.Load()) }

// Store sets the value.
func (a *AtomicFloat) Store(v float64) { a.bits.Store(math.Float64bits(v)) }

// Add adds d and returns the new value.
func (a *AtomicFloat) Add(d float64) float64 {
	for {
		old := a.bits.Load()
		v := math.Float64frombits(old) + d
		if a.bits.CompareAndSwap(old, math.Float64bits(v)) {
			return v
		}
	}
}

// Swap sets v and returns the old value.
func (a *AtomicFloat) Swap(v float64) float64 {
	return math.Float64frombits(a.bits.Swap(math.Float64bits(v)))
}

// CompareAndSwap sets new if the value is old (compared bitwise), and
// reports whether it did.
func (a *AtomicFloat) CompareAndSwap(old, new float64) bool {
	return a.bits.CompareAndSwap(math.Float64bits(old), math.Float64bits(new))
}
