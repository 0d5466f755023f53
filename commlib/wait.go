// This file defines how ranks and threads block inside commlib, and the
// accounting that turns "everyone is blocked" into a deadlock report.

package commlib

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// A waiter is one blocked call of one goroutine. The protocol that makes
// blocking lose no wake-up:
//
//	for {
//		wt.arm()
//		if condition holds (checked under the lock of each object that could
//		change it, registering wt with each such object otherwise) {
//			wt.disarm(); break
//		}
//		wt.park()
//	}
//
// An object whose state changes calls unpark on its registered waiters.
// unpark counts the waiter as running again before it wakes it, so the
// world's running count reaches zero only when every tracked goroutine is
// parked and nothing can wake any of them: a deadlock.
type waiter struct {
	w      *world
	ch     chan struct{} // holds at most one wake-up token
	asleep atomic.Bool

	// What the call waits for, for deadlock reports.
	rank   int
	thread int  // 0 main, 1+tid pool thread
	idle   bool // a pool worker waiting for tasks: not part of a deadlock
	op     string
	peer   int // comm rank waited for, AnySource, or waitNoPeer
	tag    int
	comm   *commShared
	coll   *collInstance
	pcs    [12]uintptr
	npcs   int
}

var waiterPool = sync.Pool{New: func() any { return &waiter{ch: make(chan struct{}, 1)} }}

// newWaiter returns a waiter for a blocking call of op by the rank of c.
func (w *world) newWaiter(rank int, op string) *waiter {
	wt := waiterPool.Get().(*waiter)
	wt.w, wt.rank, wt.op = w, rank, op
	wt.thread, wt.idle, wt.peer, wt.tag, wt.comm, wt.coll = 0, false, waitNoPeer, 0, nil, nil
	// Skip runtime.Callers, newWaiter and its caller inside commlib: the
	// site is resolved later, skipping the remaining commlib frames.
	wt.npcs = runtime.Callers(3, wt.pcs[:])
	return wt
}

// release returns wt to the pool; it must not be registered anywhere.
func (wt *waiter) release() {
	wt.comm, wt.coll = nil, nil
	waiterPool.Put(wt)
}

func (wt *waiter) arm() { wt.asleep.Store(true) }

// disarm undoes arm when the condition already holds. An unpark that raced
// with the check has counted wt as running and left a token: take both back.
func (wt *waiter) disarm() {
	if !wt.asleep.CompareAndSwap(true, false) {
		<-wt.ch
		wt.w.running.Add(-1)
	}
}

// park blocks until unpark, or unwinds the goroutine when the run aborts.
func (wt *waiter) park() {
	w := wt.w
	w.parked.Store(wt, struct{}{})
	if w.running.Add(-1) == 0 {
		select {
		case w.suspect <- struct{}{}:
		default:
		}
	}
	if wt.spin() {
		w.parked.Delete(wt)
		return
	}
	w.giveTurn()
	select {
	case <-wt.ch:
		w.parked.Delete(wt)
		w.takeTurn()
	case <-w.aborted:
		w.parked.Delete(wt)
		panic(abortUnwind{})
	}
}

// spin polls for wt's wake-up token for up to the world's spin time,
// while fewer tracked goroutines run than there are Ps (a polling call
// then takes no core another goroutine of the run could use), and reports
// whether the token came. The token's sender then wakes no parked
// goroutine: see DefaultSpinWait for why that matters. While it polls the
// call counts as parked, as for the deadlock watch.
func (wt *waiter) spin() bool {
	w := wt.w
	if w.spin <= 0 {
		return false
	}
	var deadline time.Time
	for i := 0; ; i++ {
		select {
		case <-wt.ch:
			return true
		case <-w.aborted:
			return false
		default:
		}
		if w.running.Load() >= w.maxProcs {
			return false
		}
		// Let a goroutine readied on this P (the releaser of another
		// waiter) run at once rather than after the poll.
		runtime.Gosched()
		if i%16 == 0 {
			now := time.Now()
			if i == 0 {
				deadline = now.Add(w.spin)
			} else if now.After(deadline) {
				return false
			}
		}
	}
}

// unpark wakes wt if it is armed; stale or repeated calls do nothing.
func (wt *waiter) unpark() {
	if wt.asleep.CompareAndSwap(true, false) {
		wt.w.running.Add(1)
		wt.w.progress.Add(1)
		wt.ch <- struct{}{}
	}
}

// waitQueue is a set of waiters registered with one object, guarded by the
// object's lock.
type waitQueue []*waiter

func (q *waitQueue) add(wt *waiter) {
	for _, x := range *q {
		if x == wt {
			return
		}
	}
	*q = append(*q, wt)
}

// wakeAll unparks every registered waiter and empties the queue.
func (q *waitQueue) wakeAll() {
	for i, wt := range *q {
		wt.unpark()
		(*q)[i] = nil
	}
	*q = (*q)[:0]
}

// remove drops wt from the queue.
func (q *waitQueue) remove(wt *waiter) {
	for i, x := range *q {
		if x == wt {
			*q = append((*q)[:i], (*q)[i+1:]...)
			return
		}
	}
}

// await blocks the calling goroutine until ready returns true. ready is
// called with lock held; when it returns false it must have registered wt
// with every object that could make it true (still under lock).
func (w *world) await(wt *waiter, lock sync.Locker, ready func(wt *waiter) bool) {
	for {
		wt.arm()
		lock.Lock()
		ok := ready(wt)
		lock.Unlock()
		if ok {
			wt.disarm()
			return
		}
		wt.park()
	}
}

// waitNoPeer marks a waiter that waits for no particular rank.
const waitNoPeer = -1000
