package patterns_test

import (
	"math"
	"testing"

	"github.com/predict-tools/predict/patterns"
	"github.com/predict-tools/predict/trace"
)

// builder makes hand-made traces; times are in milliseconds.
type builder struct {
	events []trace.Event
	seq    map[int]int64
}

func newBuilder() *builder { return &builder{seq: make(map[int]int64)} }

func ms(t float64) trace.Time { return trace.Time(math.Round(t * float64(trace.Millisecond))) }

// add appends e with its sequence number and returns it for changes.
func (b *builder) add(e trace.Event) *trace.Event {
	b.seq[e.Rank]++
	if e.Seq == 0 {
		e.Seq = b.seq[e.Rank]
	}
	if e.Kind == "" {
		e.Kind = trace.KindOp
	}
	b.events = append(b.events, e)
	return &b.events[len(b.events)-1]
}

func (b *builder) send(rank int, op string, peer int, msg int64, enter, exit float64, proto, site string) *trace.Event {
	return b.add(trace.Event{Rank: rank, Op: op, Peer: peer, Root: trace.NoPeer, Message: msg, Protocol: proto,
		Bytes: 1024, Site: site, Enter: ms(enter), Exit: ms(exit)})
}

func (b *builder) recv(rank, peer int, msg int64, enter, exit float64, site string) *trace.Event {
	return b.add(trace.Event{Rank: rank, Op: "Recv", Peer: peer, Root: trace.NoPeer, Message: msg, Bytes: 1024,
		Site: site, Enter: ms(enter), Exit: ms(exit)})
}

// nonblocking starts a request (Isend, Irecv, ...).
func (b *builder) nonblocking(rank int, op string, peer int, msg, req int64, enter, exit float64, proto, site string) *trace.Event {
	if op == "Irecv" {
		msg = 0 // as commlib: the Irecv does not know its message yet
	}
	return b.add(trace.Event{Rank: rank, Op: op, Peer: peer, Root: trace.NoPeer, Message: msg, Request: req,
		Protocol: proto, Bytes: 1024, Site: site, Enter: ms(enter), Exit: ms(exit)})
}

// wait adds a Wait or Waitall call and the completions it observes: done
// maps each request to its op ("Irecv", "Isend", ...), message and peer.
func (b *builder) wait(rank int, op string, enter, exit float64, site string, done ...completion) *trace.Event {
	e := trace.Event{Rank: rank, Op: op, Peer: trace.NoPeer, Root: trace.NoPeer, Site: site, Enter: ms(enter), Exit: ms(exit)}
	for _, d := range done {
		e.Requests = append(e.Requests, d.req)
	}
	if op != "Waitall" && len(done) == 1 {
		e.Request, e.Requests = done[0].req, nil
	}
	w := *b.add(e)
	for _, d := range done {
		b.add(trace.Event{Rank: rank, Kind: trace.KindComplete, Op: d.op, Peer: d.peer, Root: trace.NoPeer,
			Request: d.req, Message: d.msg, Protocol: d.proto, Site: site, Enter: w.Exit, Exit: w.Exit})
	}
	return &w
}

type completion struct {
	op    string
	req   int64
	msg   int64
	peer  int
	proto string
}

func (b *builder) coll(rank int, op string, id int64, root int, enter, exit float64, site string) *trace.Event {
	return b.add(trace.Event{Rank: rank, Op: op, Peer: trace.NoPeer, Root: root, Collective: id, Bytes: 8,
		Site: site, Enter: ms(enter), Exit: ms(exit)})
}

func (b *builder) thread(rank, thread int, op string, object int64, enter, exit float64, site string) *trace.Event {
	return b.add(trace.Event{Rank: rank, Thread: thread, Op: op, Peer: trace.NoPeer, Root: trace.NoPeer, Object: object,
		Site: site, Enter: ms(enter), Exit: ms(exit)})
}

// analyze runs Analyze with every wait counted (eps 1 ps) unless opts says
// otherwise.
func (b *builder) analyze(t *testing.T, opts patterns.Options) *patterns.Report {
	t.Helper()
	if opts.Eps == 0 {
		opts.Eps = 1
	}
	rep := patterns.Analyze(b.events, opts)
	for _, w := range rep.Warnings {
		t.Logf("warning: %s", w)
	}
	return rep
}

// lost sums the findings of pattern on rank at site (over threads) and
// returns their lost time and count.
func lost(fs []patterns.Finding, pattern string, rank int, site string) (trace.Time, int) {
	var l trace.Time
	n := 0
	for _, f := range fs {
		if f.Pattern == pattern && f.Rank == rank && f.Site == site {
			l += f.Lost
			n += f.Count
		}
	}
	return l, n
}

// expect checks one finding.
func expect(t *testing.T, fs []patterns.Finding, pattern string, rank int, site string, want trace.Time, count int) {
	t.Helper()
	got, n := lost(fs, pattern, rank, site)
	if got != want || n != count {
		t.Errorf("%s rank %d at %s: lost %v in %d instances, want %v in %d", pattern, rank, site, got, n, want, count)
	}
}

// none checks that pattern is not reported anywhere.
func none(t *testing.T, fs []patterns.Finding, pattern string) {
	t.Helper()
	for _, f := range fs {
		if f.Pattern == pattern {
			t.Errorf("unexpected %s: rank %d thread %d at %s, %v in %d", pattern, f.Rank, f.Thread, f.Site, f.Lost, f.Count)
		}
	}
}
