package interp

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/profile"
	"github.com/predict-tools/predict/trace"
)

// TestRanksOnCores checks the node's cores against hand computation: a
// rank takes a core when ready and keeps it until it blocks, and ranks
// that find every core held wait for one, first come first served. Rank r
// computes 10(r+1) units, then all meet in a free barrier.
func TestRanksOnCores(t *testing.T) {
	p := prepare(t, "./interp/testdata/threads")
	const U = 1_000_000
	pf := unitProfile(t, p, U)
	for _, c := range []struct {
		name                     string
		cores, nodes, perNode    int
		want                     int64
		wantCoreWait             []int64 // per rank
		wantTraceWaits, wantWait int64   // core_wait events; rank 0's waiting
	}{
		// A core each: 40 U, the slowest rank's.
		{"4 ranks, 4 cores", 4, 1, 0, 40 * U, []int64{0, 0, 0, 0}, 0, 30 * U},
		// Ranks 0 and 1 take the two cores at 0; rank 2 gets rank 0's at
		// 10 and ends at 40, rank 3 rank 1's at 20 and ends at 60.
		{"4 ranks, 2 cores", 2, 1, 0, 60 * U, []int64{0, 0, 10 * U, 20 * U}, 2, 50 * U},
		// Two nodes of one core, two ranks each: rank 1 runs after rank 0
		// (10 to 30), rank 3 after rank 2 (30 to 70).
		{"2 nodes of 1 core, 2 ranks each", 1, 0, 2, 70 * U, []int64{0, 10 * U, 0, 30 * U}, 2, 60 * U},
	} {
		m, err := machine.Preset("ideal")
		if err != nil {
			t.Fatal(err)
		}
		m.CoresPerNode, m.Nodes, m.RanksPerNode = c.cores, c.nodes, c.perNode
		var waits int64
		r, err := p.Run(Config{NP: 4, Machine: m, Profile: pf, Args: []string{"-part", "ranks"}, RankDetail: 4,
			Trace: func(e trace.Event) {
				if e.Kind == trace.KindCoreWait {
					waits++
				}
			}})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if int64(r.Time) != c.want {
			t.Errorf("%s: predicted %d ps, hand computation %d ps", c.name, r.Time, c.want)
		}
		for i, rt := range r.Ranks {
			if int64(rt.CoreWait) != c.wantCoreWait[i] {
				t.Errorf("%s: rank %d waited %d ps for a core, hand computation %d ps", c.name, i, rt.CoreWait, c.wantCoreWait[i])
			}
			if rt.Compute+rt.Comm+rt.Wait+rt.CoreWait != rt.Total {
				t.Errorf("%s: rank %d: compute %v + comm %v + wait %v + core wait %v != total %v", c.name, i, rt.Compute, rt.Comm, rt.Wait, rt.CoreWait, rt.Total)
			}
		}
		if got := int64(r.Ranks[0].Wait); got != c.wantWait {
			t.Errorf("%s: rank 0 waited %d ps, hand computation %d ps", c.name, got, c.wantWait)
		}
		if waits != c.wantTraceWaits {
			t.Errorf("%s: %d core_wait events in the trace, want %d", c.name, waits, c.wantTraceWaits)
		}
	}
}

// TestRunnext checks Go's runnext against hand computation: on one core,
// rank 1 readies rank 0 at 10 and computes until 20; rank 0 runs next on
// its core (20 to 30), before rank 2, ready since 0 (30 to 60).
func TestRunnext(t *testing.T) {
	p := prepare(t, "./interp/testdata/threads")
	const U = 1_000_000
	m, err := machine.Preset("ideal")
	if err != nil {
		t.Fatal(err)
	}
	m.CoresPerNode, m.Nodes, m.RanksPerNode = 1, 1, 0
	m.Wakeup = machine.Wakeup{{Blocked: 1, Delay: 5 * U}} // a handoff wakes no thread
	r, err := p.Run(Config{NP: 3, Machine: m, Profile: unitProfile(t, p, U), Args: []string{"-part", "runnext"}, RankDetail: 3})
	if err != nil {
		t.Fatal(err)
	}
	if r.Time != 60*U {
		t.Errorf("predicted %d ps, hand computation %d ps", r.Time, 60*U)
	}
	for i, want := range []trace.Time{10 * U, 0, 30 * U} {
		if got := r.Ranks[i].CoreWait; got != want {
			t.Errorf("rank %d waited %d ps for a core, hand computation %d ps", i, got, want)
		}
	}
}

// TestStealDelay checks the steal delay against hand computation, on 2
// cores and 3 ranks ("steal" of testdata/threads): rank 0 ends at 0 and
// frees a core; rank 1 readies rank 2 at 10 (to run next on its core) and
// computes on. With a steal delay of 5, the free core runs rank 2 from 15,
// unless rank 1 blocks first: after 2 units it does, and rank 2 runs on
// its core from 12. Without the delay rank 2 runs from 10 either way.
// Rank 2 computes 10 and replies; the run ends then.
func TestStealDelay(t *testing.T) {
	p := prepare(t, "./interp/testdata/threads")
	const U = 1_000_000
	for _, c := range []struct {
		steal, onward   int64
		want, wantWait2 int64
	}{
		{5, 10, 25, 5}, // the free core takes it at 10 + 5
		{5, 2, 22, 2},  // its readier blocks at 12 and runs it next
		{0, 10, 20, 0}, // no delay: the free core takes it at once
		{0, 2, 20, 0},
		{50, 10, 30, 10}, // the readier blocks at 20, before 10 + 50
	} {
		m, err := machine.Preset("ideal")
		if err != nil {
			t.Fatal(err)
		}
		m.CoresPerNode, m.Nodes, m.RanksPerNode = 2, 1, 0
		m.StealDelay = trace.Time(c.steal * U)
		var waited trace.Time
		r, err := p.Run(Config{NP: 3, Machine: m, Profile: unitProfile(t, p, U), RankDetail: 3,
			Args: []string{"-part", "steal", "-onward", strconv.FormatInt(c.onward, 10)},
			Trace: func(e trace.Event) {
				if e.Kind == trace.KindCoreWait && e.Rank == 2 {
					waited += e.Exit - e.Enter
				}
			}})
		if err != nil {
			t.Fatalf("steal %d, onward %d: %v", c.steal, c.onward, err)
		}
		if int64(r.Time) != c.want*U {
			t.Errorf("steal %d, onward %d: predicted %d ps, hand computation %d ps", c.steal, c.onward, r.Time, c.want*U)
		}
		if got := int64(r.Ranks[2].CoreWait); got != c.wantWait2*U || int64(waited) != got {
			t.Errorf("steal %d, onward %d: rank 2 waited %d ps for a core (%d in the trace), hand computation %d ps", c.steal, c.onward, got, waited, c.wantWait2*U)
		}
	}
}

// TestStealDisplaced checks a rank that waits out its steal delay and
// is displaced from runnext by a rank readied after it, against hand
// computation ("displace" of testdata/threads, 2 cores, 4 ranks, a steal
// delay of 5): rank 1 readies rank 2 at 10 (core 0 is free: it may take
// rank 2 at 15), then rank 3 at 12, which takes rank 2's place next on
// rank 1's core: rank 2, in the run queue now, takes core 0 at once (12
// to 22); rank 3 runs when rank 1 ends (22 to 32), before core 0 could
// take it (22 + 5).
func TestStealDisplaced(t *testing.T) {
	p := prepare(t, "./interp/testdata/threads")
	const U = 1_000_000
	for _, c := range []struct {
		steal int64
		want  int64
		waits []int64 // ranks 2 and 3
	}{
		{5, 32, []int64{2, 10}},
		// A delay of 1: core 0 takes rank 2 at 11, before rank 3 comes.
		{1, 32, []int64{1, 10}},
		// None: rank 2 runs from 10; rank 3, readied at 12 while both
		// cores are held, takes core 0 when rank 2 ends at 20, though
		// the scheduler meets it only after rank 1 ran on to its end.
		{0, 30, []int64{0, 8}},
	} {
		m, err := machine.Preset("ideal")
		if err != nil {
			t.Fatal(err)
		}
		m.CoresPerNode, m.Nodes, m.RanksPerNode = 2, 1, 0
		m.StealDelay = trace.Time(c.steal * U)
		r, err := p.Run(Config{NP: 4, Machine: m, Profile: unitProfile(t, p, U), RankDetail: 4, Args: []string{"-part", "displace"}})
		if err != nil {
			t.Fatalf("steal %d: %v", c.steal, err)
		}
		if int64(r.Time) != c.want*U {
			t.Errorf("steal %d: predicted %d ps, hand computation %d ps", c.steal, r.Time, c.want*U)
		}
		for i, want := range c.waits {
			if got := int64(r.Ranks[2+i].CoreWait); got != want*U {
				t.Errorf("steal %d: rank %d waited %d ps for a core, hand computation %d ps", c.steal, 2+i, got, want*U)
			}
		}
	}
}

// TestCoresLimit checks that a run whose ranks took turns on a node's
// cores of the in-process runtime (a steal delay) says what the model's
// scheduling leaves out, and one on a machine whose ranks keep their
// cores (no wake-up curve, no steal delay) does not; both count how often
// ranks gave their cores up ("steal", onward 2: rank 2 blocks at 0, rank
// 1 at 12, after 22 units of compute in all), and the breakdown says so.
func TestCoresLimit(t *testing.T) {
	p := prepare(t, "./interp/testdata/threads")
	const U = 1_000_000
	for _, steal := range []trace.Time{5 * U, 0} {
		m, err := machine.Preset("ideal")
		if err != nil {
			t.Fatal(err)
		}
		m.CoresPerNode, m.Nodes, m.RanksPerNode = 2, 1, 0
		m.StealDelay = steal
		r, err := p.Run(Config{NP: 3, Machine: m, Profile: unitProfile(t, p, U), RankDetail: 3, Args: []string{"-part", "steal", "-onward", "2"}})
		if err != nil {
			t.Fatal(err)
		}
		said := strings.Join(r.Limits, "\n")
		want := "ranks of the in-process runtime took turns on a node's cores"
		if got := strings.Contains(said, want); got != (steal > 0) {
			t.Errorf("steal delay %v: limits %q; want %q: %v", steal, said, want, steal > 0)
		}
		if r.Parks != 2 || r.ParkEvery != 11*U {
			t.Errorf("steal delay %v: %d parks, every %v; want 2, every 11us", steal, r.Parks, r.ParkEvery)
		}
		var b strings.Builder
		if err := r.WriteText(&b, 3); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "(ranks of nodes with more ranks than cores gave their core up 2 times, every 11us of compute on average)") {
			t.Errorf("steal delay %v: the breakdown does not say how often ranks gave their core up:\n%s", steal, b.String())
		}
	}
}

// TestTimeSlice checks the 10 ms time slice against hand computation: on
// one core, rank 0 computes 20 ms and rank 1 40 ms, then they meet. Rank 0
// is preempted at 10 with 10 left; rank 1 runs 10 to 20 and is preempted
// with 30 left; rank 0 finishes 20 to 30 and blocks; rank 1 runs 30 to 60.
func TestTimeSlice(t *testing.T) {
	p := prepare(t, "./interp/testdata/threads")
	const U = 2 * trace.Millisecond
	m, err := machine.Preset("ideal")
	if err != nil {
		t.Fatal(err)
	}
	m.CoresPerNode, m.Nodes, m.RanksPerNode = 1, 1, 0
	var computed [2]trace.Time
	r, err := p.Run(Config{NP: 2, Machine: m, Profile: unitProfile(t, p, int64(U)), Args: []string{"-part", "ranks"}, RankDetail: 2,
		Trace: func(e trace.Event) {
			if e.Kind == trace.KindCompute {
				computed[e.Rank] += e.Exit - e.Enter
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	ms := trace.Millisecond
	if r.Time != 60*ms {
		t.Errorf("predicted %v, hand computation 60ms", r.Time)
	}
	for i, want := range []trace.Time{10 * ms, 20 * ms} {
		if got := r.Ranks[i].CoreWait; got != want {
			t.Errorf("rank %d waited %v for a core, hand computation %v", i, got, want)
		}
	}
	// The preempted computes are traced in two parts, summing to the whole.
	if computed != [2]trace.Time{20 * ms, 40 * ms} {
		t.Errorf("traced compute %v, want [20ms 40ms]", computed)
	}
}

// TestCoresProperty runs every test program on nodes with more ranks than
// cores, in several shapes, with a profile where there is one: no run
// fails but by the program's own checks (np = 3 for a power-of-two
// program), each rank's breakdown sums to its time, its core_wait events
// to its waiting for a core, no node's cores do more than cores × time of
// work, and two runs agree.
func TestCoresProperty(t *testing.T) {
	dirs, base := testPrograms(t)
	shapes := []struct{ np, cores, perNode int }{
		{3, 1, 0}, // one node of one core
		{8, 3, 0}, // one node, cores not dividing the ranks
		{8, 2, 4}, // two nodes of four ranks on two cores
	}
	waited := 0 // programs whose ranks waited for a core in some shape
	for _, d := range dirs {
		t.Run(d, func(t *testing.T) {
			p := prepare(t, "./testprogs/"+d)
			prof, args := renderedProfile(t, d)
			for _, s := range shapes {
				m := *base
				m.Nodes, m.CoresPerNode, m.RanksPerNode = 0, s.cores, s.perNode
				if s.perNode == 0 {
					m.Nodes = 1
				}
				var events []trace.Event
				cfg := Config{NP: s.np, Machine: &m, Profile: prof, Args: args, Trace: func(e trace.Event) { events = append(events, e) }}
				r, err := p.Run(cfg)
				var abort *AbortError
				if errors.As(err, &abort) {
					continue // the program refuses this np
				}
				if err != nil {
					t.Fatalf("np=%d on %d cores: %v", s.np, s.cores, err)
				}
				cfg.Trace = nil
				r2, err := p.Run(cfg)
				if err != nil || r2.Time != r.Time || !reflect.DeepEqual(r.Ranks, r2.Ranks) {
					t.Errorf("np=%d on %d cores: two runs differ (%v)", s.np, s.cores, err)
				}
				traced := make([]trace.Time, s.np)
				for _, e := range events {
					if e.Kind == trace.KindCoreWait {
						traced[e.Rank] += e.Exit - e.Enter
					}
				}
				if r.CoreWait.Max > 0 {
					waited++
				}
				busy := map[int]trace.Time{}
				for _, rk := range r.Ranks {
					if rk.Compute+rk.Comm+rk.Wait+rk.CoreWait != rk.Total {
						t.Errorf("np=%d on %d cores: rank %d: %v + %v + %v + %v != %v", s.np, s.cores, rk.Rank, rk.Compute, rk.Comm, rk.Wait, rk.CoreWait, rk.Total)
					}
					if traced[rk.Rank] != rk.CoreWait {
						t.Errorf("np=%d on %d cores: rank %d: core_wait events sum to %v, it waited %v", s.np, s.cores, rk.Rank, traced[rk.Rank], rk.CoreWait)
					}
					busy[m.NodeOf(rk.Rank, s.np)] += rk.Compute + rk.Comm
				}
				for n, b := range busy {
					if b > trace.Time(s.cores)*r.Time {
						t.Errorf("np=%d on %d cores: node %d busy %v, more than its cores give in %v", s.np, s.cores, n, b, r.Time)
					}
				}
			}
		})
	}
	// Programs without a profile compute nothing, but their busy-waits
	// (progutil.Work) and calls take time: most shapes make ranks wait.
	if waited < len(dirs) {
		t.Errorf("ranks waited for a core in %d runs of %d programs: the shapes do not exercise the cores", waited, len(dirs))
	}
}

// TestRuntimeLimit: a profile whose plain run spent 20 % of its CPU time in
// the collector, measured at np = 2 on 2 CPUs (none idle), makes a
// prediction whose node leaves a core idle say so among its limits (np = 1
// on 2 cores), and one as busy as the profiling machine say nothing.
func TestRuntimeLimit(t *testing.T) {
	p := prepare(t, "./interp/testdata/threads")
	pf := unitProfile(t, p, 1000)
	pf.NP, pf.CPUs, pf.PlainRunCPUPS = 2, 2, 1e12
	pf.Runtime = &profile.Runtime{GCCPUPS: 2e11, AllocBytes: 1 << 30, GCCycles: 10, SysCPUPS: -1, MinorFaults: -1}
	m, err := machine.Preset("ideal")
	if err != nil {
		t.Fatal(err)
	}
	m.CoresPerNode, m.Nodes, m.RanksPerNode = 2, 1, 0 // one node of 2 cores
	for np, want := range map[int]string{1: "here a node runs 1 rank(s) on 2 cores, 1 idle", 2: "", 4: ""} {
		res, err := p.Run(Config{NP: np, Machine: m, Profile: pf})
		if err != nil {
			t.Fatal(err)
		}
		var got string
		for _, l := range res.Limits {
			if strings.Contains(l, "collector and scavenger") {
				got = l
			}
		}
		if want == "" && got != "" || !strings.Contains(got, want) {
			t.Errorf("np=%d: limit %q, want %q", np, got, want)
		}
	}
}
