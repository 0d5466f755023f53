// This file defines the recycling of messages and requests: a
// communication-bound run makes one of each per message, and handing them
// back to per-world free lists keeps the run free of allocation (and of
// the garbage collector's work) once the lists are warm. Frames of
// returned calls (exec.go) and finished collective instances (coll.go)
// are recycled too, under the same modes.
//
// Ownership makes reuse safe. Only what the program can never reach is
// recycled: the requests of blocking calls (Send, Recv, Sendrecv and
// their variants), which live in the process's wait and nowhere else, and
// a message once neither of its ends can read it. A request the program
// holds (Isend, Irecv: a value in a slot, a slice passed to Waitall) is
// never taken back, nor is a message such a request refers to: the
// garbage collector frees those. So:
//
//   - a blocking call's request is taken back when the call's wait ends,
//     after its trace and status are made (proc.endWait);
//   - a message starts with two holds, its sender's request and the
//     receive that matches it; each end lets go when its blocking call's
//     wait ends, and the message is recycled when both have.
//
// Tests check this (recycle_test.go): a run that recycles, one that
// never does, and one in which released objects are poisoned (filled with
// values that would change any result they reached) rather than reused
// must give identical results and traces.

package interp

import "math"

// recycling says what becomes of released objects; tests change it.
var recycling = recycleOn

const (
	recycleOn     = iota // to the free lists
	recycleOff           // left to the garbage collector
	recyclePoison        // poisoned, left to the garbage collector
)

// popFree takes the last object off a free list, or returns nil.
func popFree[T any](free *[]*T) *T {
	n := len(*free)
	if n == 0 {
		return nil
	}
	x := (*free)[n-1]
	(*free)[n-1] = nil
	*free = (*free)[:n-1]
	return x
}

// newMessage returns a message with its two holds, recycled if one is
// free.
func (w *World) newMessage() *message {
	m := popFree(&w.freeMsgs)
	if m == nil {
		m = &message{}
	}
	m.holds = 2
	return m
}

// newRequest returns a request to fill, recycled if one is free.
func (w *World) newRequest() *request {
	if r := popFree(&w.freeReqs); r != nil {
		return r
	}
	return &request{}
}

// endWait takes back the requests of a blocking call whose wait has ended.
func (w *World) endWait(reqs []*request) {
	for _, r := range reqs {
		if r.blocking {
			w.release(r)
		}
	}
}

// release takes back a blocking call's request: a receive's request is
// recycled and lets go of its message; a send's request lives in its
// message, which it lets go of.
func (w *World) release(r *request) {
	if recycling == recycleOff {
		return
	}
	if r.owner == nil {
		panic("interp: a request released twice")
	}
	if !r.recv {
		if m := r.sendMsg; m != nil { // nil: a send to ProcNull
			w.letGo(m)
		}
		return
	}
	m := r.msg
	if recycling == recyclePoison {
		*r = poisonRequest
	} else {
		*r = request{}
		w.freeReqs = append(w.freeReqs, r)
	}
	if m != nil {
		w.letGo(m)
	}
}

// letGo drops one hold of m and recycles it when none is left.
func (w *World) letGo(m *message) {
	m.holds--
	switch {
	case m.holds > 0:
		return
	case m.holds < 0:
		panic("interp: a message released more often than it is held")
	}
	if recycling == recyclePoison {
		*m = poisonMessage
		return
	}
	clear(m.data)
	spare := m.data[:0]
	if spare == nil {
		spare = m.spare
	}
	*m = message{spare: spare}
	w.freeMsgs = append(w.freeMsgs, m)
}

// Poison: impossible ids, times and ranks, no owner, no group, no data; a
// poisoned request refers to a poisoned message (a status or trace made
// from it shows).
const poison = math.MinInt64 / 4

var (
	poisonMessage = message{id: poison, start: poison, arrive: poison, bytes: poison, src: -7, dst: -7, tag: -7, count: -7,
		srcWorld: -7, protocol: "released", site: "released", holds: -100}
	poisonValue   = V{I: poison, R: &poisonMessage}
	poisonRequest = request{id: poison, doneAt: poison, src: -7, tag: -7, op: "released", site: "released",
		msg: &poisonMessage, sendMsg: &poisonMessage}
)
