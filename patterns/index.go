// This file defines the index of a trace: valid events per thread, and the
// links between them (messages, requests, waits, collective instances).

package patterns

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/predict-tools/predict/commlib/catalog"
	"github.com/predict-tools/predict/trace"
)

// maxWarnings bounds the warnings a report lists.
const maxWarnings = 20

// maxRanks bounds the ranks of a trace (the per-rank tables are dense).
const maxRanks = 1 << 24

// threadKey names a thread of a rank.
type threadKey struct{ rank, thread int }

// requestKey names a request of a rank.
type requestKey struct {
	rank    int
	request int64
}

// objectKey names a thread primitive object of a rank.
type objectKey struct {
	rank   int
	object int64
}

// index holds the valid events of a trace and their links. Pointers point
// into events, which is a private copy.
type index struct {
	events   []trace.Event
	np       int
	span     trace.Time                   // the last exit
	ends     []trace.Time                 // per rank, the last exit of its events
	threads  map[threadKey][]*trace.Event // op and compute events, by enter then seq
	sends    map[int64]*trace.Event       // message -> the call that sent it
	recvs    map[int64]*trace.Event       // message -> Recv, Sendrecv half or Irecv completion
	posts    map[requestKey]*trace.Event  // request -> the nonblocking call that started it
	complete map[requestKey]*trace.Event  // request -> its completion
	waitOf   map[*trace.Event]*trace.Event
	// completed lists, per Wait, Waitall, Waitany or Test call, the
	// completions it observed.
	completed   map[*trace.Event][]*trace.Event
	collectives map[int64][]*trace.Event

	warnings []string
	dropped  int
}

// warnf records a warning about event e (nil for none).
func (x *index) warnf(e *trace.Event, format string, args ...any) {
	if len(x.warnings) >= maxWarnings {
		x.dropped++
		return
	}
	msg := fmt.Sprintf(format, args...)
	if e != nil {
		msg = x.describe(e) + ": " + msg
	}
	x.warnings = append(x.warnings, msg)
}

// describe names an event for a warning.
func (x *index) describe(e *trace.Event) string {
	s := fmt.Sprintf("event %d (rank %d thread %d seq %d %s %s", x.position(e), e.Rank, e.Thread, e.Seq, e.Kind, e.Op)
	if e.Site != "" {
		s += " at " + e.Site
	}
	return s + ")"
}

// position returns the 1-based position of e in the input (found by a scan:
// only warnings need it).
func (x *index) position(e *trace.Event) int {
	for i := range x.events {
		if &x.events[i] == e {
			return i + 1
		}
	}
	return 0
}

// Operation classes, by trace name, from commlib's catalog.
var (
	blockingSends    = opSet(func(o *catalog.Op) bool { return o.Class == catalog.ClassSend && o.Blocking })
	nonblockingSends = opSet(func(o *catalog.Op) bool { return o.Class == catalog.ClassSend && !o.Blocking })
	waitOps          = opSet(func(o *catalog.Op) bool { return o.Class == catalog.ClassCompletion })
	threadOps        = opSet(func(o *catalog.Op) bool { return o.Class.Thread() })
)

// opSet returns the trace names of the catalog's operations that are in.
func opSet(in func(*catalog.Op) bool) map[string]bool {
	m := map[string]bool{}
	for _, o := range catalog.All() {
		if in(o) {
			m[o.TraceName()] = true
		}
	}
	return m
}

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// isSend reports whether op event e sends its message (a send call, or the
// send half of a Sendrecv, which carries the protocol).
func isSend(e *trace.Event) bool {
	return blockingSends[e.Op] || nonblockingSends[e.Op] || e.Op == "Sendrecv" && e.Protocol != ""
}

// newIndex validates and indexes events.
func newIndex(events []trace.Event, np int) *index {
	x := &index{
		events:      slices.Clone(events),
		np:          np,
		threads:     make(map[threadKey][]*trace.Event),
		sends:       make(map[int64]*trace.Event),
		recvs:       make(map[int64]*trace.Event),
		posts:       make(map[requestKey]*trace.Event),
		complete:    make(map[requestKey]*trace.Event),
		waitOf:      make(map[*trace.Event]*trace.Event),
		completed:   make(map[*trace.Event][]*trace.Event),
		collectives: make(map[int64][]*trace.Event),
	}
	var valid []*trace.Event
	maxRank := -1
	for i := range x.events {
		e := &x.events[i]
		switch {
		case e.Rank < 0 || np > 0 && e.Rank >= np || e.Rank >= maxRanks:
			if np > 0 {
				x.warnf(e, "rank %d outside 0..%d; skipped", e.Rank, np-1)
			} else {
				x.warnf(e, "rank %d out of range; skipped", e.Rank)
			}
			continue
		case e.Thread < 0:
			x.warnf(e, "negative thread; skipped")
			continue
		case e.Enter < 0 || e.Exit < e.Enter:
			x.warnf(e, "enter %d, exit %d: want 0 <= enter <= exit; skipped", e.Enter, e.Exit)
			continue
		case e.Kind == trace.KindCoreWait:
			// A rank ready to run while its node's cores were all
			// held: neither computation nor communication; the
			// patterns' time between a rank's events covers it.
			continue
		case e.Kind != trace.KindOp && e.Kind != trace.KindComplete && e.Kind != trace.KindCompute:
			x.warnf(e, "unknown kind %q; skipped", e.Kind)
			continue
		case e.Kind == trace.KindComplete && e.Request == 0:
			x.warnf(e, "a completion without a request; skipped")
			continue
		}
		valid = append(valid, e)
		maxRank = max(maxRank, e.Rank)
		x.span = max(x.span, e.Exit)
	}
	if x.np <= 0 {
		x.np = maxRank + 1
	}
	x.ends = make([]trace.Time, x.np)
	for _, e := range valid {
		x.ends[e.Rank] = max(x.ends[e.Rank], e.Exit)
	}
	// Order first, so that "the first" of duplicates is deterministic.
	slices.SortStableFunc(valid, compareEvents)
	for _, e := range valid {
		switch e.Kind {
		case trace.KindCompute:
			x.addThread(e)
		case trace.KindComplete:
			x.addRequest(x.complete, e, "completion")
			if e.Message != 0 && !isSendOpName(e.Op) {
				x.addMessage(x.recvs, e, "receive")
			}
		case trace.KindOp:
			x.addThread(e)
			if nonblockingSends[e.Op] || e.Op == "Irecv" {
				if e.Request != 0 {
					x.addRequest(x.posts, e, "nonblocking call")
				}
			}
			switch {
			case e.Message == 0 || e.Op == "Irecv" || e.Collective != 0:
			case isSend(e):
				x.addMessage(x.sends, e, "send")
			case e.Op == "Recv" || e.Op == "Sendrecv":
				x.addMessage(x.recvs, e, "receive")
			}
			if e.Collective != 0 {
				x.collectives[e.Collective] = append(x.collectives[e.Collective], e)
			} else if collectiveKind(e.Op) != collOther {
				x.warnf(e, "a collective call without an instance id; not analyzed as a collective")
			}
		}
	}
	x.linkWaits()
	return x
}

func isSendOpName(op string) bool { return blockingSends[op] || nonblockingSends[op] }

// compareEvents orders events by rank, thread, enter time, then sequence
// number; exit time and kind keep the order total for equal sequence
// numbers (hand-made traces).
func compareEvents(a, b *trace.Event) int {
	return cmp.Or(
		cmp.Compare(a.Rank, b.Rank),
		cmp.Compare(a.Thread, b.Thread),
		cmp.Compare(a.Enter, b.Enter),
		cmp.Compare(a.Seq, b.Seq),
		cmp.Compare(a.Exit, b.Exit),
		cmp.Compare(a.Kind, b.Kind))
}

func (x *index) addThread(e *trace.Event) {
	k := threadKey{e.Rank, e.Thread}
	x.threads[k] = append(x.threads[k], e)
}

func (x *index) addMessage(m map[int64]*trace.Event, e *trace.Event, what string) {
	if old, ok := m[e.Message]; ok {
		x.warnf(e, "message %d has a second %s (the first is %s); ignored", e.Message, what, x.describe(old))
		return
	}
	m[e.Message] = e
}

func (x *index) addRequest(m map[requestKey]*trace.Event, e *trace.Event, what string) {
	k := requestKey{e.Rank, e.Request}
	if old, ok := m[k]; ok {
		x.warnf(e, "request %d of rank %d has a second %s (the first is %s); ignored", e.Request, e.Rank, what, x.describe(old))
		return
	}
	m[k] = e
}

// linkWaits ties each completion to the Wait, Waitall, Waitany or Test call
// that observed it: a call of the same thread, listing the request, whose
// exit is the completion's time.
func (x *index) linkWaits() {
	keys := sortedKeys(x.threads, compareThreadKeys)
	for _, k := range keys {
		for _, w := range x.threads[k] {
			if w.Kind != trace.KindOp || !waitOps[w.Op] {
				continue
			}
			reqs := w.Requests
			if w.Request != 0 && !slices.Contains(reqs, w.Request) {
				reqs = append(slices.Clone(reqs), w.Request)
			}
			for _, r := range reqs {
				c := x.complete[requestKey{w.Rank, r}]
				if c == nil || c.Thread != w.Thread || c.Exit != w.Exit || x.waitOf[c] != nil {
					continue
				}
				x.waitOf[c] = w
				x.completed[w] = append(x.completed[w], c)
			}
		}
	}
}

func compareThreadKeys(a, b threadKey) int {
	return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.thread, b.thread))
}

// sortedKeys returns the keys of m in the order of compare.
func sortedKeys[K comparable, V any](m map[K]V, compare func(a, b K) int) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, compare)
	return keys
}

// sendCompletion returns the call that completed the send of message m (the
// send call itself, or the Wait of its request), or nil.
func (x *index) sendCompletion(s *trace.Event) *trace.Event {
	if !nonblockingSends[s.Op] {
		return s
	}
	c := x.complete[requestKey{s.Rank, s.Request}]
	if c == nil {
		return nil
	}
	return x.waitOf[c]
}

// receivePost returns the call that posted the receive r (a Recv or
// Sendrecv event, or the completion of an Irecv): the call itself, or the
// Irecv.
func (x *index) receivePost(r *trace.Event) *trace.Event {
	if r.Kind != trace.KindComplete {
		return r
	}
	return x.posts[requestKey{r.Rank, r.Request}]
}

// receiveCompletion returns the call that completed the receive r: the
// call itself, or the Wait of its Irecv (nil when a Test completed it or
// none did).
func (x *index) receiveCompletion(r *trace.Event) *trace.Event {
	if r.Kind != trace.KindComplete {
		return r
	}
	return x.waitOf[r]
}

// protocol returns the protocol of send s: its own, or for events without
// one, sync for Ssend and Issend and rendezvous for standard sends above the
// eager limit.
func protocol(s *trace.Event, eagerLimit int64) string {
	if s.Protocol != "" {
		return s.Protocol
	}
	if o, ok := catalog.ByTraceName(s.Op); ok && o.Protocol != "" && o.Protocol != catalog.Eager {
		return string(o.Protocol) // sync, buffered, ready
	}
	if eagerLimit > 0 && s.Bytes > eagerLimit {
		return "rendezvous"
	}
	return "eager"
}

// blocksSender reports whether protocol p keeps a send from completing
// before its receive is posted.
func blocksSender(p string) bool { return p == "sync" || p == "rendezvous" }
