package interp

import (
	"strings"
	"testing"

	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/model"
	"github.com/predict-tools/predict/profile"
	"github.com/predict-tools/predict/trace"
)

// syntheticProfile is an empty profile of p's sources, taken at np with
// args: tests add the fragments they time.
func syntheticProfile(t *testing.T, p *Program, np int, args []string) *profile.File {
	t.Helper()
	hash, err := profile.ContentHash(p.Loaded)
	if err != nil {
		t.Fatal(err)
	}
	return &profile.File{Format: profile.Format, Version: profile.Version,
		Package: p.Model.Package, Module: p.Model.Module, ContentHash: hash, NP: np, Args: args,
		Host: "synthetic", Created: "2026-01-01T00:00:00Z", Alpha: 0.1}
}

// unitProfile is a synthetic profile of interp/testdata/threads: an
// iteration of spin's loop costs one unit, nothing else is timed.
func unitProfile(t *testing.T, p *Program, unit int64) *profile.File {
	t.Helper()
	return spinProfile(t, p, 1, unit)
}

// spinProfile is a synthetic profile of p taken at np in which an
// iteration of the loop of p's function spin costs unit, nothing else.
func spinProfile(t *testing.T, p *Program, np int, unit int64) *profile.File {
	t.Helper()
	pf := syntheticProfile(t, p, np, nil)
	for _, f := range p.Model.Functions {
		if f.ID != "spin" {
			continue
		}
		model.Walk(f.Tree, func(n *model.Node) bool {
			if n.Kind == model.KindLoop {
				pf.Fragments = append(pf.Fragments, profile.FragmentStats{Node: n.ID, Kind: profile.FragLoop, Pos: n.Pos.String(), MeanPS: 1})
				pf.Loops = append(pf.Loops, profile.LoopStats{Node: n.ID, PerIterPS: unit, Balanced: true})
			}
			return true
		})
	}
	if len(pf.Loops) != 1 {
		t.Fatalf("spin's loop not found")
	}
	return pf
}

// threadMachine is the ideal machine with thread costs of a few distinct
// nanoseconds, for hand computations.
func threadMachine(t *testing.T) *machine.Machine {
	t.Helper()
	m, err := machine.Preset("ideal")
	if err != nil {
		t.Fatal(err)
	}
	ns := trace.Nanosecond
	m.Threads = machine.ThreadCosts{Create: 7 * ns, SetTask: 3 * ns, Start: 2 * ns, TryLock: 1 * ns, Release: 4 * ns, CreateSemaphore: 5 * ns, CAS: 6 * ns}
	return m
}

// TestThreadsHandComputed checks pools, joins and locks against seed-003's
// formulas (§3.4, §4.1.2): a task starts at the master's clock plus the
// start cost on the earliest free worker; WaitForAll resumes the master at
// the latest task's end; a lock is acquired at t + TryLock + max(0,
// released − t), in the order of the clocks at which the threads ask for
// it (causal order), not the order the tasks were set; a thread barrier
// releases every thread at the last arrival plus one atomic operation.
func TestThreadsHandComputed(t *testing.T) {
	p := prepare(t, "./interp/testdata/threads")
	const U = 1_000_000 // one unit of work: 1 µs
	pf := unitProfile(t, p, U)
	m := threadMachine(t)
	cases := []struct {
		part    string
		threads int
		want    int64
	}{
		// Master at 100 U; NewPool(3) 21 ns; task k is set at
		// 100 U + 21 ns + 3 ns·k and starts 2 ns later; the 20 U task,
		// the second, ends last: 100 U + 21 + 6 + 2 ns + 20 U.
		{"forkjoin", 0, 120*U + 29_000},
		// NewMutex 5 ns, NewPool(2) 14 ns: th1 starts at 24 ns, asks at
		// 24 ns + 5 U, gets it 1 ns later, releases at 29 ns + 15 U.
		// th2 starts at 27 ns on the other worker, asks at 27 ns + 6 U,
		// waits until the release, pays 1 ns: 30 ns + 15 U; ends after
		// 1 U and the 4 ns release.
		{"lock", 0, 16*U + 34_000},
		// th1 (set first) asks at 24 ns + 8 U, th2 at 27 ns + 3 U: th2
		// gets the lock at 28 ns + 3 U and releases it at 32 ns + 13 U;
		// th1 gets it at 33 ns + 13 U and ends at 37 ns + 15 U.
		{"causal", 0, 15*U + 37_000},
		// NewBarrier 5 ns, Parallel(3) 21 ns, threads start at 28 ns and
		// arrive at 28 ns + 4, 9 and 2 U; all leave at the last arrival
		// plus one atomic (6 ns) and end 1 U later.
		{"barrier", 0, 10*U + 34_000},
		// Eight tasks of 10 U on commlib.Threads(2) workers (Create 7 ns
		// each, SetTask 3 ns, Start 2 ns): in waves of 2, 4 or 8, the
		// last task of the last wave set 3 ns after the one before.
		{"pool", 0, 40*U + 22_000},
		{"pool", 4, 20*U + 42_000},
		{"pool", 8, 10*U + 82_000},
	}
	for _, c := range cases {
		r, err := p.Run(Config{NP: 1, Machine: m, Profile: pf, Args: []string{"-part", c.part}, Threads: c.threads})
		if err != nil {
			t.Fatalf("%s: %v", c.part, err)
		}
		if int64(r.Time) != c.want {
			t.Errorf("%s (threads %d): predicted %d ps, hand computation %d ps", c.part, c.threads, r.Time, c.want)
		}
	}
}

// TestThreadsOnCores checks by hand that a rank's threads take turns on
// its share of the node's cores, first come first served, when they
// outnumber them, and that the time they waited is reported. The pool
// part: eight tasks of 10 U (task k set 3 ns after the one before, each
// starting 2 ns after it is set) on commlib.Threads(2) workers.
func TestThreadsOnCores(t *testing.T) {
	p := prepare(t, "./interp/testdata/threads")
	const U = 1_000_000
	pf := unitProfile(t, p, U)
	ns := trace.Nanosecond
	for _, c := range []struct {
		name                string
		np, cores, perNode  int
		threads             int
		want, wantCoreWaits int64
	}{
		// Two workers on two cores: a core each, as with the ideal machine.
		{"2 threads, 2 cores", 1, 2, 1, 0, 40*U + 22_000, 0},
		// Four workers (NewPool 28 ns; task k starts at 33 + 3k ns) on two
		// cores: tasks 0 and 1 run at once, 2 and 3 wait 10 U less 6 ns
		// for them, 4 to 7 wait 10 U each: the last ends at 36 ns + 40 U.
		{"4 threads, 2 cores", 1, 2, 1, 4, 40*U + 36_000, 60*U - 12_000},
		// Eight workers (task k starts at 61 + 3k ns): four waves of two.
		{"8 threads, 2 cores", 1, 2, 1, 8, 40*U + 64_000, 2*(10*U-6_000) + 2*(20*U-12_000) + 2*(30*U-18_000)},
		// Two ranks on a node of two cores: a core each, the two workers
		// take turns on it (task k starts at 19 + 3k ns): task 1 waits
		// 10 U less 3 ns, each later task 10 U on the worker freed first.
		{"2 ranks, 2 threads, 1 core each", 2, 2, 2, 0, 80*U + 19_000, 70*U - 3_000},
		// The same with rank 1 ended before rank 0's threads start: they
		// have both cores, as with one rank.
		{"2 ranks, one idle: 2 threads, 2 cores", 2, 2, 2, 0, 40*U + 22_000, 0},
	} {
		m, err := machine.Preset("ideal")
		if err != nil {
			t.Fatal(err)
		}
		m.Threads = machine.ThreadCosts{Create: 7 * ns, SetTask: 3 * ns, Start: 2 * ns}
		m.CoresPerNode, m.RanksPerNode = c.cores, c.perNode
		part := "pool"
		if strings.Contains(c.name, "idle") {
			part = "poolidle"
		}
		r, err := p.Run(Config{NP: c.np, Machine: m, Profile: pf, Args: []string{"-part", part}, Threads: c.threads})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if int64(r.Time) != c.want {
			t.Errorf("%s: predicted %d ps, hand computation %d ps", c.name, r.Time, c.want)
		}
		if got := int64(r.ThreadCoreWait.Max); got != c.wantCoreWaits {
			t.Errorf("%s: threads waited %d ps for a core, hand computation %d ps", c.name, got, c.wantCoreWaits)
		}
	}
}
