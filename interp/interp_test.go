package interp

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/model"
	"github.com/predict-tools/predict/profile"
	"github.com/predict-tools/predict/testprogs"
	"github.com/predict-tools/predict/trace"
)

// handMachine has round LogGOPS figures for hand computations: L = 1 µs,
// o = 100 ns, g = 200 ns, G = 1 ns/B, O = 0, S = 1 KiB, one rank per node.
func handMachine(t *testing.T) *machine.Machine {
	m, err := machine.Preset("ideal")
	if err != nil {
		t.Fatal(err)
	}
	lg := machine.LogGOPS{Latency: 1 * trace.Microsecond, Overhead: 100 * trace.Nanosecond,
		GapPerMessage: 200 * trace.Nanosecond, GapPerByte: machine.PerByte(1_000_000), EagerLimit: 1024}
	m.Intra, m.Inter = lg, lg
	return m
}

func prepare(t *testing.T, pattern string) *Program {
	t.Helper()
	p, err := Prepare("..", pattern)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestHandComputed checks the LogGOPS timings against hand computations.
// With s bytes: T = o + L + (s−1)G, one way eager = T + o.
func TestHandComputed(t *testing.T) {
	p := prepare(t, "./interp/testdata/pingpong")
	m := handMachine(t)
	const (
		L = 1_000_000 // ps
		o = 100_000
		G = 1_000 // per byte
	)
	T := func(s int64) int64 { return o + L + (s-1)*G }
	cases := []struct {
		name string
		np   int
		args []string
		want int64
	}{
		// Eager ping-pong, 8 B: two one-way trips of T + o.
		{"eager pingpong", 2, []string{"-bytes", "8"}, 2 * (T(8) + o)},
		// 3 round trips: 6 one-way trips.
		{"eager pingpong x3", 2, []string{"-bytes", "8", "-reps", "3"}, 6 * (T(8) + o)},
		// Rendezvous, 4096 B: the request reaches the receiver (already
		// waiting) at o + L, the data leaves L later and arrives T later,
		// the receive ends o later; twice.
		{"rendezvous pingpong", 2, []string{"-bytes", "4096"}, 2 * (o + L + L + T(4096) + o)},
		// Ring of 8 eager messages, 8 B: 8 hops of T + o; rank 0 ends last.
		{"ring", 8, []string{"-bytes", "8", "-part", "ring"}, 8 * (T(8) + o)},
		// Binomial broadcast at np = 8: three rounds, each a message of
		// T + o after the sender's previous sends (o each): rank 7 gets its
		// copy via 0→4 (round 1), 4→6 (round 2), 6→7 (round 3); in each
		// round the sender starts right when it received.
		{"binomial bcast", 8, []string{"-bytes", "8", "-part", "bcast"}, 3 * (T(8) + o)},
		// Recursive doubling allreduce of 8 B at np = 8: three exchange
		// rounds of T + o each.
		{"recursive doubling allreduce", 8, []string{"-bytes", "8", "-part", "allreduce"}, 3 * (T(8) + o)},
		// Alltoall at np = 1: no message, the rank's own block of 4096 B
		// copied at G a byte.
		{"alltoall to itself", 1, []string{"-bytes", "4096", "-part", "alltoall"}, 4096 * G},
	}
	for _, c := range cases {
		r, err := p.Run(Config{NP: c.np, Machine: m, Args: c.args})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if int64(r.Time) != c.want {
			t.Errorf("%s: predicted %d ps, hand computation %d ps", c.name, r.Time, c.want)
		}
	}
}

// TestSelfCopyTable: a member's own block of a collective is copied at
// the cost the node's ping-pong table gives its bytes (machine.Link.Copy).
// Hand-computed: a table of 2 µs at 1 B and 12 µs at 8 KiB puts 4096 B at
// 2 + 10·4095/8191 µs, 4 999 390 ps (rounded) more than 1 B, above
// 4096·G (G = 1 ns).
func TestSelfCopyTable(t *testing.T) {
	p := prepare(t, "./interp/testdata/pingpong")
	m := handMachine(t)
	m.Table.Intra = machine.Table{{Bytes: 1, Time: 2 * trace.Microsecond}, {Bytes: 8192, Time: 12 * trace.Microsecond}}
	r, err := p.Run(Config{NP: 1, Machine: m, Args: []string{"-bytes", "4096", "-part", "alltoall"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := int64(r.Time), int64(4_999_390); got != want {
		t.Errorf("alltoall to itself: predicted %d ps, hand computation %d ps", got, want)
	}
}

// TestInvariants runs every test program at np = 4 on the local preset
// with two cores, so that ranks wait for cores: for each rank compute +
// overhead + wait + waiting for a core = total, the core_wait events of
// the trace sum to the rank's waiting for a core, the two cores are never
// busier than the run is long, and two runs give identical results.
func TestInvariants(t *testing.T) {
	dirs, m := testPrograms(t)
	m.CoresPerNode = 2
	for _, d := range dirs {
		t.Run(d, func(t *testing.T) {
			p := prepare(t, "./testprogs/"+d)
			// With a profile where there is one, so that ranks compute.
			prof, args := renderedProfile(t, d)
			var events []trace.Event
			r1, err := p.Run(Config{NP: 4, Machine: m, Profile: prof, Args: args, Trace: func(e trace.Event) { events = append(events, e) }})
			if err != nil {
				t.Fatal(err)
			}
			if prof != nil && r1.CoreWait.Max == 0 {
				t.Errorf("4 ranks on 2 cores: no rank waited for a core")
			}
			r2, err := p.Run(Config{NP: 4, Machine: m, Profile: prof, Args: args})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(r1.Ranks, r2.Ranks) || r1.Time != r2.Time || r1.Messages != r2.Messages {
				t.Errorf("two runs differ: %v vs %v", r1.Ranks, r2.Ranks)
			}
			traced := make([]trace.Time, 4)
			for _, e := range events {
				if e.Kind == trace.KindCoreWait {
					traced[e.Rank] += e.Exit - e.Enter
				}
			}
			var busy trace.Time
			for _, rk := range r1.Ranks {
				if rk.Compute+rk.Comm+rk.Wait+rk.CoreWait != rk.Total {
					t.Errorf("rank %d: compute %d + comm %d + wait %d + core wait %d != total %d", rk.Rank, rk.Compute, rk.Comm, rk.Wait, rk.CoreWait, rk.Total)
				}
				if rk.Compute < 0 || rk.Comm < 0 || rk.Wait < 0 || rk.CoreWait < 0 {
					t.Errorf("rank %d: negative part: %+v", rk.Rank, rk)
				}
				if traced[rk.Rank] != rk.CoreWait {
					t.Errorf("rank %d: core_wait events sum to %v, the rank waited %v for a core", rk.Rank, traced[rk.Rank], rk.CoreWait)
				}
				busy += rk.Compute + rk.Comm
			}
			if busy > 2*r1.Time {
				t.Errorf("compute and overhead of the ranks sum to %v: more than 2 cores give in %v", busy, r1.Time)
			}
			// Every message sent is received: sends and receives pair up
			// by message id in the modeled trace.
			sent, recvd := map[int64]int{}, map[int64]int{}
			for _, e := range events {
				if e.Message == 0 {
					continue
				}
				if e.Kind == trace.KindComplete {
					if e.Op == "Irecv" {
						recvd[e.Message]++ // the Wait or Test that completed it
					}
					continue
				}
				if e.Kind != trace.KindOp {
					continue
				}
				switch e.Op {
				case "Send", "Ssend", "Bsend", "Rsend", "Isend", "Issend", "Ibsend", "Irsend":
					sent[e.Message]++
				case "Recv":
					recvd[e.Message]++
				case "Sendrecv":
					if e.Peer != trace.NoPeer && e.Protocol != "" {
						sent[e.Message]++
					} else {
						recvd[e.Message]++
					}
				}
			}
			for id := range recvd {
				if sent[id] == 0 {
					t.Errorf("message %d received but never sent", id)
				}
			}
			for id := range sent {
				if recvd[id] == 0 {
					t.Errorf("message %d sent but never received", id)
				}
			}
		})
	}
}

// TestErrors checks that bad input is an error, not a panic.
func TestErrors(t *testing.T) {
	p := prepare(t, "./testprogs/stencil")
	if _, err := p.Run(Config{NP: 0}); err == nil {
		t.Error("np 0 accepted")
	}
	if _, err := p.Run(Config{NP: 2, Args: []string{"-nosuchflag"}}); err == nil {
		t.Error("unknown program flag accepted")
	}
	// Class S has 65536 points: more ranks than points is the program's
	// own error, found by the model.
	if _, err := p.Run(Config{NP: 70000}); err == nil {
		t.Error("np > points not reported")
	}
}

// TestAmdahlIdeal: on the ideal machine, amdahl -serial f predicts the
// speedup 1/(f + (1−f)/p) within 3 % for p = 1..1024. The profile is made
// by hand: one unit of work costs 1 µs in the serial and in the parallel
// loop, everything else nothing, so the law holds exactly up to the
// rounding of units over ranks.
func TestAmdahlIdeal(t *testing.T) {
	p := prepare(t, "./testprogs/amdahl")
	loops := map[int]string{} // line → loop node ID
	for _, f := range p.Model.Functions {
		if f.ID != "main$1" {
			continue
		}
		model.Walk(f.Tree, func(n *model.Node) bool {
			if n.Kind == model.KindLoop {
				loops[n.Pos.Start.Line] = n.ID
			}
			return true
		})
	}
	const file = "testprogs/amdahl/main.go"
	serialLine, parallelLine := markLine(t, file, "serial"), markLine(t, file, "parallel")
	serialLoop, parallelLoop := loops[serialLine], loops[parallelLine]
	if serialLoop == "" || parallelLoop == "" {
		t.Fatalf("amdahl's unit loops not found at lines %d and %d: %v", serialLine, parallelLine, loops)
	}
	prof := &profile.File{NP: 1}
	for _, id := range []string{serialLoop, parallelLoop} {
		prof.Fragments = append(prof.Fragments, profile.FragmentStats{Node: id, Kind: profile.FragLoop, MeanPS: 1})
		prof.Loops = append(prof.Loops, profile.LoopStats{Node: id, PerIterPS: 1_000_000, Balanced: true})
	}
	m, err := machine.Preset("ideal")
	if err != nil {
		t.Fatal(err)
	}
	const f = 0.0083
	args := []string{"-serial", "0.0083", "-work", "1000000", "-steps", "4"}
	run := func(np int) trace.Time {
		r, err := p.Run(Config{NP: np, Machine: m, Profile: prof, Args: args})
		if err != nil {
			t.Fatal(err)
		}
		return r.Time
	}
	t1 := run(1)
	for np := 1; np <= 1024; np *= 2 {
		got := float64(t1) / float64(run(np))
		want := 1 / (f + (1-f)/float64(np))
		if d := got/want - 1; d > 0.03 || d < -0.03 {
			t.Errorf("np=%d: speedup %.3f, Amdahl %.3f (%+.1f %%)", np, got, want, 100*d)
		}
	}
}

// TestInnermostNest: a nest timed per innermost iteration costs rows ×
// columns at every decomposition. stencil2d's sweep with 1 ns per point:
// its hot-spot time is the same summed over ranks at np = 1 and 4 (the
// points are split), so the predicted sweep time per rank falls by 4.
func TestInnermostNest(t *testing.T) {
	p := prepare(t, "./testprogs/stencil2d")
	prof := &profile.File{NP: 1,
		Fragments: []profile.FragmentStats{{Node: "sweep/loop@+3:2", Kind: profile.FragLoop, MeanPS: 1}},
		Loops:     []profile.LoopStats{{Node: "sweep/loop@+3:2", PerIterPS: 1000, Balanced: true, Innermost: true}}}
	sweep := func(np int) trace.Time {
		r, err := p.Run(Config{NP: np, Profile: prof, Args: []string{"-class", "W", "-iters", "10"}})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range r.Hot {
			if h.Node == "sweep/loop@+3:2" {
				return h.Time
			}
		}
		t.Fatalf("np=%d: no time for the sweep nest", np)
		return 0
	}
	// Class W: 512×512 points, 10 sweeps, 1 ns each, in all ranks
	// together, and as many in rank 0's sequential reference run.
	const want = 2 * 512 * 512 * 10 * trace.Nanosecond
	for _, np := range []int{1, 2, 4} {
		if got := sweep(np); got != want {
			t.Errorf("np=%d: sweep nest costs %v summed over ranks, want %v", np, got, want)
		}
	}
}

// TestCollectiveOverhead checks that a member's sends and receives inside
// a collective count as communication overhead, the rest as waiting: in a
// binomial broadcast at np = 8 the root sends 3 messages (3o), rank 4
// receives one and sends two (3o), rank 7 only receives (o).
func TestCollectiveOverhead(t *testing.T) {
	p := prepare(t, "./interp/testdata/pingpong")
	m := handMachine(t)
	const o = 100_000
	r, err := p.Run(Config{NP: 8, Machine: m, Args: []string{"-bytes", "8", "-part", "bcast"}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Messages != 7 {
		t.Errorf("a binomial broadcast at np=8 sends 7 messages, counted %d", r.Messages)
	}
	want := map[int]int64{0: 3 * o, 4: 3 * o, 6: 2 * o, 7: o}
	for _, rk := range r.Ranks {
		if w, ok := want[rk.Rank]; ok && int64(rk.Comm) != w {
			t.Errorf("rank %d: overhead %d ps, want %d", rk.Rank, rk.Comm, w)
		}
		if rk.Compute+rk.Comm+rk.Wait+rk.CoreWait != rk.Total {
			t.Errorf("rank %d: %d + %d + %d != %d", rk.Rank, rk.Compute, rk.Comm, rk.Wait, rk.Total)
		}
	}
}

// TestCollectiveResultSlots: members calling a collective that returns a
// value (Split) from different sites each get the result in their own
// call's slot.
func TestCollectiveResultSlots(t *testing.T) {
	p := prepare(t, "./interp/testdata/pingpong")
	for _, np := range []int{2, 4, 5} {
		if _, err := p.Run(Config{NP: np, Machine: handMachine(t), Args: []string{"-bytes", "8", "-part", "split"}}); err != nil {
			t.Errorf("np=%d: %v", np, err)
		}
	}
}

// TestClockLoopWithoutProfile: a loop that waits for modeled time ("for
// Wtime() < end {}", progutil.Work) lasts until the clock gets there even
// when no profile timed it (a rank the timing pass never ran: a profile
// at np=1 of a program whose rank 1 works). Before, it took no time.
func TestClockLoopWithoutProfile(t *testing.T) {
	p := prepare(t, "./testprogs/patterns/latesender")
	m, err := machine.Preset("ideal")
	if err != nil {
		t.Fatal(err)
	}
	r, err := p.Run(Config{NP: 2, Machine: m})
	if err != nil {
		t.Fatal(err)
	}
	const want = 40 * trace.Millisecond // the sender's delay
	if d := r.Time - want; d < 0 || d > trace.Nanosecond {
		t.Errorf("predicted %v, want the 40 ms delay", r.Time)
	}
}

// testPrograms returns the test programs' directories under testprogs and
// the local machine preset they run on.
// renderedProfile is the profile of test program d in testdata/render
// and its arguments, or nil when it has none.
func renderedProfile(t *testing.T, d string) (*profile.File, []string) {
	t.Helper()
	path := filepath.Join("testdata", "render", d+".profile.json")
	if _, err := os.Stat(path); err != nil {
		return nil, nil
	}
	prof, err := profile.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return prof, prof.Args
}

func testPrograms(t *testing.T) ([]string, *machine.Machine) {
	t.Helper()
	dirs, err := testprogs.Dirs("../testprogs")
	if err != nil {
		t.Fatal(err)
	}
	m, err := machine.Preset("local")
	if err != nil {
		t.Fatal(err)
	}
	return dirs, m
}

// TestWakeupHandComputed checks the machine's wake-up curve against hand
// computations: a blocking call that waited resumes the curve's delay
// after what released it, once per call (a collective too), and a call
// that waited less than the curve's first cost pays nothing.
func TestWakeupHandComputed(t *testing.T) {
	p := prepare(t, "./interp/testdata/pingpong")
	const (
		L = 1_000_000 // ps
		o = 100_000
		G = 1_000 // per byte
		D = 3_000_000
	)
	T := func(s int64) int64 { return o + L + (s-1)*G }
	flat := machine.Wakeup{{Blocked: 1, Delay: D}}                                                                     // D after any wait
	late := machine.Wakeup{{Blocked: 10 * trace.Microsecond, Delay: 0}, {Blocked: 10*trace.Microsecond + 1, Delay: D}} // only beyond 10 us
	for _, c := range []struct {
		name string
		wake machine.Wakeup
		np   int
		args []string
		want int64
	}{
		// Rank 1 waits from 0 to T, resumes at T + o + D and answers;
		// rank 0, waiting since its send returned, resumes D after the
		// answer arrived.
		{"eager pingpong", flat, 2, []string{"-bytes", "8"}, 2 * (T(8) + o + D)},
		{"eager pingpong x3", flat, 2, []string{"-bytes", "8", "-reps", "3"}, 6 * (T(8) + o + D)},
		// Waits of about 2.3 us: below the curve's first cost.
		{"eager pingpong, short waits", late, 2, []string{"-bytes", "8", "-reps", "3"}, 6 * (T(8) + o)},
		// A broadcast is one blocking call: rank 7 resumes D after its
		// copy arrives, three rounds after the root sent.
		{"binomial bcast", flat, 8, []string{"-bytes", "8", "-part", "bcast"}, 3*(T(8)+o) + D},
	} {
		m := handMachine(t)
		m.Wakeup = c.wake
		if err := m.Validate(); err != nil {
			t.Fatal(err)
		}
		r, err := p.Run(Config{NP: c.np, Machine: m, Args: c.args})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if int64(r.Time) != c.want {
			t.Errorf("%s: predicted %d ps, hand computation %d ps", c.name, r.Time, c.want)
		}
	}
}
