// This file defines the Chrome Trace Event writer (the JSON that Perfetto
// and chrome://tracing open).

package trace

import (
	"bufio"
	"encoding/json"
	"io"
	"math"
	"slices"
	"strconv"
)

// WriteChrome writes events in the Chrome Trace Event format, as one JSON
// object {"displayTimeUnit":"ns","otherData":HEADER,"traceEvents":[...]}
// with one trace event per line:
//
//   - each rank is a process (pid = rank, named "rank N") and each of its
//     threads a thread (tid = Event.Thread, named "main" or "thread K" for
//     pool thread K), declared by metadata events (ph "M");
//   - every call and compute fragment that takes time is a duration slice
//     on its thread: a begin event (ph "B") at its enter and an end event
//     (ph "E") at its exit, both named by its operation, with category
//     p2p, nonblocking, wait, collective, thread, compute or other, and the
//     event's fields (peer, tag, bytes, comm, request, message, collective,
//     site, seq, ...) as args (the end repeats them: the format merges the
//     two, and viewers that pair ends by name and args, such as speedscope,
//     need them); a call that takes no time (enter = exit, common in
//     modeled traces: posting an Irecv) is a thread instant (ph "i", scope
//     "t") with the same name, category and args, the format's event for
//     what has no duration (Perfetto shows it as a zero-length slice);
//   - every nonblocking request is an async slice (ph "b" at the start of
//     the Isend or Irecv, ph "e" at the completion that Wait or Test
//     observed, category "request", scoped to the rank's process), so that
//     requests sit on tracks of their own beside the threads; a request
//     never completed in the trace is an async instant (ph "n"), a
//     completion whose start is missing a thread instant (ph "i");
//   - every message whose send and receive are both in the trace is a flow
//     (ph "s" then "f", id = Event.Message, category "message") from the
//     sending call to the receiving one: the Recv, the receive half of a
//     Sendrecv, or the Wait/Test call that completed an Irecv.
//
// Timestamps are microseconds written as exact decimals (up to six
// decimals: every picosecond survives). Slices are begin/end pairs rather
// than complete events (ph "X", ts and dur) so that no viewer has to add
// floating-point numbers: a slice that ends where the next one starts ends
// at the very same number, where ts + dur in binary64 may round past it.
// The events of each thread are written in time order, and the file order
// settles what nests in what: a slice is closed before the thread's next
// call if it ends no later than that call starts (so calls that abut are
// neighbours), and encloses the calls that start before its end. Calls
// that take no time are instants rather than zero-length slices because
// nesting at equal timestamps is up to each viewer, and speedscope, for
// one, cannot pair the ends of two such slices of one name at one time.
// Flow ends are placed 1 ns inside the slices they bind to, so that
// viewers attach them to the right call. The output depends only on the
// header and the events: events are written in the native order (Sort),
// metadata by rank and thread, and each end just before the next call of
// its thread that starts at or after it (or at the end of the file).
func WriteChrome(w io.Writer, h Header, events []Event) error {
	events = slices.Clone(events)
	Sort(events)
	x := newIndex(events)
	bw := bufio.NewWriterSize(w, 1<<16)

	h.Format, h.Version = FormatName, FormatVersion
	meta, err := json.Marshal(h)
	if err != nil {
		return err
	}
	b := append([]byte(`{"displayTimeUnit":"ns","otherData":`), meta...)
	b = append(b, ",\n\"traceEvents\":[\n"...)
	cw := &chromeWriter{w: bw, b: b, x: x, open: map[threadKey][]openSlice{}}

	np := numRanks(h, events)
	for r := range np {
		cw.metadata(r, 0, "process_name", "name", "rank "+strconv.Itoa(r))
		cw.metadataInt(r, 0, "process_sort_index", r)
	}
	for _, k := range x.threads {
		cw.metadata(k.rank, k.thread, "thread_name", "name", threadName(k.thread))
		cw.metadataInt(k.rank, k.thread, "thread_sort_index", k.thread)
	}

	lastSlice := map[threadKey]int{} // the last X event of each thread
	flowEnds := map[int64]Time{}     // where each message's flow enters its receive
	for i := range events {
		e := &events[i]
		k := threadKey{e.Rank, e.Thread}
		switch e.Kind {
		case KindComplete:
			cw.completion(i)
		default:
			cw.closeSlices(k, e.Enter)
			if e.Duration() == 0 {
				cw.sliceEvent("i", e, e.Enter, chromeArgs(e))
			} else {
				cw.sliceBegin(i)
			}
			lastSlice[k] = i
			if c := classOf(e); (c == classIsend || c == classIrecv) && e.Request != 0 {
				cw.requestStart(i)
			}
		}
		if s, r, ok := x.message(e.Message); ok && (i == s || i == r) {
			if i == r {
				at := flowEnd(e)
				if e.Kind == KindComplete {
					// The Irecv's message enters the Wait or Test that completed it.
					at = e.Exit
					if j, ok := lastSlice[k]; ok && events[j].Exit == e.Enter {
						at = flowEnd(&events[j])
					}
				}
				flowEnds[e.Message] = at
			}
			if i == max(s, r) {
				// Both ends are known: the flow, start first, never ending before
				// it starts (viewers would drop it).
				start := flowStart(&events[s])
				cw.flow("s", e.Message, start, s)
				cw.flow("f", e.Message, max(flowEnds[e.Message], start), r)
				delete(flowEnds, e.Message)
			}
		}
		if err := cw.flush(false); err != nil {
			return err
		}
	}
	for _, k := range x.threads {
		cw.closeSlices(k, math.MaxInt64)
	}
	cw.b = append(cw.b, "\n]}\n"...)
	if err := cw.flush(true); err != nil {
		return err
	}
	return bw.Flush()
}

// threadName names thread number th of a rank: 0 is the main thread, 1+K
// pool thread K.
func threadName(th int) string {
	if th == 0 {
		return "main"
	}
	return "thread " + strconv.Itoa(th-1)
}

// flowStart and flowEnd are where a message's flow leaves its send and
// enters its receive: 1 ns inside the call, or at its edge for calls
// shorter than 2 ns.
func flowStart(e *Event) Time {
	if e.Duration() >= 2*Nanosecond {
		return e.Enter + Nanosecond
	}
	return e.Enter
}

func flowEnd(e *Event) Time {
	if e.Duration() >= 2*Nanosecond {
		return e.Exit - Nanosecond
	}
	return e.Exit
}

// chromeWriter accumulates trace events in b, each on its own line.
type chromeWriter struct {
	w     *bufio.Writer
	b     []byte
	x     *index
	first bool // at least one event was written: the next needs a comma

	// open holds the slices of each thread whose begin is written and
	// whose end is not, in the order they began.
	open map[threadKey][]openSlice
}

// openSlice is a slice whose begin is written: event i, with its args.
type openSlice struct {
	i    int
	args []byte
}

func (cw *chromeWriter) flush(force bool) error {
	if len(cw.b) < 1<<15 && !force {
		return nil
	}
	_, err := cw.w.Write(cw.b)
	cw.b = cw.b[:0]
	return err
}

// begin opens one trace event with its phase, process and thread.
func (cw *chromeWriter) begin(ph string, pid, tid int) object {
	if cw.first {
		cw.b = append(cw.b, ",\n"...)
	}
	cw.first = true
	o := openObject(cw.b)
	o.str("ph", ph)
	o.int("pid", int64(pid))
	o.int("tid", int64(tid))
	return o
}

func (cw *chromeWriter) end(o object) { cw.b = o.close() }

func (cw *chromeWriter) metadata(pid, tid int, name, key, value string) {
	o := cw.begin("M", pid, tid)
	o.str("name", name)
	args := openObject(nil)
	args.str(key, value)
	o.raw("args", args.close())
	cw.end(o)
}

func (cw *chromeWriter) metadataInt(pid, tid int, name string, value int) {
	o := cw.begin("M", pid, tid)
	o.str("name", name)
	args := openObject(nil)
	args.int("sort_index", int64(value))
	o.raw("args", args.close())
	cw.end(o)
}

var chromeCategories = [...]string{
	classOther: "other", classSend: "p2p", classRecv: "p2p", classSendrecv: "p2p",
	classIsend: "nonblocking", classIrecv: "nonblocking", classWait: "wait",
	classCollective: "collective", classThread: "thread", classCompute: "compute",
	classCoreWait: "core_wait",
}

// eventName is the name of e's slice: its operation, or "compute" for an
// unnamed compute fragment.
func eventName(e *Event) string {
	if e.Op == "" {
		switch e.Kind {
		case KindCompute:
			return "compute"
		case KindCoreWait:
			return "waiting for a core"
		}
		return string(e.Kind)
	}
	return e.Op
}

// sliceBegin writes the begin event of call or compute fragment i and
// leaves its slice open.
func (cw *chromeWriter) sliceBegin(i int) {
	e := &cw.x.events[i]
	args := chromeArgs(e)
	cw.sliceEvent("B", e, e.Enter, args)
	k := threadKey{e.Rank, e.Thread}
	cw.open[k] = append(cw.open[k], openSlice{i, args})
}

// closeSlices writes the end events of the open slices of thread k that
// end at t or earlier: the one that ends first first, and of slices that
// end together the one that began last (the innermost) first. Slices that
// nest are thus closed innermost first; slices that overlap without
// nesting (a broken trace) are closed in time order, and viewers see the
// overlap.
func (cw *chromeWriter) closeSlices(k threadKey, t Time) {
	open := cw.open[k]
	for {
		first := -1
		for n := len(open) - 1; n >= 0; n-- {
			exit := cw.x.events[open[n].i].Exit
			if exit <= t && (first < 0 || exit < cw.x.events[open[first].i].Exit) {
				first = n
			}
		}
		if first < 0 {
			break
		}
		e := &cw.x.events[open[first].i]
		cw.sliceEvent("E", e, e.Exit, open[first].args)
		open = slices.Delete(open, first, first+1)
	}
	cw.open[k] = open
}

// sliceEvent writes one end (ph B or E) of e's slice at time at, or the
// instant (ph i) of a call that takes no time, with args, chromeArgs(e).
func (cw *chromeWriter) sliceEvent(ph string, e *Event, at Time, args []byte) {
	o := cw.begin(ph, e.Rank, e.Thread)
	o.micros("ts", at)
	o.str("name", eventName(e))
	o.str("cat", chromeCategories[classOf(e)])
	if ph == "i" {
		o.str("s", "t")
	}
	o.raw("args", args)
	cw.end(o)
}

// requestStart writes the start of request i's async slice, or an async
// instant when the trace has no completion for it.
func (cw *chromeWriter) requestStart(i int) {
	e := &cw.x.events[i]
	ph := "b"
	if start, _, ok := cw.x.request(e.Rank, e.Request); !ok || start != i {
		ph = "n" // no completion, or a request id used twice (only the first is paired)
	}
	o := cw.begin(ph, e.Rank, e.Thread)
	o.micros("ts", e.Enter)
	o.str("name", eventName(e))
	o.str("cat", "request")
	o.raw("id2", requestID(e))
	o.raw("args", chromeArgs(e))
	cw.end(o)
}

// completion writes completion i: the end of its request's async slice, or
// a thread instant when its start is not in the trace.
func (cw *chromeWriter) completion(i int) {
	e := &cw.x.events[i]
	var o object
	if _, c, ok := cw.x.request(e.Rank, e.Request); ok && c == i {
		o = cw.begin("e", e.Rank, e.Thread)
		o.micros("ts", e.Exit)
		o.str("name", eventName(e))
		o.str("cat", "request")
		o.raw("id2", requestID(e))
	} else {
		o = cw.begin("i", e.Rank, e.Thread)
		o.micros("ts", e.Exit)
		o.str("name", eventName(e)+" complete")
		o.str("cat", "request")
		o.str("s", "t")
	}
	o.raw("args", chromeArgs(e))
	cw.end(o)
}

// requestID scopes a request's async events to the rank's process.
func requestID(e *Event) []byte {
	o := openObject(nil)
	o.str("local", "0x"+strconv.FormatInt(e.Request, 16))
	return o.close()
}

// flow writes one end of the flow of message id at time at, bound to the
// slice that encloses it on the thread of event i. Callers never put an end
// before its start: viewers would drop the flow.
func (cw *chromeWriter) flow(ph string, id int64, at Time, i int) {
	e := &cw.x.events[i]
	o := cw.begin(ph, e.Rank, e.Thread)
	o.micros("ts", at)
	o.str("name", "message")
	o.str("cat", "message")
	o.int("id", id)
	if ph == "f" {
		o.str("bp", "e")
	}
	cw.end(o)
}

// chromeArgs returns the args object of e: every field that applies.
func chromeArgs(e *Event) []byte {
	o := openObject(make([]byte, 0, 128))
	if e.Kind != KindOp {
		o.str("kind", string(e.Kind))
	}
	if e.Peer != NoPeer {
		o.int("peer", int64(e.Peer))
	}
	if e.Root != NoPeer {
		o.int("root", int64(e.Root))
	}
	switch classOf(e) {
	case classSend, classRecv, classSendrecv, classIsend, classIrecv:
		o.int("tag", int64(e.Tag))
	default:
		if e.Tag != 0 {
			o.int("tag", int64(e.Tag))
		}
	}
	if e.Bytes != 0 {
		o.int("bytes", e.Bytes)
	}
	if e.Comm != 0 {
		o.int("comm", int64(e.Comm))
	}
	if e.Request != 0 {
		o.int("request", e.Request)
	}
	if len(e.Requests) > 0 {
		list := append(make([]byte, 0, 8*len(e.Requests)), '[')
		for j, r := range e.Requests {
			if j > 0 {
				list = append(list, ',')
			}
			list = strconv.AppendInt(list, r, 10)
		}
		o.raw("requests", append(list, ']'))
	}
	if e.Message != 0 {
		o.int("message", e.Message)
	}
	if e.Collective != 0 {
		o.int("collective", e.Collective)
	}
	if e.Object != 0 {
		o.int("object", e.Object)
	}
	if e.Protocol != "" {
		o.str("protocol", e.Protocol)
	}
	if e.Site != "" {
		o.str("site", e.Site)
	}
	o.int("seq", e.Seq)
	return o.close()
}
