package interp

import (
	"testing"
	"time"
)

// BenchmarkPingPongEvents measures the interpreter's speed on a
// communication-bound program: events per second on one core.
func BenchmarkPingPongEvents(b *testing.B) {
	p := prepare(&testing.T{}, "./interp/testdata/pingpong")
	m := handMachine(&testing.T{})
	var events int64
	var elapsed time.Duration
	for b.Loop() {
		start := time.Now()
		r, err := p.Run(Config{NP: 2, Machine: m, Args: []string{"-reps", "100000"}})
		if err != nil {
			b.Fatal(err)
		}
		elapsed += time.Since(start)
		events += r.Events
	}
	b.ReportMetric(float64(events)/elapsed.Seconds(), "events/s")
}
