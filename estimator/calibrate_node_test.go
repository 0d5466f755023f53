package estimator

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func TestPlanTriad(t *testing.T) {
	const GiB = 1 << 30
	for _, tc := range []struct {
		cpus            int
		avail           int64
		quick           bool
		streams, alen   int
		inWhy, notInWhy string
	}{
		// 64 cores, plenty of memory: 8 streams of 96 MiB (768 MiB), not 64 (6 GiB).
		{cpus: 64, avail: 256 * GiB, streams: 8, alen: triadLen, inWhy: "8 streams of 64 cores (at most 8)"},
		{cpus: 64, avail: 256 * GiB, quick: true, streams: 4, alen: triadLen},
		{cpus: 2, avail: 0, streams: 2, alen: triadLen, inWhy: "memory available unknown"},
		// 1 GiB available: a quarter, 256 MiB, holds 2 streams of 96 MiB.
		{cpus: 64, avail: GiB, streams: 2, alen: triadLen, inWhy: "1/4 of the 1024 MiB available"},
		// 200 MiB available: 50 MiB, one stream of 3 × 16 MiB.
		{cpus: 8, avail: 200 << 20, streams: 1, alen: triadLen / 2},
		// 40 MiB available: 10 MiB, less than 3 × 8 MiB: not measured.
		{cpus: 8, avail: 40 << 20, streams: 0, inWhy: "not measured", notInWhy: "×"},
	} {
		p := planTriad(tc.cpus, tc.avail, tc.quick)
		if p.streams != tc.streams || (tc.streams > 0 && p.length != tc.alen) ||
			!strings.Contains(p.why, tc.inWhy) || (tc.notInWhy != "" && strings.Contains(p.why, tc.notInWhy)) {
			t.Errorf("%d CPUs, %d MiB, quick %t: %+v", tc.cpus, tc.avail>>20, tc.quick, p)
		}
		if total := int64(p.streams) * 24 * int64(p.length); total > maxTriadBytes || (tc.avail > 0 && total > tc.avail/triadMemShare) {
			t.Errorf("%d CPUs, %d MiB: a working set of %d MiB", tc.cpus, tc.avail>>20, total>>20)
		}
	}
}

// A quantity that does not converge is indicative, not a refusal.
func TestMeasureIndicative(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	wild := samplerFunc(func(n int) ([]float64, error) {
		out := make([]float64, n)
		for i := range out {
			out[i] = 1 + 100*rng.Float64()
		}
		return out, nil
	})
	rule := StopRule{Min: 10, Max: 30, RelCI: 0.001, Budget: time.Hour, Trim: 0.25, Level: 0.95, Batch: 10}
	e, ok, err := measureIndicative("wild", wild, rule)
	if err != nil || ok || e.Runs != 30 {
		t.Errorf("not converged: %v, converged %t, %+v", err, ok, e)
	}
	m := Memory{Node: e, Alone: e, Streams: 2, Plan: "2 streams", Converged: ok}
	if !strings.Contains(m.text(), "not converged") || m.bandwidth() <= 0 {
		t.Errorf("memory %q, bandwidth %g", m.text(), m.bandwidth())
	}
	if none := (Memory{Plan: "not measured, too little memory"}); none.bandwidth() != 0 || !strings.Contains(none.text(), "not measured") {
		t.Errorf("unmeasured memory %q, bandwidth %g", none.text(), none.bandwidth())
	}
}
