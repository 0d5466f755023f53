// This file defines the GOAL writer: a schedule that LogGOPSim (txt2bin,
// then LogGOPSim -f) replays.

package trace

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
)

// GOAL tags beyond the program's own (0..2^30-1, the tags of the world):
// point-to-point tags of other communicators, and collective messages.
const (
	goalCommTagBase = 1 << 30 // + the index of (communicator, tag) among those the trace uses
	goalCollTagBase = 1 << 31 // + the index of the collective instance
)

// WriteGOAL writes events as a GOAL schedule with the default options:
// calc in nanoseconds, and collectives that do not record their algorithm
// (traces of real runs) expanded with the algorithms of
// defaultAlgorithms. See WriteGOALOptions.
func WriteGOAL(w io.Writer, h Header, events []Event) error {
	return WriteGOALOptions(w, h, events, GOALOptions{})
}

// WriteGOALOptions writes events as a GOAL schedule (the text format of
// LogGOPSim's txt2bin): "num_ranks N", then for each rank
// "rank R { ... }" with one operation or dependency per line.
//
// Each rank's main thread becomes one chain of operations, each requiring
// the one before it (LogGOPSim runs operations without dependencies at
// once):
//
//   - the time between calls, compute fragments and the calls that do not
//     communicate (thread primitives, communicator queries, sends to
//     ProcNull, ...) become calc, in opts.Unit (nanoseconds by default);
//     consecutive ones are summed into one calc;
//   - a blocking send or receive becomes send or recv, with the actual
//     peer, tag and size of its message; a Sendrecv becomes both, which may
//     proceed together, and what follows requires both;
//   - an Isend or Irecv becomes send or recv, and what follows only
//     irequires it (may start once it started); the Wait, Waitall, Waitany
//     or Test that completed it becomes "calc 0", which requires it;
//   - a collective becomes the messages of its algorithm
//     (CollectiveRounds) among the ranks whose events share its instance
//     id, with a tag of its own: the algorithm its events record (a
//     modeled trace: the schedule the interpreter ran), else the one
//     opts.Algorithm chooses (a machine's choice), else the default. A
//     collective of an unknown operation, or whose instance is incomplete
//     in the trace, becomes calc of its measured duration, and the file
//     says so in a comment where it happens.
//
// Only messages whose two ends are in the trace are written, so that every
// send has its receive; the others count as calls that do not communicate.
// Messages of zero bytes are written as 1b (LogGOPSim charges (s-1)·O and
// (s-1)·G, which would wrap around at s = 0). Events of pool threads are not
// written: the main thread's calls that wait for them (Pool.WaitForAll,
// Parallel) are calc of the time they took. Comment lines at the top
// describe all of this for the reader of the file, with the counts of each
// approximation made and of each algorithm used. The error reports options
// or events that name an unknown algorithm.
func WriteGOALOptions(w io.Writer, h Header, events []Event, opts GOALOptions) error {
	if err := opts.check(); err != nil {
		return err
	}
	events = slices.Clone(events)
	Sort(events)
	g := &goalWriter{x: newIndex(events), opts: opts, commTags: map[commTag]int64{}, colls: map[int64]*goalColl{}, algs: map[goalAlgUse]int{}}
	np := numRanks(h, events)
	if err := g.prepare(np); err != nil {
		return err
	}

	bodies := make([][]byte, np)
	for r := range np {
		rank := &goalRank{g: g, rank: r, reqLabel: map[int64]int{}}
		rank.build(g.x.byThr[threadKey{r, 0}])
		bodies[r] = rank.b
	}

	bw := bufio.NewWriterSize(w, 1<<16)
	g.writeHeader(bw, h, np)
	for r, body := range bodies {
		fmt.Fprintf(bw, "\nrank %d {\n", r)
		bw.Write(body)
		bw.WriteString("}\n")
	}
	return bw.Flush()
}

type commTag struct{ comm, tag int }

// goalColl is one collective instance: its participants (world ranks,
// sorted), their events, its root position and tag.
type goalColl struct {
	ranks  []int
	events []int
	bytes  []int64 // Event.Bytes of each participant
	root   int
	tag    int64
	ok     bool   // complete and of a known operation: expanded
	alg    string // its algorithm (CollectiveRounds)
}

type goalWriter struct {
	x        *index
	opts     GOALOptions
	commTags map[commTag]int64
	colls    map[int64]*goalColl
	algs     map[goalAlgUse]int // expanded instances per operation, algorithm and source

	// counts of the approximations, for the header comment
	collsExpanded, collsAsCalc, threadEvents, unmatched int
}

// prepare assigns the tags of other communicators and of collectives, and
// gathers the participants of each collective instance and chooses its
// algorithm.
func (g *goalWriter) prepare(np int) error {
	events := g.x.events
	var pairs []commTag
	var collIDs []int64
	for i := range events {
		e := &events[i]
		if e.Thread != 0 {
			g.threadEvents++
			continue
		}
		if isSendSide(e) && e.Comm != 0 {
			k := commTag{e.Comm, e.Tag}
			if _, ok := g.commTags[k]; !ok {
				g.commTags[k] = 0
				pairs = append(pairs, k)
			}
		}
		if e.Kind == KindOp && classOf(e) == classCollective && e.Collective != 0 {
			c := g.colls[e.Collective]
			if c == nil {
				c = &goalColl{}
				g.colls[e.Collective] = c
				collIDs = append(collIDs, e.Collective)
			}
			c.ranks = append(c.ranks, e.Rank)
			c.events = append(c.events, i)
		}
	}
	slices.SortFunc(pairs, func(a, b commTag) int {
		if a.comm != b.comm {
			return a.comm - b.comm
		}
		return a.tag - b.tag
	})
	for k, p := range pairs {
		g.commTags[p] = goalCommTagBase + int64(k)
	}
	slices.Sort(collIDs)
	for k, id := range collIDs {
		c := g.colls[id]
		c.tag = goalCollTagBase + int64(k)%(1<<31)
		c.ok = g.complete(c, np)
		if !c.ok {
			continue
		}
		if err := g.choose(c); err != nil {
			return err
		}
		g.collsExpanded++
	}
	return nil
}

// complete reports whether c can be expanded: one event per participant,
// all of one known operation and root, every rank of the world there for a
// collective of the world. It sorts c's participants by rank.
func (g *goalWriter) complete(c *goalColl, np int) bool {
	events := g.x.events
	slices.SortFunc(c.events, func(a, b int) int { return events[a].Rank - events[b].Rank })
	c.bytes = make([]int64, len(c.events))
	for j, i := range c.events {
		c.ranks[j], c.bytes[j] = events[i].Rank, events[i].Bytes
	}
	first := &events[c.events[0]]
	c.root = -1
	for j, i := range c.events {
		e := &events[i]
		if e.Op != first.Op || e.Root != first.Root || e.Comm != first.Comm || j > 0 && c.ranks[j] == c.ranks[j-1] {
			return false
		}
		if e.Root == e.Rank {
			c.root = j
		}
	}
	if first.Comm == 0 && len(c.ranks) != np {
		return false
	}
	rooted := first.Root != NoPeer
	if rooted != (c.root >= 0) {
		return false
	}
	_, known := defaultAlgorithms[first.Op]
	return known
}

// tag is the GOAL tag of a point-to-point message sent by e.
func (g *goalWriter) tag(e *Event) int64 {
	if e.Comm == 0 {
		return int64(e.Tag)
	}
	return g.commTags[commTag{e.Comm, e.Tag}]
}

// goalDep is what the next operation of a chain depends on.
type goalDep struct {
	label int
	start bool // irequires: the operation need only have started
}

// goalRank builds the body of one rank.
type goalRank struct {
	g        *goalWriter
	rank     int
	b        []byte
	labels   int
	deps     []goalDep
	calc     Time          // time not yet written as calc
	reqLabel map[int64]int // request id -> label of its send or recv
	wait     int           // label of the last Wait/Test, 0 after other operations
	waitExit Time
}

// op writes one operation that depends on deps and returns its label.
func (r *goalRank) op(text string, deps []goalDep) int {
	r.labels++
	l := r.labels
	r.b = fmt.Appendf(r.b, "l%d: %s\n", l, text)
	for _, d := range deps {
		r.require(l, d)
	}
	return l
}

func (r *goalRank) require(l int, d goalDep) {
	if d.start {
		r.b = fmt.Appendf(r.b, "l%d irequires l%d\n", l, d.label)
	} else {
		r.b = fmt.Appendf(r.b, "l%d requires l%d\n", l, d.label)
	}
}

// flushCalc writes the pending time as one calc.
func (r *goalRank) flushCalc() {
	if n := r.g.opts.units(r.calc); n > 0 {
		l := r.op("calc "+strconv.FormatInt(n, 10), r.deps)
		r.deps = []goalDep{{label: l}}
	}
	r.calc = 0
}

func goalSize(bytes int64) int64 { return max(bytes, 1) }

func (r *goalRank) send(bytes int64, to int, tag int64, deps []goalDep) int {
	return r.op(fmt.Sprintf("send %db to %d tag %d", goalSize(bytes), to, tag), deps)
}

func (r *goalRank) recv(bytes int64, from int, tag int64, deps []goalDep) int {
	return r.op(fmt.Sprintf("recv %db from %d tag %d", goalSize(bytes), from, tag), deps)
}

// build writes the chain of the rank's main thread from its events, given
// in (Enter, Seq) order.
func (r *goalRank) build(list []int) {
	events := r.g.x.events
	var cursor Time
	for n := 0; n < len(list); n++ {
		i := list[n]
		e := &events[i]
		if e.Kind == KindComplete {
			if r.wait != 0 && e.Enter == r.waitExit {
				if l, ok := r.reqLabel[e.Request]; ok {
					r.require(r.wait, goalDep{label: l})
				}
			}
			continue
		}
		r.wait = 0
		if e.Enter > cursor {
			r.calc += e.Enter - cursor
		}
		cursor = max(cursor, e.Exit)
		switch classOf(e) {
		case classSend, classRecv:
			if r.matched(e, i) {
				r.flushCalc()
				r.deps = []goalDep{{label: r.messageLabel(e, i, r.deps)}}
			} else {
				r.calc += e.Duration()
			}
		case classSendrecv:
			// The two halves share their times; what follows requires both.
			halves := []int{i}
			if n+1 < len(list) {
				if f := &events[list[n+1]]; f.Kind == KindOp && f.Op == e.Op && f.Enter == e.Enter && f.Exit == e.Exit {
					halves = append(halves, list[n+1])
					n++
				}
			}
			halves = slices.DeleteFunc(halves, func(j int) bool { return !r.matched(&events[j], j) })
			if len(halves) == 0 {
				r.calc += e.Duration()
				break
			}
			r.flushCalc()
			pre := r.deps
			r.deps = nil
			for _, j := range halves {
				r.deps = append(r.deps, goalDep{label: r.messageLabel(&events[j], j, pre)})
			}
		case classIsend, classIrecv:
			r.nonblocking(e, i)
		case classWait:
			r.flushCalc()
			r.wait = r.op("calc 0", r.deps)
			r.waitExit = e.Exit
			r.deps = []goalDep{{label: r.wait}}
		case classCollective:
			r.collective(e, i)
		default: // compute, thread primitives, other local calls
			r.calc += e.Duration()
		}
	}
	r.flushCalc()
}

// matched reports whether the message of e (event i) has both ends in the
// trace, e being one of them; it counts the calls that communicate but are
// not matched.
func (r *goalRank) matched(e *Event, i int) bool {
	s, rv, ok := r.g.x.message(e.Message)
	if ok && (i == s || i == rv) {
		return true
	}
	if e.Peer != NoPeer {
		r.g.unmatched++
	}
	return false
}

// messageLabel writes the send or receive of e (event i), whose message
// is matched, depending on deps, and returns its label.
func (r *goalRank) messageLabel(e *Event, i int, deps []goalDep) int {
	events := r.g.x.events
	s, rv, _ := r.g.x.message(e.Message)
	send, recv := &events[s], &events[rv]
	if i == s {
		return r.send(send.Bytes, recv.Rank, r.g.tag(send), deps)
	}
	return r.recv(send.Bytes, send.Rank, r.g.tag(send), deps)
}

// nonblocking writes the send or receive an Isend or Irecv (event i)
// starts, which what follows need only see started.
func (r *goalRank) nonblocking(e *Event, i int) {
	msgEvent := i
	if classOf(e) == classIrecv {
		_, c, ok := r.g.x.request(e.Rank, e.Request)
		if !ok {
			if e.Peer != NoPeer {
				r.g.unmatched++
			}
			r.calc += e.Duration()
			return
		}
		msgEvent = c // the completion carries the message
	}
	m := &r.g.x.events[msgEvent]
	if !r.matched(m, msgEvent) {
		r.calc += e.Duration()
		return
	}
	r.flushCalc()
	l := r.messageLabel(m, msgEvent, r.deps)
	r.reqLabel[e.Request] = l
	r.deps = []goalDep{{label: l, start: true}}
}

// collective writes the messages of collective call e (event i), or calc
// of its duration when it cannot be expanded.
func (r *goalRank) collective(e *Event, i int) {
	c := r.g.colls[e.Collective]
	if c == nil || !c.ok {
		r.g.collsAsCalc++
		r.b = fmt.Appendf(r.b, "// %s (collective %d) not expanded (unknown operation or incomplete in the trace): calc of its duration\n",
			oneLine(e.Op), e.Collective)
		r.calc += e.Duration()
		return
	}
	pos, _ := slices.BinarySearch(c.ranks, e.Rank)
	rounds, _ := CollectiveRounds(e.Op, c.alg, pos, len(c.ranks), c.root, c.bytes) // checked in choose
	if len(rounds) == 0 {
		r.calc += e.Duration() // alone in the collective: it does not communicate
		return
	}
	r.flushCalc()
	pre := r.deps
	for _, round := range rounds {
		var after []goalDep
		for _, m := range round {
			var l int
			if m.Send {
				l = r.send(m.Size, c.ranks[m.Peer], c.tag, pre)
			} else {
				l = r.recv(m.Size, c.ranks[m.Peer], c.tag, pre)
			}
			after = append(after, goalDep{label: l})
		}
		pre = after
	}
	r.deps = pre
}
