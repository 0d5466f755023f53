// This file defines the tracing hooks: events of every call, recorded per
// rank and written as a native trace when the run ends.

package commlib

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/predict-tools/predict/trace"
)

// tracer records events. It exists only when tracing is on: every hook
// starts with a nil check of world.tracer, which is all tracing costs when off.
type tracer struct {
	file   string
	hook   func(trace.Event)
	header trace.Header
	full   bool                       // events are wanted (a file or a hook), not only call times
	timing []func(int, time.Duration) // Hooks.CallTime
	// starting are Hooks.CallStart.
	starting []func(int)
}

func newTracer(cfg Config) *tracer {
	return &tracer{
		full: cfg.TraceFile != "" || cfg.Hook != nil,
		file: cfg.TraceFile,
		hook: cfg.Hook,
		header: trace.Header{Source: "commlib", Program: cfg.Program, Package: mainPackage(), NP: cfg.NP, Args: cfg.Args,
			Clock: "monotonic", Start: time.Now().UTC().Format(time.RFC3339Nano)},
	}
}

// mainPackage is the import path of the running program's main package,
// or "" where the build does not record one (go run of files).
func mainPackage() string {
	info, ok := debug.ReadBuildInfo()
	if !ok || info.Path == "command-line-arguments" {
		return ""
	}
	return info.Path
}

// registerThread records that the calling goroutine is thread number th
// (1+tid) of its rank; the rank's main goroutine is thread 0.
func (w *world) registerThread(th int) { w.threads.Store(goid(), th) }

// unregisterThread forgets the calling goroutine.
func (w *world) unregisterThread() { w.threads.Delete(goid()) }

// threadOf returns the thread number of the calling goroutine. It costs
// about a microsecond: it is used for trace events, blocking thread
// primitives and errors, never on the fast paths of communication.
func (w *world) threadOf() int {
	if th, ok := w.threads.Load(goid()); ok {
		return th.(int)
	}
	return 0
}

// goid returns the calling goroutine's id.
func goid() int64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		b = b[:i]
	}
	id, _ := strconv.ParseInt(string(b), 10, 64)
	return id
}

// now is the time since the start of the run.
func (w *world) now() trace.Time {
	return trace.Time(time.Since(w.start).Nanoseconds()) * trace.Nanosecond
}

// traceStart returns the enter time of a call, or 0 when tracing is off.
func (c *Comm) traceStart() trace.Time {
	t := c.w.tracer
	if t == nil {
		return 0
	}
	for _, f := range t.starting {
		f(c.p.rank)
	}
	return c.w.now()
}

// emit completes ev as a call of the calling rank that entered at t0 and
// exits now, records it and returns it.
func (c *Comm) emit(t0 trace.Time, ev *trace.Event) *trace.Event {
	t := c.w.tracer
	exit := c.w.now()
	for _, f := range t.timing {
		f(c.p.rank, time.Duration((exit-t0)/trace.Nanosecond))
	}
	ev.Enter, ev.Exit = t0, exit
	if !t.full {
		return ev
	}
	ev.Kind = trace.KindOp
	ev.Rank = c.p.rank
	ev.Thread = c.w.threadOf()
	ev.Comm = c.sh.id
	ev.Site = userSite()
	c.p.record(t, ev)
	return ev
}

// emitLike records ev with the rank, thread, site and times of prev.
func (c *Comm) emitLike(prev, ev *trace.Event) {
	if !c.w.tracer.full {
		return
	}
	ev.Kind, ev.Rank, ev.Thread, ev.Comm, ev.Site, ev.Enter, ev.Exit = prev.Kind, prev.Rank, prev.Thread, prev.Comm, prev.Site, prev.Enter, prev.Exit
	c.p.record(c.w.tracer, ev)
}

// emitCompletion records the completion of request r, observed by the
// Wait, Waitall, Waitany or Test call at: at its exit, with its site.
func (c *Comm) emitCompletion(r *Request, st Status, at *trace.Event) {
	if !c.w.tracer.full {
		return
	}
	ev := &trace.Event{Kind: trace.KindComplete, Op: r.op, Rank: c.p.rank, Thread: at.Thread,
		Comm: c.sh.id, Request: r.id, Message: r.msgID, Root: trace.NoPeer, Enter: at.Exit, Exit: at.Exit, Site: at.Site}
	if r.send {
		ev.Peer, ev.Tag, ev.Bytes, ev.Protocol = c.worldRankOf(r.source), r.tag, r.bytes(), r.protocolName()
	} else {
		ev.Peer, ev.Tag, ev.Bytes = c.worldRankOf(st.Source), max(st.Tag, 0), int64(st.Count*kinds[r.kind].size)
	}
	c.p.record(c.w.tracer, ev)
}

// record stores ev in the rank's event list and passes it to the hook.
func (p *process) record(t *tracer, ev *trace.Event) {
	p.traceMu.Lock()
	p.seq++
	ev.Seq = p.seq
	p.events = append(p.events, *ev)
	p.traceMu.Unlock()
	if t.hook != nil {
		t.hook(*ev)
	}
}

// finish writes the trace file, if one was asked for.
func (t *tracer) finish(w *world) error {
	if t.file == "" {
		return nil
	}
	var all []trace.Event
	for _, p := range w.procs {
		p.traceMu.Lock()
		all = append(all, p.events...)
		p.traceMu.Unlock()
	}
	trace.Sort(all)
	h := t.header
	h.EagerLimit = w.eagerLimit
	return writeTrace(t.file, h, all)
}

// writeTrace writes a native trace file of events (sorted) with header h.
func writeTrace(path string, h trace.Header, events []trace.Event) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("commlib: trace: %v", err)
	}
	if err := trace.WriteJSONL(f, h, events); err != nil {
		f.Close()
		return fmt.Errorf("commlib: trace %s: %v", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("commlib: trace %s: %v", path, err)
	}
	return nil
}
