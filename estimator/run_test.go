package estimator

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/predict-tools/predict/estimator/probe"
	"github.com/predict-tools/predict/profile"
)

// TestProfileStencil runs the timing pass on the stencil (class S, np 2)
// and checks the profile: fragments keyed by model node IDs, the loops
// timed whole, the opaque decisions recorded per rank, the stale check.
func TestProfileStencil(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a program")
	}
	p, err := Run(Config{Dir: "..", Pattern: "./testprogs/stencil", NP: 2, Args: []string{"-class", "S"}})
	if err != nil {
		t.Fatal(err)
	}
	if p.Format != profile.Format || p.NP != 2 || !strings.HasPrefix(p.ContentHash, "sha256:") {
		t.Errorf("header %+v", p)
	}
	var sweep *profile.FragmentStats
	for i, f := range p.Fragments {
		if f.Node == "sweep/loop@+2:2" {
			sweep = &p.Fragments[i]
		}
		if f.Executions <= 0 || f.MeanPS < 0 || f.MinPS > f.MaxPS {
			t.Errorf("fragment %+v", f)
		}
	}
	// 100 iterations × 2 ranks, and rank 0's sequential reference.
	if sweep == nil || sweep.Executions != 300 || sweep.MeanPS <= 0 {
		t.Fatalf("sweep's loop: %+v", sweep)
	}
	var found bool
	for _, l := range p.Loops {
		if l.Node == "sweep/loop@+2:2" {
			found = true
			if len(l.Trips) != 2 || l.Trips[0].Trips != 32768 || l.Trips[1].Trips != 65536 || l.PerIterPS <= 0 { // halves on 2 ranks, whole in the reference
				t.Errorf("sweep's loop stats %+v", l)
			}
		}
	}
	if !found {
		t.Error("no loop statistics for sweep")
	}
	// The alone run (the ranks taking turns) measured the sweep, which
	// takes far more than aloneMinPS, and the profile's ratio; what they
	// read depends on the machine, not what they are.
	if sweep.AloneRel < aloneLo || sweep.AloneRel > aloneHi || p.AloneRel < aloneLo || p.AloneRel > aloneHi {
		t.Errorf("alone/shared ratios: the sweep's %v, the profile's %v: want both in [%v, %v]", sweep.AloneRel, p.AloneRel, aloneLo, aloneHi)
	}
	checkLoaded(t, p, sweep)
	// The residual test of -converge is opaque: recorded per rank.
	var residual *profile.DecisionStats
	for i, d := range p.Decisions {
		if strings.HasPrefix(d.Pos, "testprogs/stencil/main.go:110") {
			residual = &p.Decisions[i]
		}
	}
	if residual == nil || len(residual.Ranks) != 2 || residual.Ranks[0].False != 100 {
		t.Errorf("the residual decision: %+v", residual)
	}
	// Round trip, and a stale profile is refused.
	path := filepath.Join(t.TempDir(), "p.json")
	f, _ := os.Create(path)
	p.Write(f)
	f.Close()
	q, err := profile.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Check(p.Package, p.ContentHash); err != nil {
		t.Error(err)
	}
	if err := q.Check(p.Package, "sha256:other"); err == nil || !strings.Contains(err.Error(), "stale profile") {
		t.Errorf("stale check: %v", err)
	}
	if err := q.Check("other/pkg", p.ContentHash); err == nil {
		t.Error("a profile of another package is accepted")
	}
}

// TestProfileFailingProgram: a program that fails under profiling is a
// clear error with its output.
func TestProfileFailingProgram(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a program")
	}
	_, err := Run(Config{Dir: "..", Pattern: "./testprogs/stencil", NP: 1, Args: []string{"-class", "Q"}})
	if err == nil || !strings.Contains(err.Error(), "the program failed") || !strings.Contains(err.Error(), "-class") {
		t.Errorf("error %v", err)
	}
}

// TestKnownCosts profiles a program of known costs: the loop of growing
// iterations is less balanced than the loop of equal ones, every loop is
// sampled, and a decision's outcomes are recorded per rank exactly. How
// close the measured times come to the known ones is a figure, printed by
// go run ./estimator/internal/selfcheck -known (the machine's load changes
// it), not asserted here.
func TestKnownCosts(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a program")
	}
	p := profileOf(t, "estimator/testdata/known", 1, "-n", "64")
	p2 := profileOf(t, "estimator/testdata/known", 2, "-n", "64")
	loops := map[string]profile.LoopStats{}
	for _, l := range p.Loops {
		loops[strings.SplitN(l.Node, "/", 2)[0]] = l
	}
	b, u := loops["balanced"], loops["unbalanced"]
	// What the probes measured: the profile's times are scaled to the
	// plain run's compute afterwards (TestScaleToPlain), which spreads
	// the rest of the run (its start-up, its other code) over them.
	measured := func(ps int64) float64 {
		if p.Scale > 0 {
			return float64(ps) / p.Scale
		}
		return float64(ps)
	}
	if b.Samples == 0 || u.Samples == 0 || measured(b.PerIterPS) < 200e6 || measured(u.PerIterPS) < 220e6 {
		t.Errorf("loops: balanced %+v, unbalanced %+v (scale %.3f)", b, u, p.Scale)
	}
	if u.D <= b.D || u.Balanced || !b.Balanced {
		t.Errorf("the unbalanced loop (D=%.3f) is not told from the balanced one (D=%.3f)", u.D, b.D)
	}
	var found bool
	for _, d := range p2.Decisions {
		if !strings.Contains(d.Pos, "known/main.go") {
			continue
		}
		found = true
		if len(d.Ranks) != 2 {
			t.Fatalf("decision %+v", d)
		}
		for _, r := range d.Ranks {
			if r.True != 16 || r.False != 48 {
				t.Errorf("rank %d: %d true, %d false, want 16 and 48", r.Rank, r.True, r.False)
			}
		}
	}
	if !found {
		t.Errorf("the decision on the table was not recorded: %+v", p.Decisions)
	}
}

// TestOpaqueLoopTrips: masterworker's task loop has an opaque bound; its
// trip counts are recorded per rank, for the interpreter to replay (at
// np = 2 rank 1 is the only worker and runs every task).
func TestOpaqueLoopTrips(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a program")
	}
	p, err := Run(Config{Dir: "..", Pattern: "./testprogs/masterworker", NP: 2, Args: []string{"-class", "S"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range p.Loops {
		if !strings.HasPrefix(l.Node, "cubeSum/") {
			continue
		}
		if len(l.Ranks) != 1 || l.Ranks[0].Rank != 1 {
			t.Fatalf("cubeSum's loop: per-rank trips %+v", l.Ranks)
		}
		entries := int64(0)
		for _, run := range l.Ranks[0].Runs {
			entries += run[1]
		}
		if entries != 200 {
			t.Errorf("rank 1 ran cubeSum's loop %d times, want 200 (the tasks of class S)", entries)
		}
		return
	}
	t.Errorf("no statistics for cubeSum's loop: %+v", p.Loops)
}

// TestLoopForms profiles estimator/testdata/loops: the counted loops of
// every form get their trip count computed before they run (in the loop
// variable's own type: unsigned, narrow, downward, inclusive, by a named
// step, over a typed integer, with a floating-point constant bound, by a
// field of a struct parameter, a labeled loop re-entered by goto), those
// whose bound changes or that break are counted as they run, and every
// count is right.
func TestLoopForms(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a program")
	}
	trips := map[string]profile.TripCount{
		"unsignedSpan": {Trips: 10, Count: 1}, "downward": {Trips: 4, Count: 1}, "narrow": {Trips: 5, Count: 1}, "rangeInt": {Trips: 7, Count: 1},
		"floatBound": {Trips: 1000, Count: 1}, "labeled": {Trips: 4, Count: 2}, "shrinking": {Trips: 9, Count: 1}, "early": {Trips: 7, Count: 1},
		"fieldBound": {Trips: 5, Count: 1}, "fieldShrinking": {Trips: 3, Count: 1}, "resumed": {Trips: 640 * 50000, Count: 1},
	}
	counted := map[string]bool{"shrinking": true, "early": true, "fieldShrinking": true}
	_, pl := plan(t, "estimator/testdata/loops")
	for _, f := range pl.Fragments {
		if _, ok := trips[f.Func]; ok && f.Kind == profile.FragLoop && f.Static == counted[f.Func] {
			t.Errorf("%s: static %v, want %v", f.Func, f.Static, !counted[f.Func])
		}
		if f.Func == "resumed" && f.Kind == profile.FragLoop && (!f.Resumes || !f.Innermost) {
			t.Errorf("resumed: resumes %v, innermost %v: want a resumed perfect nest", f.Resumes, f.Innermost)
		}
	}
	// Fine: its loops, a few iterations each, are cheaper than their
	// probes, and coarse regions would time them with their callers.
	p := profileWith(t, Config{Dir: "..", Pattern: "./estimator/testdata/loops", NP: 1, Fine: true})
	seen := map[string]bool{}
	for _, l := range p.Loops {
		name := strings.SplitN(l.Node, "/", 2)[0]
		want, ok := trips[name]
		if !ok {
			continue
		}
		seen[name] = true
		if len(l.Trips) != 1 || l.Trips[0] != want {
			t.Errorf("%s: trips %v, want %v", name, l.Trips, want)
		}
		// The entry (sampled: the loop's first) resumes after
		// IterSamples outer iterations, of 50000 inner ones each (tens
		// of µs). Where the clock is so slow (a virtual machine's clock
		// read by a system call) or the probes' cost read at start-up
		// so high under load that an outer iteration is under ten
		// iteration probes, the samples are set aside (Samples 0), as
		// fill does: the profile's own figures say so.
		outer := float64(l.PerIterPS) * 50000
		short := outer < 10*float64(p.Overhead.IterPS)
		if name == "resumed" && l.Samples != probe.IterSamples && !(l.Samples == 0 && short) {
			t.Errorf("resumed: %d iteration samples, want %d (outer iteration %.0f ps, iteration probe %d ps)",
				l.Samples, probe.IterSamples, outer, p.Overhead.IterPS)
		}
	}
	for name := range trips {
		if !seen[name] {
			t.Errorf("%s: no loop statistics", name)
		}
	}
}

// TestThreadClock profiles a program whose pool runs more threads (8) than
// the machine has cores, each a busy loop of the same fixed work as a loop
// the main thread runs alone: the threads' loops are timed by their
// threads' CPU clocks, so their time per iteration is the main thread's,
// where their wall time is several times longer (8 threads on 2 cores:
// about 4×). Asserted: the ratio is between 0.6 and 1.6, which neither the
// machine's other load (it slows both clocks' readings alike: both are
// CPU times) nor two threads sharing a core's pipelines (up to about 1.5×
// on SMT siblings) can break, and which the wall clock fails; the figure
// is logged.
func TestThreadClock(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a program")
	}
	p := profileOf(t, "estimator/testdata/threads", 1)
	if p.Clock != probe.ClockThread {
		t.Fatalf("clock %q, want %q: the program runs a pool", p.Clock, probe.ClockThread)
	}
	loops := map[string]profile.LoopStats{}
	for _, l := range p.Loops {
		loops[strings.SplitN(l.Node, "/", 2)[0]] = l
	}
	alone, shared := loops["alone"], loops["shared"]
	if alone.PerIterPS <= 0 || shared.PerIterPS <= 0 {
		t.Fatalf("loops: alone %+v, shared %+v", alone, shared)
	}
	if n := tripsTotal(shared.Trips); n != 8 {
		t.Errorf("the threads' loop ran %d times, want 8", n)
	}
	ratio := float64(shared.PerIterPS) / float64(alone.PerIterPS)
	t.Logf("per iteration: %.3f ns alone, %.3f ns on 8 threads (%.3f×); coverage of the plain run's CPU time %.1f%%",
		float64(alone.PerIterPS)/1e3, float64(shared.PerIterPS)/1e3, ratio, 100*p.Coverage())
	if ratio < 0.6 || ratio > 1.6 {
		t.Errorf("a thread's iteration takes %.2f× the main thread's: the threads' wall time was measured, not their compute", ratio)
	}
}

func tripsTotal(ts []profile.TripCount) int64 {
	var n int64
	for _, tc := range ts {
		n += tc.Count
	}
	return n
}

// TestOutlinedRun profiles estimator/testdata/outline, whose loops'
// first entries run their sampled copies, outlined or not: the program
// checks its own results (a copy that changed what a loop does fails the
// run), and every loop's trip count is recorded. Fine: without the pilot
// run, which times whole (nothing inside) the functions that take less
// than 40 probe pairs a call, a verdict that follows the machine's load
// (localType's loop had no statistics in a CI run beside other tests).
func TestOutlinedRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a program")
	}
	p := profileWith(t, Config{Dir: "..", Pattern: "./estimator/testdata/outline", NP: 1, Fine: true})
	want := map[string]int64{"structField": 100, "viaSlice": 100, "builder": 100, "address": 100, "method": 100, "arraySlice": 100, "localType": 100}
	for _, l := range p.Loops {
		name := strings.SplitN(l.Node, "/", 2)[0]
		if n, ok := want[name]; ok {
			if len(l.Trips) != 1 || l.Trips[0] != (profile.TripCount{Trips: n, Count: 1}) {
				t.Errorf("%s: trips %v, want %d once", name, l.Trips, n)
			}
			delete(want, name)
		}
	}
	for name := range want {
		t.Errorf("%s: no loop statistics", name)
	}
}

// profileOf runs the timing pass on a program of the module (dir from its
// root) at np ranks with args, failing the test on an error.
func profileOf(t *testing.T, dir string, np int, args ...string) *profile.File {
	t.Helper()
	return profileWith(t, Config{Dir: "..", Pattern: "./" + dir, NP: np, Args: args})
}

// profileWith profiles as cfg says.
func profileWith(t *testing.T, cfg Config) *profile.File {
	t.Helper()
	p, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestProfileLoaded runs the timing pass on the stencil at np = 1, which
// leaves this machine's other CPUs idle: the loaded runs (co-runners
// streaming through memory on them) measure the sweep.
func TestProfileLoaded(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a program")
	}
	if runtime.NumCPU() < 2 {
		t.Skip("one CPU: no CPU for a co-runner")
	}
	p, err := Run(Config{Dir: "..", Pattern: "./testprogs/stencil", NP: 1, Args: []string{"-class", "S"}})
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range p.Fragments {
		if f.Node == "sweep/loop@+2:2" {
			checkLoaded(t, p, &p.Fragments[i])
			return
		}
	}
	t.Fatal("no sweep in the profile")
}

// checkLoaded checks the loaded runs of profile p, which measured the
// sweep: as many co-runners as CPUs the ranks left idle (at most
// maxLoaders), ratios within their bounds; none when the ranks used every
// CPU; none with a warning that says so when the machine was too busy for
// them (other jobs on its CPUs). What they read depends on the machine,
// not what they are.
func checkLoaded(t *testing.T, p *profile.File, sweep *profile.FragmentStats) {
	t.Helper()
	want := min(runtime.NumCPU()-p.NP, maxLoaders)
	if want < 1 {
		if p.LoadedBy != 0 || p.LoadedRel != 0 || sweep.LoadedRel != 0 {
			t.Errorf("np=%d on %d CPUs: loaded runs by %d, ratios %v and %v: want none", p.NP, runtime.NumCPU(), p.LoadedBy, p.LoadedRel, sweep.LoadedRel)
		}
		return
	}
	if p.LoadedBy == 0 && slices.ContainsFunc(p.Warnings, func(w string) bool { return strings.Contains(w, "were left out") }) {
		// Every loaded run took turns with the ranks on a core (another
		// job held the CPUs, as go test ./... does): left out, and said.
		t.Logf("np=%d on %d CPUs: the loaded runs were left out, as the profile says", p.NP, runtime.NumCPU())
		return
	}
	if p.LoadedBy != want || sweep.LoadedRel < loadedLo || sweep.LoadedRel > loadedHi || p.LoadedRel < loadedLo || p.LoadedRel > loadedHi {
		t.Errorf("np=%d on %d CPUs: loaded runs by %d (want %d), the sweep's ratio %v, the profile's %v: want both in [%v, %v]",
			p.NP, runtime.NumCPU(), p.LoadedBy, want, sweep.LoadedRel, p.LoadedRel, loadedLo, loadedHi)
	}
}
