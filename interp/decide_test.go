package interp

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/predict-tools/predict/model"
	"github.com/predict-tools/predict/profile"
)

// The testdata sources whose marked lines the tests find.
const (
	rejectionFile = "interp/testdata/rejection/main.go"
	batchesFile   = "interp/testdata/batches/main.go"
)

// rejectionProfile is a synthetic profile of interp/testdata/rejection
// that times the loop drawing the samples whole (as the timing pass does,
// running sample without probes: its exit test has no recorded outcome),
// plus the given decisions.
func rejectionProfile(t *testing.T, p *Program, args []string, ds ...profile.DecisionStats) *profile.File {
	t.Helper()
	pf := syntheticProfile(t, p, 2, args)
	sampling := markLine(t, rejectionFile, "sampling")
	for _, f := range p.Model.Functions {
		model.Walk(f.Tree, func(n *model.Node) bool {
			if n.Kind == model.KindLoop && n.Pos.Start.Line == sampling {
				pf.Fragments = append(pf.Fragments, profile.FragmentStats{Node: n.ID, Kind: profile.FragLoop, Pos: n.Pos.String(), MeanPS: 1000})
				pf.Loops = append(pf.Loops, profile.LoopStats{Node: n.ID, PerIterPS: 100, Balanced: true})
			}
			return true
		})
	}
	if len(pf.Loops) != 1 {
		t.Fatalf("the sampling loop at %s not found", markPos(t, rejectionFile, "sampling"))
	}
	pf.Decisions = ds
	return pf
}

// exitCond returns the root of the condition holding the rejection
// loop's opaque exit test (the node the profile records outcomes of).
func exitCond(t *testing.T, p *Program) *model.Node {
	t.Helper()
	var root *model.Node
	exit := markLine(t, rejectionFile, "exit")
	for _, f := range p.Model.Functions {
		model.Walk(f.Tree, func(n *model.Node) bool {
			if n.Cond != nil {
				model.Walk(n.Cond, func(x *model.Node) bool {
					if x.Kind == model.KindTest && x.Opaque != "" && x.Pos.Start.Line == exit {
						root = n.Cond
					}
					return true
				})
			}
			return true
		})
	}
	if root == nil {
		t.Fatalf("the opaque exit test at %s not found", markPos(t, rejectionFile, "exit"))
	}
	return root
}

// TestOpaqueExitNotInProfile: a rejection-sampling loop (its exit depends
// on data the model does not compute) inside a loop the timing pass times
// whole, which the model iterates because the slice it fills decides the
// communication after it. The exit test has no outcome in the profile; it
// leaves the loop at its first test (the loop around it carries the time),
// so the run ends with the program's 10 barriers, and the decision says
// so. Before, the model took the branch the other way and the loop spun
// until the model gave up (nbody of the corpus).
func TestOpaqueExitNotInProfile(t *testing.T) {
	p := prepare(t, "./interp/testdata/rejection")
	args := []string{"-items", "10"}
	for _, pf := range []*profile.File{nil, rejectionProfile(t, p, args)} {
		r, err := p.Run(Config{NP: 2, Machine: handMachine(t), Profile: pf, Args: args})
		if err != nil {
			t.Fatalf("profile %v: %v", pf != nil, err)
		}
		// A barrier at np = 2 is one round of 2 messages.
		if r.Messages != 10*2 {
			t.Errorf("profile %v: %d messages, want 10 barriers' 20", pf != nil, r.Messages)
		}
		want := "the exit test of the loop at " + markSpan(t, rejectionFile, "draw")
		exit := markPos(t, rejectionFile, "exit")
		found := false
		for _, d := range r.Decisions {
			if strings.HasPrefix(d.Pos, exit+":") && strings.Contains(d.Source, want) {
				found = true
			}
		}
		if !found {
			t.Errorf("profile %v: decisions %+v, want %s as %q", pf != nil, r.Decisions, exit, want)
		}
	}
}

// TestEndlessOpaqueLoop: when the profile's outcomes keep a loop going
// forever (its exit test recorded as never leaving it), the model stops
// with an error that names the loop and the exit test it cannot decide,
// not a hint about loops waiting for time. It spins 2^26 iterations
// first, so it runs with PREDICT_SLOW_TESTS=1 only.
func TestEndlessOpaqueLoop(t *testing.T) {
	if os.Getenv("PREDICT_SLOW_TESTS") == "" {
		t.Skip("spins 2^26 iterations; set PREDICT_SLOW_TESTS=1")
	}
	p := prepare(t, "./interp/testdata/rejection")
	args := []string{"-items", "10"}
	cond := exitCond(t, p)
	ds := profile.DecisionStats{Node: cond.ID, Pos: cond.Pos.Start.String()}
	for r := range 2 {
		ds.Ranks = append(ds.Ranks, profile.RankOutcomes{Rank: r, True: 5, FirstTrue: true, Runs: []int64{5}})
	}
	_, err := p.Run(Config{NP: 2, Machine: handMachine(t), Profile: rejectionProfile(t, p, args, ds), Args: args})
	want := "the loop at " + markSpan(t, rejectionFile, "draw") + " (in sample) iterated 67108864 times without modeled time passing: it would run forever in the model: the model cannot decide when it ends: its exit test at " + markPos(t, rejectionFile, "exit")
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "waiting for time") {
		t.Errorf("got %v, want an error containing %q", err, want)
	}
}

// TestRunawayStops: a batch loop whose exit test is replayed as never
// leaving it (the profile recorded 3 batches that stayed) runs far more
// batches than the timing pass saw with the same arguments: the model
// stops with an error naming the loop and its exit test once the batch's
// sample loop has run 16 × its recorded iterations + 2^12, rather than run
// the program's million batches for minutes (montecarlo of the corpus:
// its exit test, computed from sums the model reads as zero, never held).
func TestRunawayStops(t *testing.T) {
	p := prepare(t, "./interp/testdata/batches")
	args := []string{"-tol", "1e-3"}
	pf := syntheticProfile(t, p, 2, args)
	sample, exit := markLine(t, batchesFile, "sample"), markLine(t, batchesFile, "exit")
	for _, f := range p.Model.Functions {
		model.Walk(f.Tree, func(n *model.Node) bool {
			if n.Kind == model.KindLoop && n.Pos.Start.Line == sample {
				pf.Fragments = append(pf.Fragments, profile.FragmentStats{Node: n.ID, Kind: profile.FragLoop, Pos: n.Pos.String(), Executions: 6, MeanPS: 1000})
				pf.Loops = append(pf.Loops, profile.LoopStats{Node: n.ID, Trips: []profile.TripCount{{Trips: 256, Count: 6}}, PerIterPS: 4, Balanced: true})
			}
			if n.Cond != nil {
				model.Walk(n.Cond, func(x *model.Node) bool {
					if x.Kind == model.KindTest && x.Opaque != "" && x.Pos.Start.Line == exit {
						ds := profile.DecisionStats{Node: n.Cond.ID, Pos: n.Cond.Pos.Start.String()}
						for r := range 2 {
							ds.Ranks = append(ds.Ranks, profile.RankOutcomes{Rank: r, False: 3, Runs: []int64{3}})
						}
						pf.Decisions = append(pf.Decisions, ds)
					}
					return true
				})
			}
			return true
		})
	}
	if len(pf.Loops) != 1 || len(pf.Decisions) != 1 {
		t.Fatalf("%d loops, %d decisions: want the sample loop at line %d and the exit test at line %d", len(pf.Loops), len(pf.Decisions), sample, exit)
	}
	_, err := p.Run(Config{NP: 2, Machine: handMachine(t), Profile: pf, Args: args})
	const limit = 16*256*6 + 1<<12
	for _, want := range []string{
		fmt.Sprintf("ran %d times in the model, more than %d: the timing pass ran it %d times with the same arguments at np=2", limit+1, limit, 256*6),
		"the loop at " + markSpan(t, batchesFile, "batch"),
		"its exit test at " + markPos(t, batchesFile, "exit"),
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("got %v, want an error containing %q", err, want)
		}
	}
}

// TestTruncatedOutcomes: a record that kept its first runs (T, T, F) of 10
// outcomes counted (5 true) replays those runs, then the 7 it did not keep
// in their own proportion (3 true), spread evenly, then starts again; the
// decision says which.
func TestTruncatedOutcomes(t *testing.T) {
	w := &World{Compiled: &Compiled{profNP: 1, rec: recordChoice{np: 1, exact: true}}}
	p := &proc{w: w}
	w.procs = []*proc{p}
	d := &decision{stats: &profile.DecisionStats{}, from: recordChoice{np: 1, exact: true}, byRank: map[int]*profile.RankOutcomes{
		0: {Rank: 0, True: 5, False: 5, FirstTrue: true, Runs: []int64{2, 1}, Truncated: true},
	}}
	w.decisions = []*decision{d}
	var got []bool
	for range 12 {
		got = append(got, p.decide(d))
	}
	// The tail's k-th outcome (k = 0..6) is true when ⌊(k+1)·3/7⌋ > ⌊k·3/7⌋:
	// k = 2, 4, 6.
	want := []bool{true, true, false, false, false, true, false, true, false, true, true, true}
	if !slices.Equal(got, want) {
		t.Errorf("outcomes %v, want %v", got, want)
	}
	if trues := len(slices.DeleteFunc(slices.Clone(got[:10]), func(o bool) bool { return !o })); trues != 5 {
		t.Errorf("%d true of the 10 counted, want 5", trues)
	}
	if !d.tailed || !d.wrapped || !strings.Contains(d.source(w), "starts again") {
		t.Errorf("tailed %v, wrapped %v, source %q", d.tailed, d.wrapped, d.source(w))
	}
}

// TestDivergedLimit: a decision the run takes far more often than the
// program did at the np it was recorded at (1200 outcomes where 10 were
// recorded) is said among the run's limits; within the slack (500), or
// from a record of another np (where more may be right), it is not.
func TestDivergedLimit(t *testing.T) {
	for _, c := range []struct {
		draws int
		exact bool
		said  bool
	}{{1200, true, true}, {500, true, false}, {1200, false, false}} {
		w := &World{Compiled: &Compiled{profNP: 1, rec: recordChoice{np: 1, exact: c.exact}}}
		p := &proc{w: w}
		w.procs = []*proc{p}
		d := &decision{pos: "app.go:7:2", stats: &profile.DecisionStats{}, from: recordChoice{np: 1, exact: c.exact}, byRank: map[int]*profile.RankOutcomes{
			0: {Rank: 0, True: 5, False: 5, FirstTrue: true, Runs: []int64{5, 5}},
		}}
		w.decisions = []*decision{d}
		for range c.draws {
			p.decide(d)
		}
		limits := w.divergedLimits()
		want := fmt.Sprintf("app.go:7:2: the model took this opaque decision %d times where the program took it 10 at np=1", c.draws)
		if said := len(limits) == 1 && strings.HasPrefix(limits[0], want); said != c.said {
			t.Errorf("%d draws, exact %v: limits %q, want said %v", c.draws, c.exact, limits, c.said)
		}
	}
}
