package patterns_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/predict-tools/predict/patterns"
	"github.com/predict-tools/predict/trace"
)

// checkRank compares one rank's decomposition.
func checkRank(t *testing.T, rep *patterns.Report, rank int, useful, starvation, latency, overhead trace.Time) {
	t.Helper()
	got := rep.Ranks[rank]
	want := patterns.RankTime{Rank: rank, Useful: useful, Starvation: starvation, Latency: latency, Overhead: overhead, End: got.End}
	if got != want {
		t.Errorf("rank %d: useful %v starvation %v latency %v overhead %v; want %v %v %v %v", rank,
			got.Useful, got.Starvation, got.Latency, got.Overhead, useful, starvation, latency, overhead)
	}
}

// conserved checks that every rank's parts add up to the span.
func conserved(t *testing.T, rep *patterns.Report) {
	t.Helper()
	for _, r := range rep.Ranks {
		if s := r.Useful + r.Starvation + r.Latency + r.Overhead; s != rep.Span || r.Useful < 0 || r.Starvation < 0 ||
			r.Latency < 0 || r.Overhead < 0 {
			t.Errorf("rank %d: %v + %v + %v + %v = %v, span %v", r.Rank, r.Useful, r.Starvation, r.Latency, r.Overhead, s, rep.Span)
		}
	}
}

// The starvation / latency / overhead split of seed-002 §5.6.
func TestDecomposition(t *testing.T) {
	t.Run("M1 late sender and latency", func(t *testing.T) {
		b := newBuilder()
		b.send(0, "Send", 1, 1, 10, 11, "eager", "s.go:1")
		b.recv(1, 0, 1, 4, 15, "r.go:1")
		// Latency 3: the data arrives at 11 + 3 = 14.
		rep := b.analyze(t, patterns.Options{Latency: ms(3)})
		checkRank(t, rep, 1, ms(4), ms(6), ms(3), ms(2))
		checkRank(t, rep, 0, ms(10), ms(4), 0, ms(1)) // starves after its end at 11
		conserved(t, rep)
		// A real trace knows no arrival time: the latency is overhead.
		rep = b.analyze(t, patterns.Options{})
		checkRank(t, rep, 1, ms(4), ms(6), 0, ms(5))
		conserved(t, rep)
	})
	t.Run("M2 allreduce", func(t *testing.T) {
		b := newBuilder()
		b.collective("Allreduce", 1, trace.NoPeer, []float64{2, 5, 3, 9}, []float64{12, 12, 12, 12}, "c.go:1")
		// 4 ranks: 2 tree steps of 1 ms, the data is complete at 11.
		rep := b.analyze(t, patterns.Options{Latency: ms(1)})
		checkRank(t, rep, 0, ms(2), ms(7), ms(2), ms(1))
		checkRank(t, rep, 1, ms(5), ms(4), ms(2), ms(1))
		checkRank(t, rep, 2, ms(3), ms(6), ms(2), ms(1))
		checkRank(t, rep, 3, ms(9), 0, ms(2), ms(1))
		conserved(t, rep)
		// POP: useful 2, 5, 3, 9 of 12.
		p := rep.POP
		if !near(p.LoadBalance, 19.0/4/9) || !near(p.CommunicationEfficiency, 9.0/12) ||
			!near(p.ParallelEfficiency, 19.0/4/12) || p.Serialization != nil || p.Note == "" {
			t.Errorf("POP %+v", p)
		}
	})
	t.Run("M3 late receiver", func(t *testing.T) {
		b := newBuilder()
		b.send(0, "Send", 1, 1, 2, 12.5, "rendezvous", "s.go:1")
		b.recv(1, 0, 1, 8, 12.5, "r.go:1")
		rep := b.analyze(t, patterns.Options{Latency: ms(4)}) // the transfer takes 4
		checkRank(t, rep, 0, ms(2), ms(6), ms(4), ms(0.5))
		conserved(t, rep)
	})
	t.Run("propagated overhead", func(t *testing.T) {
		// Rank 0 spends [2,6) in a call that waits for nothing (overhead),
		// then sends late to rank 1, which starves in [0,10): 4 ms of that
		// are rank 0's overhead, not starvation.
		b := newBuilder()
		b.send(0, "Send", 2, 1, 2, 6, "eager", "s.go:1")
		b.send(0, "Send", 1, 2, 10, 10.1, "eager", "s.go:2")
		b.recv(1, 0, 2, 0, 11, "r.go:1")
		b.recv(2, 0, 1, 11, 11.1, "r.go:2")
		rep := b.analyze(t, patterns.Options{})
		checkRank(t, rep, 1, 0, ms(6.1), 0, ms(5)) // and 0.1 after its end
		conserved(t, rep)
	})
	t.Run("idle ranks and threads", func(t *testing.T) {
		b := newBuilder()
		b.thread(0, 0, "Pool.WaitForAll", 1, 1, 9, "p.go:1") // the rank's threads work: useful
		b.thread(0, 1, "Mutex.Lock", 2, 2, 3, "p.go:2")
		rep := b.analyze(t, patterns.Options{NP: 3})
		checkRank(t, rep, 0, ms(9), 0, 0, 0)
		checkRank(t, rep, 2, 0, ms(9), 0, 0) // no events: starves all along
		conserved(t, rep)
		if !near(rep.POP.LoadBalance, 1.0/3) {
			t.Errorf("load balance %v", rep.POP.LoadBalance)
		}
	})
}

// POP's serialization and transfer need the ideal-network run.
func TestPOPWithIdealRun(t *testing.T) {
	real, ideal := newBuilder(), newBuilder()
	real.collective("Allreduce", 1, trace.NoPeer, []float64{6, 8}, []float64{10, 10}, "c.go:1")
	ideal.collective("Allreduce", 1, trace.NoPeer, []float64{6, 8}, []float64{8, 8}, "c.go:1")
	rep := real.analyze(t, patterns.Options{Ideal: ideal.events})
	p := rep.POP
	if p.Serialization == nil || p.Transfer == nil || !near(*p.Serialization, 1) || !near(*p.Transfer, 0.8) ||
		!near(p.CommunicationEfficiency, 0.8) {
		t.Errorf("POP %+v", p)
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// mixed is a trace with every kind of pattern.
func mixed() *builder {
	b := newBuilder()
	b.send(0, "Send", 1, 1, 10, 10.1, "eager", "s.go:1")
	b.recv(1, 0, 1, 2, 10.2, "r.go:1")
	b.send(0, "Ssend", 1, 2, 11, 20, "sync", "s.go:2")
	b.recv(1, 0, 2, 19, 20, "r.go:2")
	b.nonblocking(1, "Irecv", 0, 0, 5, 20, 20.1, "", "r.go:3")
	b.send(0, "Send", 1, 3, 30, 30.1, "eager", "s.go:3")
	b.wait(1, "Wait", 21, 30.2, "r.go:4", completion{"Irecv", 5, 3, 0, ""})
	b.collective("Bcast", 1, 0, []float64{33, 31}, []float64{35, 35}, "c.go:1")
	b.collective("Reduce", 2, 0, []float64{36, 40}, []float64{41, 40.1}, "c.go:2")
	b.collective("Allreduce", 3, trace.NoPeer, []float64{45, 42}, []float64{46, 46}, "c.go:3")
	b.thread(0, 1, "Mutex.Lock", 9, 50, 50.1, "l.go:1")
	b.thread(0, 2, "Mutex.Lock", 9, 50, 55, "l.go:1")
	b.thread(0, 1, "Mutex.Unlock", 9, 54, 54.5, "l.go:2")
	b.thread(0, 2, "Mutex.Unlock", 9, 55, 55.5, "l.go:2")
	// Same-time zero-length calls, ordered by Seq only.
	b.send(0, "Send", 1, 4, 60, 60, "eager", "s.go:4")
	b.recv(0, 1, 5, 60, 60, "s.go:5")
	b.send(1, "Send", 0, 5, 60, 60, "eager", "r.go:5")
	b.recv(1, 0, 4, 60, 60, "r.go:6")
	return b
}

// The input order does not matter: a shuffled trace gives the same report,
// and every pattern of the mixed trace is there.
func TestOrderIndependence(t *testing.T) {
	b := mixed()
	want := report(t, b.events)
	for _, p := range []string{"LateSender", "LateReceiver", "LateSenderAtWait", "LateBroadcast", "EarlyReduce",
		"WaitAtNxN", "LockContention", "SendRecvPair"} {
		if !strings.Contains(want, `"pattern": "`+p+`"`) {
			t.Errorf("no %s in %s", p, want)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		events := slices.Clone(b.events)
		rng.Shuffle(len(events), func(i, j int) { events[i], events[j] = events[j], events[i] })
		if got := report(t, events); got != want {
			t.Fatalf("shuffled input, different report:\n%s\nwant:\n%s", got, want)
		}
	}
}

func report(t *testing.T, events []trace.Event) string {
	t.Helper()
	var buf bytes.Buffer
	if err := patterns.Analyze(events, patterns.Options{Eps: 1}).WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// Malformed input never panics: bad events are skipped with a warning that
// names them.
func TestMalformed(t *testing.T) {
	b := mixed()
	b.add(trace.Event{Rank: -1, Op: "Send", Enter: 1, Exit: 2})
	b.add(trace.Event{Rank: 0, Op: "Send", Enter: 5, Exit: 2, Site: "bad.go:7"})
	b.add(trace.Event{Rank: 7, Op: "Recv", Enter: 1, Exit: 2})
	b.add(trace.Event{Rank: 0, Kind: "enter", Op: "Recv", Enter: 1, Exit: 2})
	b.send(0, "Send", 1, 1, 12, 12.1, "eager", "dup.go:1") // a second send of message 1
	b.recv(1, 0, 99, 70, 71, "orphan.go:1")                // a message nobody sent
	rep := patterns.Analyze(b.events, patterns.Options{NP: 2})
	text := strings.Join(rep.Warnings, "\n")
	for _, s := range []string{"rank -1 outside 0..1", "enter 5, exit 2", "at bad.go:7", "rank 7 outside",
		`unknown kind "enter"`, "message 1 has a second send", "message 99 has no send"} {
		if !strings.Contains(text, s) {
			t.Errorf("no warning %q in\n%s", s, text)
		}
	}
	// Random traces: no panic, conservation holds, output is valid JSON.
	rng := rand.New(rand.NewPCG(3, 4))
	ops := []string{"Send", "Ssend", "Bsend", "Recv", "Isend", "Irecv", "Wait", "Waitall", "Test", "Sendrecv",
		"Barrier", "Bcast", "Reduce", "Scan", "Allreduce", "Mutex.Lock", "Mutex.Unlock", "Barrier.Wait", "Bogus"}
	kinds := []trace.Kind{trace.KindOp, trace.KindOp, trace.KindOp, trace.KindComplete, trace.KindCompute, "x"}
	for range 300 {
		var events []trace.Event
		for range rng.IntN(40) {
			enter := trace.Time(rng.IntN(100)) - 2
			e := trace.Event{Rank: rng.IntN(4) - 1, Thread: rng.IntN(3), Kind: kinds[rng.IntN(len(kinds))],
				Op: ops[rng.IntN(len(ops))], Peer: rng.IntN(5) - 1, Root: rng.IntN(5) - 1,
				Message: int64(rng.IntN(6)), Request: int64(rng.IntN(4)), Collective: int64(rng.IntN(3)),
				Object: int64(rng.IntN(2)), Bytes: int64(rng.IntN(1 << 18)), Enter: enter,
				Exit: enter + trace.Time(rng.IntN(30)) - 3, Seq: int64(rng.IntN(5)), Site: "f.go:1"}
			if rng.IntN(3) == 0 {
				e.Requests = []int64{int64(rng.IntN(4)), int64(rng.IntN(4))}
			}
			if rng.IntN(2) == 0 {
				e.Protocol = []string{"eager", "rendezvous", "sync", "buffered", "ready", ""}[rng.IntN(6)]
			}
			events = append(events, e)
		}
		rep := patterns.Analyze(events, patterns.Options{Eps: 1, Ideal: events[:len(events)/2]})
		conserved(t, rep)
		var buf bytes.Buffer
		if err := rep.WriteJSON(&buf); err != nil || !json.Valid(buf.Bytes()) {
			t.Fatalf("JSON: %v", err)
		}
		if err := rep.WriteText(&buf, ""); err != nil {
			t.Fatal(err)
		}
	}
}

// The text report groups ranks and shows sites relative to a base.
func TestText(t *testing.T) {
	b := newBuilder()
	b.collective("Bcast", 1, 0, []float64{30, 0, 0, 0}, []float64{30.1, 30.2, 30.2, 30.2}, "/src/app/main.go:68")
	var buf bytes.Buffer
	if err := b.analyze(t, patterns.Options{Eps: trace.Millisecond}).WriteText(&buf, "/src"); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, s := range []string{
		"4 ranks, 4 events, run span 30.2ms; Δ_SR 1ms\nnoise threshold eps 1ms (given): shorter waits are not counted\n",
		"Patterns (lost 90ms in all):",
		"LateBroadcast  1-3    0        app/main.go:68  Bcast  90ms  30ms  3      waits for the root, rank 0 (Bcast at app/main.go:68)",
		"POP: parallel efficiency",
		"serialization, transfer: not available",
	} {
		if !strings.Contains(out, s) {
			t.Errorf("no %q in\n%s", s, out)
		}
	}
}

// The text report says which automatic threshold it used, and why.
func TestTextEpsRule(t *testing.T) {
	b := newBuilder()
	b.collective("Bcast", 1, 0, []float64{30, 0, 0, 0}, []float64{30.1, 30.2, 30.2, 30.2}, "/src/app/main.go:68")
	for _, c := range []struct {
		modeled bool
		want    string
	}{
		{false, "noise threshold eps 100us (the noise floor of a real trace; a millionth of the run's span 30.2ms is less; --eps to change): shorter waits are not counted\n"},
		{true, "noise threshold eps 30.2ns (a millionth of the run's span 30.2ms: a modeled trace has no measurement noise; --eps to change): shorter waits are not counted\n"},
	} {
		var buf bytes.Buffer
		if err := patterns.Analyze(b.events, patterns.Options{Modeled: c.modeled}).WriteText(&buf, ""); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(buf.String(), c.want) {
			t.Errorf("modeled %v: no %q in\n%s", c.modeled, c.want, buf.String())
		}
	}
}

// Findings are per file:line: the column of a predicted trace's sites is
// dropped.
func TestSiteLine(t *testing.T) {
	b := newBuilder()
	b.send(0, "Send", 1, 1, 10, 10.1, "eager", "app/main.go:67:11")
	b.recv(1, 0, 1, 0, 10.2, "app/main.go:73:17")
	b.send(0, "Send", 1, 2, 20, 20.1, "eager", "app/main.go:67:11")
	b.recv(1, 0, 2, 10.3, 20.2, "app/main.go:73:5")
	rep := b.analyze(t, patterns.Options{})
	expect(t, rep.Findings, "LateSender", 1, "app/main.go:73", ms(19.7), 2)
	if c := rep.Findings[0].Culprit; c == nil || c.Site != "app/main.go:67" {
		t.Errorf("culprit %+v", c)
	}
}

// A rank far beyond any real run is skipped, not allocated for.
func TestHugeRank(t *testing.T) {
	rep := patterns.Analyze([]trace.Event{{Rank: 1 << 40, Kind: trace.KindOp, Op: "Barrier", Enter: 1, Exit: 2}}, patterns.Options{})
	if len(rep.Warnings) != 1 || rep.NP != 0 {
		t.Errorf("np %d, warnings %q", rep.NP, rep.Warnings)
	}
}
