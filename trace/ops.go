// This file defines what the writers need to know about operations: their
// class, which side of a message an event is, and the indexes that pair
// messages and requests.

package trace

import (
	"cmp"
	"slices"
	"strings"

	"github.com/predict-tools/predict/commlib/catalog"
)

// opClass is the family of an operation, as the writers present it.
type opClass int

const (
	classOther      opClass = iota // communicator queries, BufferAttach, ops unknown to this package
	classSend                      // blocking sends: Send, Ssend, Bsend, Rsend
	classRecv                      // Recv
	classSendrecv                  // one direction of a Sendrecv
	classIsend                     // nonblocking sends: Isend, Issend, Ibsend, Irsend
	classIrecv                     // Irecv
	classWait                      // Wait, Waitall, Waitany, Test
	classCollective                // collectives and communicator constructors
	classThread                    // pools, Parallel, mutexes, semaphores, thread barriers
	classCompute                   // compute fragments (KindCompute)
	classCoreWait                  // ready, waiting for a core (KindCoreWait)
)

// opClasses holds the class of every operation of commlib's catalog that
// the writers present as more than "other".
var opClasses = map[string]opClass{}

func init() {
	for _, o := range catalog.All() {
		if c := catalogClass(o); c != classOther {
			opClasses[o.TraceName()] = c
		}
	}
}

// catalogClass is the class of a catalog operation.
func catalogClass(o *catalog.Op) opClass {
	switch {
	case o.Class == catalog.ClassSend && o.Blocking:
		return classSend
	case o.Class == catalog.ClassSend:
		return classIsend
	case o.Class == catalog.ClassRecv && o.Blocking:
		return classRecv
	case o.Class == catalog.ClassRecv:
		return classIrecv
	case o.Class == catalog.ClassSendrecv:
		return classSendrecv
	case o.Class == catalog.ClassCompletion:
		return classWait
	case o.Class == catalog.ClassCollective, o.Class == catalog.ClassCommCreate:
		return classCollective
	case o.Class.Thread():
		return classThread
	}
	return classOther
}

// classOf returns the class of e. Operations the catalog does not class
// (foreign ones included) are classified by the ids they carry.
func classOf(e *Event) opClass {
	switch e.Kind {
	case KindCompute:
		return classCompute
	case KindCoreWait:
		return classCoreWait
	}
	if c, ok := opClasses[e.Op]; ok {
		return c
	}
	switch {
	case strings.Contains(e.Op, "."): // Mutex.Lock, Pool.WaitForAll, Barrier.Wait, ...
		return classThread
	case e.Collective != 0:
		return classCollective
	case e.Object != 0:
		return classThread
	}
	return classOther
}

// isSendSide reports whether e is the event of the sending call of its
// message: a send, a nonblocking send's start, or the send half of a
// Sendrecv. Completions of nonblocking sends are not: the message left at
// the start.
func isSendSide(e *Event) bool {
	if e.Kind != KindOp || e.Message == 0 {
		return false
	}
	switch classOf(e) {
	case classSend, classIsend:
		return true
	case classSendrecv:
		return e.Protocol != "" // the receive half has no protocol
	}
	return false
}

// isRecvSide reports whether e is the event at which its message was
// received: a Recv, the receive half of a Sendrecv, or the completion of an
// Irecv.
func isRecvSide(e *Event) bool {
	if e.Message == 0 {
		return false
	}
	switch classOf(e) {
	case classRecv:
		return e.Kind == KindOp
	case classSendrecv:
		return e.Kind == KindOp && e.Protocol == ""
	case classIrecv:
		return e.Kind == KindComplete
	}
	return false
}

// threadKey names one thread of one rank.
type threadKey struct{ rank, thread int }

// index relates the events of a trace: their order per thread, the two
// ends of each message and of each request. Events are referred to by their
// position in the slice it was built from.
type index struct {
	events  []Event
	threads []threadKey         // sorted by rank, then thread
	byThr   map[threadKey][]int // each in (Enter, Seq) order
	// msgs maps message ids to the sending and receiving event, -1 where
	// the trace lacks one.
	msgs map[int64]*msgEnds
	// reqs maps (rank, request id) to the starting call and the completion.
	reqs map[reqKey]*reqEnds
}

type msgEnds struct{ send, recv int }

type reqKey struct {
	rank int
	id   int64
}

type reqEnds struct{ start, complete int }

func newIndex(events []Event) *index {
	x := &index{events: events, byThr: map[threadKey][]int{}, msgs: map[int64]*msgEnds{}, reqs: map[reqKey]*reqEnds{}}
	for i := range events {
		e := &events[i]
		k := threadKey{e.Rank, e.Thread}
		if _, ok := x.byThr[k]; !ok {
			x.threads = append(x.threads, k)
		}
		x.byThr[k] = append(x.byThr[k], i)
		if e.Message != 0 {
			m := x.msgs[e.Message]
			if m == nil {
				m = &msgEnds{-1, -1}
				x.msgs[e.Message] = m
			}
			// The first event of each side in trace order wins; a second one
			// (a malformed trace) is ignored rather than trusted.
			if isSendSide(e) && m.send < 0 {
				m.send = i
			} else if isRecvSide(e) && m.recv < 0 {
				m.recv = i
			}
		}
		if e.Request != 0 {
			c := classOf(e)
			if e.Kind == KindOp && (c == classIsend || c == classIrecv) || e.Kind == KindComplete {
				k := reqKey{e.Rank, e.Request}
				r := x.reqs[k]
				if r == nil {
					r = &reqEnds{-1, -1}
					x.reqs[k] = r
				}
				if e.Kind == KindComplete && r.complete < 0 {
					r.complete = i
				} else if e.Kind == KindOp && r.start < 0 {
					r.start = i
				}
			}
		}
	}
	slices.SortFunc(x.threads, func(a, b threadKey) int {
		return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.thread, b.thread))
	})
	for _, list := range x.byThr {
		slices.SortStableFunc(list, func(a, b int) int {
			return cmp.Or(cmp.Compare(events[a].Enter, events[b].Enter), cmp.Compare(events[a].Seq, events[b].Seq))
		})
	}
	return x
}

// message returns the ends of the message of e, both present, or false.
func (x *index) message(id int64) (send, recv int, ok bool) {
	m := x.msgs[id]
	if m == nil || m.send < 0 || m.recv < 0 {
		return -1, -1, false
	}
	return m.send, m.recv, true
}

// request returns the start and completion of the request of rank with
// id, both present, or false.
func (x *index) request(rank int, id int64) (start, complete int, ok bool) {
	r := x.reqs[reqKey{rank, id}]
	if r == nil || r.start < 0 || r.complete < 0 {
		return -1, -1, false
	}
	return r.start, r.complete, true
}

// numRanks is the number of ranks of a trace: the header's, or one more
// than the largest rank of an event when that is larger.
func numRanks(h Header, events []Event) int {
	n := max(h.NP, 0)
	for i := range events {
		n = max(n, events[i].Rank+1)
	}
	return n
}
