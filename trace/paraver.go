// This file defines the Paraver writer: the .prv trace, its .pcf names and
// its .row labels.

package trace

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/predict-tools/predict/commlib/catalog"
)

// Paraver states, numbered as Extrae numbers them so that the standard
// configurations of Paraver apply.
const (
	prvIdle          = 0
	prvRunning       = 1
	prvWaitMessage   = 3
	prvBlockingSend  = 4
	prvSync          = 5
	prvTestProbe     = 6
	prvForkJoin      = 7
	prvBlocked       = 9
	prvWaitAll       = 8
	prvImmediateSend = 10
	prvImmediateRecv = 11
	prvGroupComm     = 13
	prvOthers        = 15
	prvSendRecv      = 16
)

var prvStates = []struct{ name, color string }{
	{"Idle", "{117,195,255}"}, {"Running", "{0,0,255}"}, {"Not created", "{255,255,255}"},
	{"Waiting a message", "{255,0,0}"}, {"Blocking Send", "{255,0,174}"}, {"Synchronization", "{179,0,0}"},
	{"Test/Probe", "{0,255,0}"}, {"Scheduling and Fork/Join", "{255,255,0}"}, {"Wait/WaitAll", "{235,0,0}"},
	{"Blocked", "{0,162,0}"}, {"Immediate Send", "{255,0,255}"}, {"Immediate Receive", "{100,100,177}"},
	{"I/O", "{172,174,41}"}, {"Group Communication", "{255,144,26}"}, {"Tracing Disabled", "{2,255,177}"},
	{"Others", "{192,224,0}"}, {"Send Receive", "{66,66,66}"},
}

// Paraver event types of WriteParaver.
const (
	PrvOperation  = 90000001 // the call or compute fragment running: an operation value, 0 at its exit
	PrvSite       = 90000002 // its call site: a site value, 0 at its exit
	PrvPeer       = 90000003 // world rank of the other side + 1, at the enter of point-to-point calls
	PrvTag        = 90000004 // tag, at the enter of point-to-point calls
	PrvBytes      = 90000005 // bytes of the message or collective contribution, at the enter
	PrvComm       = 90000006 // communicator id, at the enter of calls on other communicators than the world
	PrvRequest    = 90000007 // request id, at the enter of Isend/Irecv/Wait/Waitany/Test
	PrvCollective = 90000008 // collective instance id, at the enter of collectives
	PrvMessage    = 90000009 // message instance id, at the enter of sends and receives
	PrvProtocol   = 90000010 // send protocol (eager 1, rendezvous 2, sync 3, buffered 4, ready 5)
	PrvObject     = 90000011 // lock, semaphore, barrier or pool id, at the enter of thread primitives
	PrvCompleted  = 90000012 // request id, when Wait or Test observes its completion
)

// prvOps are the operations with fixed values of PrvOperation (1, 2, ...),
// the same in every trace: the catalog's Paraver values, then compute
// fragments; others follow in sorted order.
var prvOps = paraverOps()

func paraverOps() []string {
	var fixed []*catalog.Op
	for _, o := range catalog.All() {
		if o.Paraver > 0 {
			fixed = append(fixed, o)
		}
	}
	slices.SortFunc(fixed, func(a, b *catalog.Op) int { return cmp.Compare(a.Paraver, b.Paraver) })
	ops := make([]string, 0, len(fixed)+1)
	for _, o := range fixed {
		ops = append(ops, o.TraceName())
	}
	return append(ops, "compute")
}

// prvProtocols are the send protocols, valued 1, 2, ... in their order.
var prvProtocols = func() []string {
	var out []string
	for _, p := range catalog.Protocols {
		out = append(out, string(p))
	}
	return out
}()

// WriteParaver writes events as a Paraver trace: prv gets the records, pcf
// the names of states, event types and values, row the names of the rows.
// Times are nanoseconds (picoseconds rounded to the nearest).
//
// Each rank is a task of one application and a node; each of its threads
// (the main thread, then the others in the order of Event.Thread) is a
// Paraver thread with a CPU of its own, so that the header reads
// NP(threads,...):1:NP(threads:node,...).
// Records:
//
//   - states (1:cpu:1:task:thread:begin:end:state): every call is a state
//     after its class (Waiting a message, Blocking Send, Immediate Send and
//     Receive, Wait/WaitAll, Test/Probe, Send Receive, Group Communication,
//     Synchronization for Barrier and thread primitives, Scheduling and
//     Fork/Join for pools, Others); compute fragments and the time between
//     a thread's calls are Running, and so is the main thread before its
//     first call (commlib does not record a pool thread's idle time between
//     tasks: it shows as Running too);
//   - events (2:cpu:1:task:thread:time:type:value...): at the enter of
//     each call its operation, call site and fields (types Prv*), at its
//     exit operation and site 0; at a completion the request completed;
//     values of one thread at one time share a record, except that a type
//     set twice (the exit of a call and the enter of the next) starts a new
//     record, so that the values apply in order;
//   - communications (3:cpu:1:task:thread:lsend:psend:cpu:1:task:thread:
//     lrecv:precv:size:tag) for every message whose two ends are in the
//     trace: logical and physical send at the enter of the sending call,
//     logical receive where the receive was posted (the enter of the Recv,
//     the Sendrecv or the Irecv), physical receive where it completed (the
//     exit of the Recv or Sendrecv, the completion of the Irecv).
//
// Records are sorted by time, then states before events before
// communications, then CPU. The date in the header is the run's start
// from the trace header (UTC), or 01/01/70 when it has none.
func WriteParaver(prv, pcf, row io.Writer, h Header, events []Event) error {
	events = slices.Clone(events)
	Sort(events)
	x := newIndex(events)
	np := numRanks(h, events)
	p := &paraver{x: x, threads: make([][]int, np), firstCPU: make([]int, np+1), opValue: map[string]int{}, siteValue: map[string]int{}}
	for r := range np {
		p.threads[r] = []int{0}
	}
	for _, k := range x.threads { // sorted: each rank's threads in order
		if k.thread != 0 {
			p.threads[k.rank] = append(p.threads[k.rank], k.thread)
		}
	}
	for r := range np {
		p.firstCPU[r+1] = p.firstCPU[r] + len(p.threads[r])
	}
	p.values(events)
	p.records()

	if err := p.writePRV(prv, h); err != nil {
		return err
	}
	if err := p.writePCF(pcf); err != nil {
		return err
	}
	return p.writeROW(row, h)
}

type paraver struct {
	x        *index
	threads  [][]int // the Event.Thread of each Paraver thread of each rank, main first
	firstCPU []int   // CPUs before rank r (CPUs are numbered from 1)
	end      int64   // the last time, ns

	ops, sites         []string // value v is ops[v-1], sites[v-1]
	opValue, siteValue map[string]int

	recs  []prvRecord
	pairs []prvPair // of the thread being recorded
}

// prvRecord is one state or communication record; events come as pairs.
type prvRecord struct {
	time int64
	kind int // 1 state, 3 communication
	cpu  int
	ord  int
	text string
}

// prvPair is one type:value of an event record of one thread.
type prvPair struct {
	time      int64
	cpu, ord  int
	typ       int
	value     int64
	task, thr int
}

// ns converts a time to Paraver's nanoseconds.
func ns(t Time) int64 { return (int64(t) + 500) / 1000 }

// thr is the Paraver thread (from 1) of an Event.Thread of rank.
func (p *paraver) thr(rank, thread int) int {
	i, _ := slices.BinarySearch(p.threads[rank], thread)
	return i + 1
}

func (p *paraver) cpu(rank, thread int) int { return p.firstCPU[rank] + p.thr(rank, thread) }

// values numbers the operations and call sites of the trace.
func (p *paraver) values(events []Event) {
	p.ops = slices.Clone(prvOps)
	var extraOps []string
	for i := range events {
		e := &events[i]
		if name := eventName(e); !slices.Contains(p.ops, name) && !slices.Contains(extraOps, name) {
			extraOps = append(extraOps, name)
		}
		if e.Site != "" {
			if _, ok := p.siteValue[e.Site]; !ok {
				p.siteValue[e.Site] = 0
				p.sites = append(p.sites, e.Site)
			}
		}
	}
	slices.Sort(extraOps)
	p.ops = append(p.ops, extraOps...)
	slices.Sort(p.sites)
	for i, op := range p.ops {
		p.opValue[op] = i + 1
	}
	for i, s := range p.sites {
		p.siteValue[s] = i + 1
	}
}

// records builds the records of every thread and message.
func (p *paraver) records() {
	events := p.x.events
	for _, k := range p.x.threads {
		cpu := p.cpu(k.rank, k.thread)
		last := int64(0) // the end of the last state
		if k.thread != 0 {
			last = -1 // a pool thread starts at its first call
		}
		for _, i := range p.x.byThr[k] {
			e := &events[i]
			begin, end := ns(e.Enter), ns(e.Exit)
			p.end = max(p.end, end)
			if e.Kind == KindComplete {
				p.event(cpu, k, end, PrvCompleted, e.Request)
				continue
			}
			if last >= 0 && begin > last {
				p.state(cpu, k, last, begin, prvRunning)
			}
			if begin = max(begin, last); begin < end {
				p.state(cpu, k, begin, end, paraverState(e))
				last = end
			}
			last = max(last, end)
			p.enter(cpu, k, e)
			p.event(cpu, k, ns(e.Exit), PrvOperation, 0)
			if e.Site != "" {
				p.event(cpu, k, ns(e.Exit), PrvSite, 0)
			}
		}
		p.eventRecords()
	}
	for i := range events {
		s := &events[i]
		if !isSendSide(s) {
			continue
		}
		_, r, ok := p.x.message(s.Message)
		if !ok {
			continue
		}
		rv := &events[r]
		posted := rv.Enter
		if rv.Kind == KindComplete {
			if start, _, ok := p.x.request(rv.Rank, rv.Request); ok {
				posted = events[start].Enter
			} else {
				posted = rv.Exit
			}
		}
		text := fmt.Sprintf("3:%d:1:%d:%d:%d:%d:%d:1:%d:%d:%d:%d:%d:%d",
			p.cpu(s.Rank, s.Thread), s.Rank+1, p.thr(s.Rank, s.Thread), ns(s.Enter), ns(s.Enter),
			p.cpu(rv.Rank, rv.Thread), rv.Rank+1, p.thr(rv.Rank, rv.Thread), ns(posted), ns(rv.Exit),
			s.Bytes, s.Tag)
		p.recs = append(p.recs, prvRecord{time: ns(s.Enter), kind: 3, cpu: p.cpu(s.Rank, s.Thread), ord: len(p.recs), text: text})
	}
}

// eventRecords turns the pairs of one thread into event records: pairs of
// one time share a record, in the order they were made, except that a type
// set twice (the exit of one call and the enter of the next, or the enter
// and exit of a call shorter than 1 ns) starts a new record, so that
// Paraver applies the values in order.
func (p *paraver) eventRecords() {
	slices.SortFunc(p.pairs, func(a, b prvPair) int {
		return cmp.Or(cmp.Compare(a.time, b.time), cmp.Compare(a.ord, b.ord))
	})
	var line []byte
	var types []int
	flush := func(a prvPair) {
		p.recs = append(p.recs, prvRecord{time: a.time, kind: 2, cpu: a.cpu, ord: len(p.recs), text: string(line)})
	}
	for i, q := range p.pairs {
		same := i > 0 && q.time == p.pairs[i-1].time
		if same && slices.Contains(types, q.typ) || !same && i > 0 {
			flush(p.pairs[i-1])
			same = false
		}
		if !same {
			line = fmt.Appendf(line[:0], "2:%d:1:%d:%d:%d", q.cpu, q.task, q.thr, q.time)
			types = types[:0]
		}
		line = fmt.Appendf(line, ":%d:%d", q.typ, q.value)
		types = append(types, q.typ)
	}
	if len(p.pairs) > 0 {
		flush(p.pairs[len(p.pairs)-1])
	}
	p.pairs = p.pairs[:0]
}

func (p *paraver) state(cpu int, k threadKey, begin, end int64, state int) {
	text := fmt.Sprintf("1:%d:1:%d:%d:%d:%d:%d", cpu, k.rank+1, p.thr(k.rank, k.thread), begin, end, state)
	p.recs = append(p.recs, prvRecord{time: begin, kind: 1, cpu: cpu, ord: len(p.recs), text: text})
}

func (p *paraver) event(cpu int, k threadKey, t int64, typ int, value int64) {
	p.pairs = append(p.pairs, prvPair{time: t, cpu: cpu, ord: len(p.pairs), typ: typ, value: value, task: k.rank + 1, thr: p.thr(k.rank, k.thread)})
}

// enter records the events at the enter of call or fragment e.
func (p *paraver) enter(cpu int, k threadKey, e *Event) {
	t := ns(e.Enter)
	p.event(cpu, k, t, PrvOperation, int64(p.opValue[eventName(e)]))
	if e.Site != "" {
		p.event(cpu, k, t, PrvSite, int64(p.siteValue[e.Site]))
	}
	c := classOf(e)
	p2p := c == classSend || c == classRecv || c == classSendrecv || c == classIsend || c == classIrecv
	if p2p && e.Peer != NoPeer {
		p.event(cpu, k, t, PrvPeer, int64(e.Peer)+1)
	}
	if p2p {
		p.event(cpu, k, t, PrvTag, int64(e.Tag))
	}
	if e.Bytes != 0 {
		p.event(cpu, k, t, PrvBytes, e.Bytes)
	}
	if e.Comm != 0 {
		p.event(cpu, k, t, PrvComm, int64(e.Comm))
	}
	if e.Request != 0 {
		p.event(cpu, k, t, PrvRequest, e.Request)
	}
	if e.Collective != 0 {
		p.event(cpu, k, t, PrvCollective, e.Collective)
	}
	if e.Message != 0 {
		p.event(cpu, k, t, PrvMessage, e.Message)
	}
	if v := slices.Index(prvProtocols, e.Protocol); v >= 0 {
		p.event(cpu, k, t, PrvProtocol, int64(v+1))
	}
	if e.Object != 0 {
		p.event(cpu, k, t, PrvObject, e.Object)
	}
}

// paraverState is the state of a call.
func paraverState(e *Event) int {
	switch classOf(e) {
	case classCompute:
		return prvRunning
	case classCoreWait:
		return prvBlocked // ready, not running: Paraver's "Blocked"
	case classSend:
		return prvBlockingSend
	case classRecv:
		return prvWaitMessage
	case classSendrecv:
		return prvSendRecv
	case classIsend:
		return prvImmediateSend
	case classIrecv:
		return prvImmediateRecv
	case classWait:
		if o, ok := catalog.ByTraceName(e.Op); ok && !o.Blocking { // Test
			return prvTestProbe
		}
		return prvWaitAll
	case classCollective:
		if o, ok := catalog.ByTraceName(e.Op); ok && o.Shape == catalog.Barrier {
			return prvSync
		}
		return prvGroupComm
	case classThread:
		if o, ok := catalog.ByTraceName(e.Op); ok && o.Class == catalog.ClassPool {
			return prvForkJoin
		}
		return prvSync
	}
	return prvOthers
}

// paraverDate formats the start of the run for the header.
func paraverDate(h Header) string {
	t, err := time.Parse(time.RFC3339Nano, h.Start)
	if err != nil {
		t = time.Unix(0, 0)
	}
	return t.UTC().Format("02/01/06 at 15:04")
}

func (p *paraver) writePRV(w io.Writer, h Header) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	np := len(p.threads)
	fmt.Fprintf(bw, "#Paraver (%s):%d_ns:%d(", paraverDate(h), p.end, np)
	for r, ths := range p.threads {
		if r > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString(strconv.Itoa(len(ths)))
	}
	fmt.Fprintf(bw, "):1:%d(", np)
	for r, ths := range p.threads {
		if r > 0 {
			bw.WriteByte(',')
		}
		fmt.Fprintf(bw, "%d:%d", len(ths), r+1)
	}
	bw.WriteString(")\n")

	slices.SortFunc(p.recs, func(a, b prvRecord) int {
		return cmp.Or(cmp.Compare(a.time, b.time), cmp.Compare(a.kind, b.kind), cmp.Compare(a.cpu, b.cpu), cmp.Compare(a.ord, b.ord))
	})
	for _, r := range p.recs {
		bw.WriteString(r.text)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

func (p *paraver) writePCF(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.WriteString(`DEFAULT_OPTIONS

LEVEL               THREAD
UNITS               NANOSEC
LOOK_BACK           100
SPEED               1
FLAG_ICONS          ENABLED
NUM_OF_STATE_COLORS 1000
YMAX_SCALE          37


DEFAULT_SEMANTIC

THREAD_FUNC          State As Is


STATES
`)
	for v, s := range prvStates {
		fmt.Fprintf(bw, "%d    %s\n", v, s.name)
	}
	bw.WriteString("\n\nSTATES_COLOR\n")
	for v, s := range prvStates {
		fmt.Fprintf(bw, "%d    %s\n", v, s.color)
	}
	eventType := func(typ int, name string, values []string, first int) {
		fmt.Fprintf(bw, "\n\nEVENT_TYPE\n0    %d    %s\nVALUES\n", typ, name)
		if first == 0 {
			bw.WriteString("0      End\n")
		}
		for v, s := range values {
			fmt.Fprintf(bw, "%d      %s\n", v+1, s)
		}
	}
	eventType(PrvOperation, "Operation", p.ops, 0)
	eventType(PrvSite, "Call site", p.sites, 0)
	eventType(PrvProtocol, "Send protocol", prvProtocols, 1)
	bw.WriteString("\n\nEVENT_TYPE\n")
	for _, t := range []struct {
		typ  int
		name string
	}{
		{PrvPeer, "Peer rank + 1"}, {PrvTag, "Tag"}, {PrvBytes, "Bytes"}, {PrvComm, "Communicator"},
		{PrvRequest, "Request"}, {PrvCollective, "Collective instance"}, {PrvMessage, "Message instance"},
		{PrvObject, "Thread object"}, {PrvCompleted, "Request completed"},
	} {
		fmt.Fprintf(bw, "0    %d    %s\n", t.typ, t.name)
	}
	return bw.Flush()
}

func (p *paraver) writeROW(w io.Writer, h Header) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	np := len(p.threads)
	threadNames := func() {
		for r, ths := range p.threads {
			for _, th := range ths {
				fmt.Fprintf(bw, "rank %d %s\n", r, threadName(th))
			}
		}
	}
	total := p.firstCPU[np]
	fmt.Fprintf(bw, "LEVEL CPU SIZE %d\n", total)
	threadNames()
	fmt.Fprintf(bw, "\nLEVEL NODE SIZE %d\n", np)
	for r := range np {
		fmt.Fprintf(bw, "rank %d\n", r)
	}
	name := h.Program
	if name == "" {
		name = h.Source
	}
	fmt.Fprintf(bw, "\nLEVEL APPL SIZE 1\n%s\n", oneLine(name))
	fmt.Fprintf(bw, "\nLEVEL TASK SIZE %d\n", np)
	for r := range np {
		fmt.Fprintf(bw, "rank %d\n", r)
	}
	fmt.Fprintf(bw, "\nLEVEL THREAD SIZE %d\n", total)
	threadNames()
	return bw.Flush()
}

// oneLine replaces line breaks, which would shift the names of a .row file.
func oneLine(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c == '\n' || c == '\r' {
			b[i] = ' '
		}
	}
	return string(b)
}
