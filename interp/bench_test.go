package interp

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/profile"
	"github.com/predict-tools/predict/trace"
)

// Communication events (Result.Events) are the communication operations
// of the ranks: each point-to-point send, each receive when it is matched,
// each rank's call of a collective. The benchmarks time Run alone (the
// program is prepared once) and report events per second; run them with
// -cpu 1 for the figure per core.

// BenchmarkPingPongEvents measures the interpreter's speed on a
// communication-bound program: a blocking ping-pong of 8 B between two
// ranks, 100,000 round trips (400,000 events).
func BenchmarkPingPongEvents(b *testing.B) {
	p := prepare(&testing.T{}, "./interp/testdata/pingpong")
	benchEvents(b, p, Config{NP: 2, Machine: handMachine(&testing.T{}), Args: []string{"-reps", "100000"}})
}

// BenchmarkStencilEvents measures it with many ranks: the stencil at
// np = 1024 without a profile (compute costs nothing), 100 iterations of
// two Sendrecv and an Allreduce per rank (about 500,000 events).
func BenchmarkStencilEvents(b *testing.B) {
	p := prepare(&testing.T{}, "./testprogs/stencil")
	benchEvents(b, p, Config{NP: 1024, Machine: handMachine(&testing.T{}), Args: []string{"-class", "S", "-iters", "100"}})
}

// BenchmarkStencilOversubscribedEvents is BenchmarkStencilEvents with a
// profile, so that ranks compute, on nodes of 16 cores with 64 ranks each:
// every rank takes turns on its node's cores (nodecores.go).
// BenchmarkStencilProfiledEvents is the same with 64 cores a node, for
// the cost of the turns.
func BenchmarkStencilOversubscribedEvents(b *testing.B) { benchStencilOnNodes(b, 16) }
func BenchmarkStencilProfiledEvents(b *testing.B)       { benchStencilOnNodes(b, 64) }

// BenchmarkStencilStealEvents is BenchmarkStencilOversubscribedEvents on
// a machine with a steal delay (nodecores.go), as the local preset has.
func BenchmarkStencilStealEvents(b *testing.B) { benchStencilOnNodes(b, 16, 78*trace.Microsecond) }

// BenchmarkStencilNoisyEvents is BenchmarkStencilProfiledEvents on a
// machine with noise (noise.go): every burst of compute draws its
// deviation.
func BenchmarkStencilNoisyEvents(b *testing.B) {
	p := prepare(&testing.T{}, "./testprogs/stencil")
	prof, err := profile.Read(filepath.Join("testdata", "render", "stencil.profile.json"))
	if err != nil {
		b.Fatal(err)
	}
	m := handMachine(&testing.T{})
	m.Nodes, m.CoresPerNode, m.RanksPerNode = 0, 64, 64
	m.Noise = machine.Noise{{Burst: 10 * trace.Microsecond, Deviations: []float64{-0.1, -0.05, 0.05, 0.1}},
		{Burst: trace.Millisecond, Deviations: []float64{-0.02, -0.01, 0.01, 0.02}}}
	benchEvents(b, p, Config{NP: 1024, Machine: m, Profile: prof, Args: []string{"-class", "S", "-iters", "100"}})
}

func benchStencilOnNodes(b *testing.B, cores int, steal ...trace.Time) {
	p := prepare(&testing.T{}, "./testprogs/stencil")
	prof, err := profile.Read(filepath.Join("testdata", "render", "stencil.profile.json"))
	if err != nil {
		b.Fatal(err)
	}
	m := handMachine(&testing.T{})
	m.Nodes, m.CoresPerNode, m.RanksPerNode = 0, cores, 64
	if len(steal) > 0 {
		m.StealDelay = steal[0]
	}
	benchEvents(b, p, Config{NP: 1024, Machine: m, Profile: prof, Args: []string{"-class", "S", "-iters", "100"}})
}

// BenchmarkRingEvents measures it with nonblocking calls, whose requests
// the program holds: a ring of Irecv, Isend and Waitall of 8 B at np = 64,
// 2,000 times (256,000 events).
func BenchmarkRingEvents(b *testing.B) {
	p := prepare(&testing.T{}, "./interp/testdata/pingpong")
	benchEvents(b, p, Config{NP: 64, Machine: handMachine(&testing.T{}), Args: []string{"-part", "iring", "-reps", "2000"}})
}

func benchEvents(b *testing.B, p *Program, cfg Config) {
	var events int64
	var elapsed time.Duration
	for b.Loop() {
		start := time.Now()
		r, err := p.Run(cfg)
		if err != nil {
			b.Fatal(err)
		}
		elapsed += time.Since(start)
		events += r.Events
	}
	b.ReportMetric(float64(events)/elapsed.Seconds(), "events/s")
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
}
