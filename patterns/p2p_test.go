package patterns_test

import (
	"fmt"
	"testing"

	"github.com/predict-tools/predict/patterns"
	"github.com/predict-tools/predict/trace"
)

// A Waitall completing three late messages counts the latest sender only:
// max, not sum (Scalasca; waitirecv's second want line).
func TestWaitallMaximum(t *testing.T) {
	b := newBuilder()
	for i, sent := range []float64{20, 40, 55} {
		req := int64(i + 1)
		b.nonblocking(1, "Irecv", 0, 0, req, float64(i)*0.1, float64(i)*0.1+0.05, "", "r.go:1")
		b.send(0, "Send", 1, req, sent, sent+0.1, "eager", "s.go:1")
	}
	b.wait(1, "Waitall", 10, 60, "r.go:2",
		completion{"Irecv", 1, 1, 0, ""}, completion{"Irecv", 2, 2, 0, ""}, completion{"Irecv", 3, 3, 0, ""})
	rep := b.analyze(t, patterns.Options{})
	expect(t, rep.Findings, "LateSenderAtWait", 1, "r.go:2", ms(45), 1) // 55 - 10, not 10+30+45
	none(t, rep.Findings, "LateSender")
	none(t, rep.Findings, "WrongOrder") // messages of one Waitall do not reclassify each other
	if f := rep.Findings[0]; f.Culprit == nil || f.Culprit.Rank != 0 || f.Culprit.Op != "Send" {
		t.Errorf("culprit %+v, want the Send of rank 0", f.Culprit)
	}
	// ParJava: the whole Wait, with O_D = (55 - 0.2) + 0.05 (the Irecv of
	// the latest message) + T_send 0.
	expect(t, rep.Alternative, "WaitAtReceiver", 1, "r.go:2", ms(50), 1)
	for _, f := range rep.Alternative {
		if f.Pattern == "WaitAtReceiver" && (f.OptimalDistance != ms(54.85) || f.Distance != ms(9.8)) {
			t.Errorf("WaitAtReceiver O_D %v, distance %v; want 54.85ms and 9.8ms", f.OptimalDistance, f.Distance)
		}
	}
}

// Late Sender is measured to the send's enter and clipped to the receive;
// a Test call is not a blocking receive.
func TestLateSenderClipAndTest(t *testing.T) {
	b := newBuilder()
	b.send(0, "Send", 1, 1, 30, 30.1, "eager", "s.go:1")
	b.recv(1, 0, 1, 10, 31, "r.go:1") // waits 20
	b.send(0, "Send", 1, 2, 50, 50.1, "eager", "s.go:2")
	b.nonblocking(1, "Irecv", 0, 0, 9, 31, 31.1, "", "r.go:2")
	b.wait(1, "Test", 40, 55, "r.go:3", completion{"Irecv", 9, 2, 0, ""})
	rep := b.analyze(t, patterns.Options{})
	expect(t, rep.Findings, "LateSender", 1, "r.go:1", ms(20), 1)
	none(t, rep.Findings, "LateSenderAtWait")
}

// Scalasca's wrong-order rule: a Late Sender instance whose message was sent
// after a message received later is reclassified.
func TestWrongOrder(t *testing.T) {
	build := func(firstSource, secondSource int, reverse bool) *builder {
		b := newBuilder()
		b.send(firstSource, "Send", 1, 1, 0, 0.1, "eager", "s.go:1")    // A, early
		b.send(secondSource, "Send", 1, 2, 40, 40.1, "eager", "s.go:2") // B, late
		if reverse {
			b.recv(1, secondSource, 2, 1, 41, "r.go:10") // B first: waits 39
			b.recv(1, firstSource, 1, 41, 41.1, "r.go:11")
		} else {
			b.recv(1, firstSource, 1, 1, 1.1, "r.go:10")
			b.recv(1, secondSource, 2, 1.1, 41, "r.go:11") // waits 38.9, in order
		}
		return b
	}
	t.Run("same source", func(t *testing.T) {
		rep := build(0, 0, true).analyze(t, patterns.Options{})
		expect(t, rep.Findings, "WrongOrder", 1, "r.go:10", ms(39), 1)
		none(t, rep.Findings, "LateSender") // exclusive Late Sender is 0
		if rep.Findings[0].Detail != "same source" {
			t.Errorf("detail %q", rep.Findings[0].Detail)
		}
		expect(t, rep.Alternative, "WrongMessageOrder", 1, "r.go:10", 0, 1) // ParJava: the order criterion
	})
	t.Run("different sources", func(t *testing.T) {
		rep := build(2, 0, true).analyze(t, patterns.Options{})
		expect(t, rep.Findings, "WrongOrder", 1, "r.go:10", ms(39), 1)
		if rep.Findings[0].Detail != "different sources" {
			t.Errorf("detail %q", rep.Findings[0].Detail)
		}
		none(t, rep.Alternative, "WrongMessageOrder") // different pairs: not ParJava's
	})
	t.Run("right order", func(t *testing.T) {
		rep := build(0, 0, false).analyze(t, patterns.Options{})
		expect(t, rep.Findings, "LateSender", 1, "r.go:11", ms(38.9), 1)
		none(t, rep.Findings, "WrongOrder")
		none(t, rep.Alternative, "WrongMessageOrder")
	})
	t.Run("both waiting", func(t *testing.T) {
		// The receiver is late for both: no Late Sender to reclassify, but
		// ParJava's pure order criterion still holds (wrongorder -near).
		b := newBuilder()
		b.send(0, "Send", 1, 1, 0, 0.1, "eager", "s.go:1")
		b.send(0, "Send", 1, 2, 1, 1.1, "eager", "s.go:2")
		b.recv(1, 0, 2, 40, 40.1, "r.go:10")
		b.recv(1, 0, 1, 40.1, 40.2, "r.go:11")
		rep := b.analyze(t, patterns.Options{})
		if len(rep.Findings) != 0 {
			t.Errorf("findings %v", rep.Findings)
		}
		expect(t, rep.Alternative, "WrongMessageOrder", 1, "r.go:10", 0, 1)
	})
	t.Run("window", func(t *testing.T) {
		// 101 late messages, then one sent before all: only the last 100
		// instances are still kept for reclassification.
		b := newBuilder()
		b.send(0, "Send", 1, 1000, 0, 0.01, "eager", "s.go:0")
		for i := range 101 {
			at := float64(10 + 10*i)
			b.send(0, "Send", 1, int64(i+1), at, at+0.01, "eager", "s.go:1")
			b.recv(1, 0, int64(i+1), at-5, at+0.02, fmt.Sprintf("r.go:%d", i))
		}
		b.recv(1, 0, 1000, 2000, 2000.1, "r.go:1000")
		rep := b.analyze(t, patterns.Options{})
		expect(t, rep.Findings, "LateSender", 1, "r.go:0", ms(5), 1)
		expect(t, rep.Findings, "WrongOrder", 1, "r.go:1", ms(5), 1)
		expect(t, rep.Findings, "WrongOrder", 1, "r.go:100", ms(5), 1)
	})
}

// Late Receiver needs a send that cannot complete alone: Ssend, Issend or a
// rendezvous standard send, never an eager or buffered one.
func TestLateReceiverProtocols(t *testing.T) {
	for _, tc := range []struct {
		op, proto  string
		bytes      int64
		eagerLimit int64
		want       trace.Time
	}{
		{"Ssend", "sync", 1024, 0, ms(40)},
		{"Send", "rendezvous", 1 << 17, 0, ms(40)},
		{"Send", "eager", 1024, 0, 0},
		{"Bsend", "buffered", 1024, 0, 0},
		{"Send", "", 1 << 17, 1 << 16, ms(40)}, // no protocol recorded: above the eager limit
		{"Send", "", 1 << 10, 1 << 16, 0},
		{"Ssend", "", 1024, 0, ms(40)},
	} {
		t.Run(fmt.Sprintf("%s-%s-%d", tc.op, tc.proto, tc.bytes), func(t *testing.T) {
			b := newBuilder()
			b.send(0, tc.op, 1, 1, 0, 50, tc.proto, "s.go:1").Bytes = tc.bytes
			b.recv(1, 0, 1, 40, 50, "r.go:1")
			rep := b.analyze(t, patterns.Options{EagerLimit: tc.eagerLimit})
			n := 1
			if tc.want == 0 {
				n = 0
			}
			expect(t, rep.Findings, "LateReceiver", 0, "s.go:1", tc.want, n)
			none(t, rep.Findings, "LateSender")
		})
	}
	t.Run("at Wait", func(t *testing.T) {
		for _, op := range []string{"Isend", "Issend", "Ibsend"} {
			b := newBuilder()
			proto := map[string]string{"Isend": "rendezvous", "Issend": "sync", "Ibsend": "buffered"}[op]
			b.nonblocking(0, op, 1, 1, 5, 0, 0.1, proto, "s.go:1")
			b.wait(0, "Wait", 10, 50, "s.go:2", completion{op, 5, 1, 1, proto})
			b.nonblocking(1, "Irecv", 0, 0, 7, 40, 40.1, "", "r.go:1")
			b.wait(1, "Wait", 40.1, 50, "r.go:2", completion{"Irecv", 7, 1, 0, ""})
			rep := b.analyze(t, patterns.Options{})
			want, n := ms(30), 1 // Enter(Irecv) - Enter(Wait)
			if op == "Ibsend" {
				want, n = 0, 0
			}
			expect(t, rep.Findings, "LateReceiverAtWait", 0, "s.go:2", want, n)
		}
	})
	t.Run("receive first", func(t *testing.T) {
		// The send's Wait starts after the receive was posted: no wait.
		b := newBuilder()
		b.nonblocking(0, "Isend", 1, 1, 5, 0, 0.1, "rendezvous", "s.go:1")
		b.recv(1, 0, 1, 20, 45.5, "r.go:1")
		b.wait(0, "Wait", 45, 46, "s.go:2", completion{"Isend", 5, 1, 1, "rendezvous"})
		rep := b.analyze(t, patterns.Options{})
		none(t, rep.Findings, "LateReceiverAtWait")
	})
}

// ParJava's blocking cases (seed-003 test vectors 11 and 12) and the O_D of
// nonblocking pairs (vector 14).
func TestParJavaVocabulary(t *testing.T) {
	t.Run("early and late sends", func(t *testing.T) {
		b := newBuilder()
		b.send(0, "Send", 1, 1, 100, 150.5, "rendezvous", "s.go:1") // B1: the sender idles 50
		b.recv(1, 0, 1, 150, 150.5, "r.go:1")
		b.send(0, "Send", 1, 2, 250, 250.1, "eager", "s.go:2") // B2: the receiver idles 50
		b.recv(1, 0, 2, 200, 250.2, "r.go:2")
		b.send(0, "Send", 1, 3, 300, 300.1, "eager", "s.go:3") // B1 with an eager send: excluded
		b.recv(1, 0, 3, 350, 350.1, "r.go:3")
		rep := b.analyze(t, patterns.Options{})
		expect(t, rep.Alternative, "EarlyStandardSend", 0, "s.go:1", ms(50), 1)
		expect(t, rep.Alternative, "LateStandardSend", 1, "r.go:2", ms(50), 1)
		expect(t, rep.Alternative, "EarlyStandardSend", 0, "s.go:3", 0, 0)
		// The same waits in Scalasca's names.
		expect(t, rep.Findings, "LateReceiver", 0, "s.go:1", ms(50), 1)
		expect(t, rep.Findings, "LateSender", 1, "r.go:2", ms(50), 1)
	})
	t.Run("optimal distance", func(t *testing.T) {
		b := newBuilder()
		b.nonblocking(0, "Isend", 1, 1, 1, 10, 11, "rendezvous", "s.go:1")
		b.wait(0, "Wait", 12, 20, "s.go:2", completion{"Isend", 1, 1, 1, "rendezvous"})
		b.nonblocking(1, "Irecv", 0, 0, 2, 15, 16, "", "r.go:1")
		b.wait(1, "Wait", 16.5, 20, "r.go:2", completion{"Irecv", 2, 1, 0, ""})
		rep := b.analyze(t, patterns.Options{Latency: ms(4)}) // T_send = 4
		check := func(pattern string, rank int, site string, wantLost, wantOD, wantD trace.Time) {
			t.Helper()
			expect(t, rep.Alternative, pattern, rank, site, wantLost, 1)
			for _, f := range rep.Alternative {
				if f.Pattern == pattern && (f.OptimalDistance != wantOD || f.Distance != wantD) {
					t.Errorf("%s: O_D %v, distance %v; want %v and %v", pattern, f.OptimalDistance, f.Distance, wantOD, wantD)
				}
			}
		}
		check("WaitAtSender", 0, "s.go:2", ms(8), ms(10), ms(2))      // O_D = (15-10) + 1 + 4
		check("WaitAtReceiver", 1, "r.go:2", ms(3.5), ms(5), ms(1.5)) // O_D = 1 + 4
		expect(t, rep.Findings, "LateReceiverAtWait", 0, "s.go:2", ms(3), 1)
	})
	t.Run("wrong order with Bsend", func(t *testing.T) { // vector 13
		b := newBuilder()
		b.send(0, "Bsend", 1, 1, 10, 10.1, "buffered", "s.go:1")
		b.send(0, "Bsend", 1, 2, 12, 12.1, "buffered", "s.go:2")
		b.recv(1, 0, 2, 20, 20.1, "r.go:1")
		b.recv(1, 0, 1, 25, 25.1, "r.go:2")
		rep := b.analyze(t, patterns.Options{})
		expect(t, rep.Alternative, "WrongMessageOrder", 1, "r.go:1", 0, 1)
		none(t, rep.Alternative, "EarlyBufferedSend")
	})
}

// A send closely followed by a receive from the same peer suggests
// Sendrecv (ParJava §5.3.4, vector 15): lost 0, threshold Δ_SR.
func TestSendRecvPair(t *testing.T) {
	b := newBuilder()
	b.send(0, "Send", 1, 1, 0, 1, "eager", "a.go:1")
	b.recv(0, 1, 2, 1.5, 3, "a.go:2") // 0.5 ms after: a pair
	b.send(1, "Send", 0, 2, 0, 1, "eager", "b.go:1")
	b.recv(1, 0, 1, 21, 22, "b.go:2") // 20 ms after: not
	b.send(2, "Send", 3, 3, 0, 1, "eager", "c.go:1")
	b.recv(2, 0, 4, 1.1, 2, "c.go:2") // another peer: not
	b.send(3, "Send", 2, 5, 0, 1, "eager", "d.go:1")
	b.coll(3, "Barrier", 1, trace.NoPeer, 1, 1.1, "d.go:2")
	b.recv(3, 2, 3, 1.2, 2, "d.go:3") // a call in between: not
	b.send(0, "Send", 3, 4, 2.5, 3, "eager", "x.go:1")
	b.send(2, "Send", 3, 6, 2.5, 3, "eager", "x.go:2")
	b.recv(3, 2, 6, 5, 6, "x.go:3")
	rep := b.analyze(t, patterns.Options{SendRecvGap: ms(1)})
	expect(t, rep.Findings, "SendRecvPair", 0, "a.go:2", 0, 1)
	for _, f := range rep.Findings {
		if f.Pattern == "SendRecvPair" && f.Site != "a.go:2" {
			t.Errorf("unexpected pair at %s", f.Site)
		}
	}
	// Same-time events in a predicted trace: Seq gives the order.
	b = newBuilder()
	b.send(0, "Send", 1, 1, 5, 5, "eager", "a.go:1").Seq = 2
	b.recv(0, 1, 2, 5, 5, "a.go:2").Seq = 1
	rep = b.analyze(t, patterns.Options{})
	none(t, rep.Findings, "SendRecvPair") // the Recv comes first
}

// Waits shorter than eps are not counted, not even when many of them add up
// (the near misses at class C). Without Eps, a real trace's threshold is
// its noise floor, 100 µs, until a millionth of the span is more; a
// modeled trace's is a millionth of its span (here 300 ns): every wait of
// a modeled run shows.
func TestEps(t *testing.T) {
	b := newBuilder()
	for i := range 256 {
		at := float64(i)
		b.send(0, "Send", 1, int64(i+1), at+0.075, at+0.08, "eager", "s.go:1")
		b.recv(1, 0, int64(i+1), at, at+0.09, "r.go:1") // waits 75 µs
	}
	b.send(0, "Send", 1, 1000, 300, 300.1, "eager", "s.go:2")
	b.recv(1, 0, 1000, 298, 300.2, "r.go:2") // waits 2 ms
	rep := patterns.Analyze(b.events, patterns.Options{})
	if want := "the noise floor of a real trace; a millionth of the run's span 300.2ms is less"; rep.Eps != patterns.RealEpsFloor || rep.EpsRule != want {
		t.Errorf("real trace: eps %v (%s), want %v (%s)", rep.Eps, rep.EpsRule, patterns.RealEpsFloor, want)
	}
	expect(t, rep.Findings, "LateSender", 1, "r.go:1", 0, 0)
	expect(t, rep.Findings, "LateSender", 1, "r.go:2", ms(2), 1)

	rep = patterns.Analyze(b.events, patterns.Options{Modeled: true})
	if want := "a millionth of the run's span 300.2ms: a modeled trace has no measurement noise"; rep.Eps != ms(300.2)/1e6 || rep.EpsRule != want {
		t.Errorf("modeled trace: eps %v (%s), want %v (%s)", rep.Eps, rep.EpsRule, ms(300.2)/1e6, want)
	}
	expect(t, rep.Findings, "LateSender", 1, "r.go:1", 256*ms(0.075), 256)
	expect(t, rep.Findings, "LateSender", 1, "r.go:2", ms(2), 1)

	rep = patterns.Analyze(b.events, patterns.Options{Eps: 3 * trace.Millisecond, Modeled: true})
	if rep.Eps != 3*trace.Millisecond || rep.EpsRule != "given" {
		t.Errorf("given: eps %v (%s)", rep.Eps, rep.EpsRule)
	}
	expect(t, rep.Findings, "LateSender", 1, "r.go:2", 0, 0)

	// A real run of 200 s: a millionth of it, 200 µs, is above the floor.
	long := newBuilder()
	long.send(0, "Send", 1, 1, 0.15, 0.2, "eager", "s.go:1")
	long.recv(1, 0, 1, 0, 0.3, "r.go:1") // waits 150 µs
	long.send(0, "Send", 1, 2, 199_999.7, 199_999.8, "eager", "s.go:2")
	long.recv(1, 0, 2, 199_999.4, 200_000, "r.go:2") // waits 300 µs
	rep = patterns.Analyze(long.events, patterns.Options{})
	if want := "a millionth of the run's span 200s, a real trace"; rep.Eps != ms(0.2) || rep.EpsRule != want {
		t.Errorf("long real trace: eps %v (%s), want 200us (%s)", rep.Eps, rep.EpsRule, want)
	}
	expect(t, rep.Findings, "LateSender", 1, "r.go:1", 0, 0)
	expect(t, rep.Findings, "LateSender", 1, "r.go:2", ms(0.3), 1)

	rep = patterns.Analyze(b.events, patterns.Options{Eps: 1})
	expect(t, rep.Findings, "LateSender", 1, "r.go:1", 256*ms(0.075), 256)
}
