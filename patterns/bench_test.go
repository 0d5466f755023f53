package patterns_test

import (
	"testing"

	"github.com/predict-tools/predict/patterns"
	"github.com/predict-tools/predict/trace"
)

// ring returns a predicted-like trace: np ranks, iters iterations of a ring
// exchange (Isend right, Recv left, Wait) with a late rank, and an
// Allreduce per iteration: 5 events per rank and iteration.
func ring(np, iters int) []trace.Event {
	b := newBuilder()
	b.events = make([]trace.Event, 0, np*iters*5)
	msg, coll := int64(0), int64(0)
	t := 0.0
	for range iters {
		coll++
		for r := range np {
			work := 1.0
			if r == 0 {
				work = 1.5 // rank 0 is late: its right neighbour waits
			}
			start := t + work
			id := msg + int64(r) + 1
			right, left := (r+1)%np, (r+np-1)%np
			b.nonblocking(r, "Isend", right, id, id, start, start+0.001, "eager", "ring.go:10")
			b.recv(r, left, msg+int64(left)+1, start+0.001, t+1.502, "ring.go:11")
			b.wait(r, "Wait", t+1.502, t+1.503, "ring.go:12", completion{"Isend", id, id, right, "eager"})
			b.coll(r, "Allreduce", coll, trace.NoPeer, t+1.503, t+1.51, "ring.go:13")
		}
		msg += int64(np)
		t += 2
	}
	return b.events
}

func BenchmarkAnalyze(b *testing.B) {
	events := ring(256, 200) // 256,000 events
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		patterns.Analyze(events, patterns.Options{})
	}
	b.ReportMetric(float64(len(events))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// The ring finds the late sender on rank 1 at every iteration.
func TestRing(t *testing.T) {
	rep := patterns.Analyze(ring(8, 10), patterns.Options{Eps: trace.Microsecond})
	expect(t, rep.Findings, "LateSender", 1, "ring.go:11", 10*ms(0.499), 10)
	for _, w := range rep.Warnings {
		t.Error(w)
	}
}
