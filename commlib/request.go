// This file defines requests of nonblocking operations and the calls that
// wait for them.

package commlib

import (
	"sync"

	"github.com/predict-tools/predict/trace"
)

// Status describes a received message: its source rank in the
// communicator, its tag and its number of elements.
type Status struct {
	Source int
	Tag    int
	Count  int
}

// Request is a nonblocking operation in progress. It belongs to the rank
// that started it; Wait, Waitall, Waitany or a successful Test completes it,
// after which it is inactive and waiting on it again returns at once.
type Request struct {
	id    int64
	owner *Comm
	op    string
	send  bool
	proto protocol

	comm   int
	source int // receives: requested source; sends: destination
	tag    int
	buf    any
	kind   elemKind
	n      int

	mu       sync.Mutex
	done     bool
	status   Status
	msgID    int64
	problem  string // found when matched: type mismatch or truncation, raised at the owner
	waiter   *waiter
	consumed bool

	native any // the transport's state of the request; nil in-process
}

// complete marks r done and wakes its waiter.
func (r *Request) complete(st Status, msgID int64, problem string) {
	r.mu.Lock()
	r.done, r.status, r.problem = true, st, problem
	if msgID != 0 { // a send's message id is set when it starts
		r.msgID = msgID
	}
	wt := r.waiter
	r.waiter = nil
	r.mu.Unlock()
	if wt != nil {
		wt.unpark()
	}
}

func (r *Request) isDone() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.done
}

func (r *Request) bytes() int64 { return int64(r.n * kinds[r.kind].size) }

func (r *Request) protocolName() string {
	if !r.send {
		return ""
	}
	return protocolNames[r.proto]
}

// active reports whether r still needs completing by the calling rank.
func (c *Comm) active(op string, r *Request) bool {
	if r == nil {
		return false
	}
	if r.owner.p != c.p {
		c.fail(op, "the request was started by rank %d; only the rank that started a request may complete it", r.owner.p.rank)
	}
	return !r.consumed
}

// awaitRequests blocks until all (or, with any, one) of reqs are done.
// Inactive requests are skipped.
func (c *Comm) awaitRequests(op string, reqs []*Request, any bool) {
	if c.w.tr != nil {
		c.w.tr.wait(c, op, reqs, any)
		return
	}
	ready := func(wt *waiter) bool {
		pending := 0
		for _, r := range reqs {
			if r == nil || r.consumed {
				continue
			}
			r.mu.Lock()
			if r.done {
				r.mu.Unlock()
				if any {
					return true
				}
				continue
			}
			r.waiter = wt
			r.mu.Unlock()
			pending++
			if wt.peer == waitNoPeer {
				wt.peer, wt.tag = r.source, r.tag
			}
		}
		return pending == 0
	}
	wt := c.w.newWaiter(c.p.rank, op)
	wt.comm = c.sh
	c.w.await(wt, noLock{}, ready)
	for _, r := range reqs {
		if r != nil {
			r.mu.Lock()
			if r.waiter == wt {
				r.waiter = nil
			}
			r.mu.Unlock()
		}
	}
	wt.release()
}

// noLock is for waits whose condition takes its own locks.
type noLock struct{}

func (noLock) Lock()   {}
func (noLock) Unlock() {}

// finish consumes a completed request, raises a problem found when it was
// matched, and returns its status.
func (c *Comm) finish(op string, r *Request) Status {
	r.mu.Lock()
	st, problem := r.status, r.problem
	r.consumed = true
	r.mu.Unlock()
	if problem != "" {
		c.fail(op, "%s", problem)
	}
	return st
}

// Wait blocks until r completes and returns its status (for receives, the
// message's source, tag and count). A nil or inactive request returns at
// once with an empty status.
func (c *Comm) Wait(r *Request) Status {
	if !c.active("Wait", r) {
		return Status{Source: ProcNull, Tag: AnyTag}
	}
	t0 := c.traceStart()
	if !r.isDone() {
		c.awaitRequests("Wait", []*Request{r}, false)
	}
	st := c.finish("Wait", r)
	if c.w.tracer != nil {
		at := c.emit(t0, &trace.Event{Op: "Wait", Peer: trace.NoPeer, Root: trace.NoPeer, Request: r.id})
		c.emitCompletion(r, st, at)
	}
	return st
}

// Waitall blocks until every request completes and returns their statuses
// in order. Nil and inactive requests get an empty status.
func (c *Comm) Waitall(reqs []*Request) []Status {
	t0 := c.traceStart()
	for _, r := range reqs {
		c.active("Waitall", r)
	}
	c.awaitRequests("Waitall", reqs, false)
	sts := make([]Status, len(reqs))
	var completed []*Request
	for i, r := range reqs {
		if r == nil || r.consumed {
			sts[i] = Status{Source: ProcNull, Tag: AnyTag}
			continue
		}
		sts[i] = c.finish("Waitall", r)
		completed = append(completed, r)
	}
	if c.w.tracer != nil {
		at := c.emit(t0, &trace.Event{Op: "Waitall", Peer: trace.NoPeer, Root: trace.NoPeer, Requests: requestIDs(completed)})
		for _, r := range completed {
			c.emitCompletion(r, r.status, at)
		}
	}
	return sts
}

// Waitany blocks until one of the active requests completes and returns its
// index and status; with no active request it returns -1.
func (c *Comm) Waitany(reqs []*Request) (int, Status) {
	t0 := c.traceStart()
	var live []*Request
	for _, r := range reqs {
		if c.active("Waitany", r) {
			live = append(live, r)
		}
	}
	if len(live) == 0 {
		return -1, Status{Source: ProcNull, Tag: AnyTag}
	}
	c.awaitRequests("Waitany", reqs, true)
	for i, r := range reqs {
		if r == nil || r.consumed || !r.isDone() {
			continue
		}
		st := c.finish("Waitany", r)
		if c.w.tracer != nil {
			at := c.emit(t0, &trace.Event{Op: "Waitany", Peer: trace.NoPeer, Root: trace.NoPeer, Request: r.id,
				Requests: requestIDs(live)})
			c.emitCompletion(r, st, at)
		}
		return i, st
	}
	panic("commlib: Waitany woke with no completed request")
}

// Test reports whether r has completed, without blocking; if so it returns
// the status and r becomes inactive. A nil or inactive request tests true.
func (c *Comm) Test(r *Request) (bool, Status) {
	if !c.active("Test", r) {
		return true, Status{Source: ProcNull, Tag: AnyTag}
	}
	t0 := c.traceStart()
	if c.w.tr != nil && !r.done {
		c.w.tr.test(c, r)
	}
	if !r.isDone() {
		if c.w.tracer != nil {
			c.emit(t0, &trace.Event{Op: "Test", Peer: trace.NoPeer, Root: trace.NoPeer, Request: r.id})
		}
		return false, Status{}
	}
	st := c.finish("Test", r)
	if c.w.tracer != nil {
		at := c.emit(t0, &trace.Event{Op: "Test", Peer: trace.NoPeer, Root: trace.NoPeer, Request: r.id})
		c.emitCompletion(r, st, at)
	}
	return true, st
}

func requestIDs(reqs []*Request) []int64 {
	ids := make([]int64, len(reqs))
	for i, r := range reqs {
		ids[i] = r.id
	}
	return ids
}
