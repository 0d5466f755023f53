package interp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/predict-tools/predict/model"
	"github.com/predict-tools/predict/profile"
	"github.com/predict-tools/predict/reduce"
)

// markedLoop returns the loop of p whose statement starts at the line
// marked name in file, and its plan.
func markedLoop(t *testing.T, p *Program, file, name string) (*model.Node, *reduce.Loop) {
	t.Helper()
	line := markLine(t, file, name)
	for _, f := range p.Model.Functions {
		var found *model.Node
		model.Walk(f.Tree, func(n *model.Node) bool {
			if found == nil && n.Kind == model.KindLoop && n.Pos.Start.Line == line {
				found = n
			}
			return found == nil
		})
		if found != nil {
			return found, p.Report.Plan.Loop(found)
		}
	}
	t.Fatalf("%s: no loop at mark %s (line %d)", file, name, line)
	return nil, nil
}

// TestReplayedDoWhile: a do-while whose test, at the bottom and on random
// data, follows an inner loop has its header where the back edge goes,
// not at its test; collapsed with its trips replayed, each rank costs its
// 10 trips × 1000 ps (before, the plan keyed it at the latch, the loop
// was never entered as planned and its time was lost: found in review).
func TestReplayedDoWhile(t *testing.T) {
	p := prepare(t, "./interp/testdata/replayeddowhile")
	n, pl := markedLoop(t, p, "interp/testdata/replayeddowhile/main.go", "loop")
	if pl.Verdict != reduce.Collapse || pl.Source != reduce.TripsReplayed || pl.Header == nil || !pl.Header.Dominates(pl.Test.Block()) {
		t.Fatalf("plan: %s (%s), source %q; want a replayed collapse whose header dominates its test", pl.Verdict, pl.Why, pl.Source)
	}
	pf := syntheticProfile(t, p, 2, nil)
	pf.Fragments = append(pf.Fragments, profile.FragmentStats{Node: n.ID, Kind: profile.FragLoop, Pos: n.Pos.String(), Executions: 2, MeanPS: 10000})
	pf.Loops = append(pf.Loops, profile.LoopStats{Node: n.ID, PerIterPS: 1000, Balanced: true, Trips: []profile.TripCount{{Trips: 10, Count: 2}},
		Ranks: []profile.RankTrips{{Rank: 0, Runs: [][2]int64{{10, 1}}}, {Rank: 1, Runs: [][2]int64{{10, 1}}}}})
	r, err := p.Run(Config{NP: 2, Machine: handMachine(t), Profile: pf})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := int64(r.Compute.Max), int64(10*1000); got != want {
		t.Errorf("compute %d ps a rank, hand computation %d ps", got, want)
	}
}

// TestInnerRangeIntEmpty: a nest timed per innermost iteration whose
// inner loop is a range over an int m charges 10 × max(m, 0) iterations:
// none when m ≤ 0 (its guard skips it; before, one a row was counted).
func TestInnerRangeIntEmpty(t *testing.T) {
	p := prepare(t, "./interp/testdata/rangenest")
	n, pl := markedLoop(t, p, "interp/testdata/rangenest/main.go", "loop")
	if pl.Inner == nil {
		t.Fatalf("plan: no inner count known on entry (%s: %s)", pl.Verdict, pl.Why)
	}
	for _, m := range []int{3, 1, 0, -2} {
		args := []string{"-m", fmt.Sprint(m)}
		pf := syntheticProfile(t, p, 1, args)
		pf.Fragments = append(pf.Fragments, profile.FragmentStats{Node: n.ID, Kind: profile.FragLoop, Pos: n.Pos.String(), Executions: 1, MeanPS: 1})
		pf.Loops = append(pf.Loops, profile.LoopStats{Node: n.ID, PerIterPS: 1000, Balanced: true, Innermost: true})
		r, err := p.Run(Config{NP: 1, Machine: handMachine(t), Profile: pf, Args: args})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := int64(r.Compute.Max), int64(10*max(m, 0)*1000); got != want {
			t.Errorf("m=%d: compute %d ps, hand computation %d ps", m, got, want)
		}
	}
}

// TestClockValueUsedAfter: a loop until a moment of modeled time whose
// last Wtime() the code after it reads is iterated, not collapsed (a
// collapsed loop would leave that value unset).
func TestClockValueUsedAfter(t *testing.T) {
	p := prepare(t, "./interp/testdata/clockafter")
	_, pl := markedLoop(t, p, "interp/testdata/clockafter/main.go", "loop")
	if pl.Verdict != reduce.Iterate || !strings.Contains(pl.Why, "a value it computes is used after it") {
		t.Errorf("plan: %s (%s), want iterate: a value it computes is used after it", pl.Verdict, pl.Why)
	}
}

// TestCompoundCondTimedWhole: a loop whose condition has several tests
// (i < n && i < len(xs)) starts at its first test and is left for one
// block from either: it is timed whole, and charged its time per
// iteration by hand: collapsed where the profile recorded its trips per
// rank, iterated (charged where the tests let the body run) where it did
// not; 10 iterations of 1 ns either way.
func TestCompoundCondTimedWhole(t *testing.T) {
	p := prepare(t, "./interp/testdata/andcond")
	n, pl := markedLoop(t, p, "interp/testdata/andcond/main.go", "loop")
	if !pl.Whole || pl.Verdict != reduce.Collapse || pl.Header == nil || pl.IterStart == nil {
		t.Fatalf("plan: whole %v, %s (%s): want timed whole and collapsed", pl.Whole, pl.Verdict, pl.Why)
	}
	// An iteration starts in the body, not at the second test (which
	// runs once more on the entry that leaves by it).
	if b := pl.IterStart.Block(); !strings.HasPrefix(b.Comment, "for.body") {
		t.Errorf("iterations start at %v in block %s, want the body's first instruction", pl.IterStart, pl.IterStart.Block().Comment)
	}
	for _, ranked := range []bool{true, false} {
		pf := syntheticProfile(t, p, 1, nil)
		pf.Fragments = append(pf.Fragments, profile.FragmentStats{Node: n.ID, Kind: profile.FragLoop, Pos: n.Pos.String(), Executions: 1, MeanPS: 10000})
		ls := profile.LoopStats{Node: n.ID, PerIterPS: 1000, Balanced: true, Trips: []profile.TripCount{{Trips: 10, Count: 1}}}
		if ranked {
			ls.Ranks = []profile.RankTrips{{Rank: 0, Runs: [][2]int64{{10, 1}}}}
		}
		pf.Loops = append(pf.Loops, ls)
		r, err := p.Run(Config{NP: 1, Machine: handMachine(t), Profile: pf})
		if err != nil {
			t.Fatalf("trips per rank %v: %v", ranked, err)
		}
		if got := int64(r.Compute.Max); got != 10*1000 {
			t.Errorf("trips per rank %v: compute %d ps, hand computation 10000 ps", ranked, got)
		}
	}
}

// TestFirstIters: a loop unbalanced by its iterations' index is charged
// the sum of its iterations' estimates (seed-003 §4.3.2.3). A profile
// says a sweep's first row costs 5000 ps, its second 2000 and each later
// one 1000; each rank sweeps its 64/np rows four times, so, by hand:
// np = 1: 4·(5000 + 2000 + 62·1000) = 276 000 ps; np = 2: 4·(7000 +
// 30 000) = 148 000; np = 32: 4·7000 = 28 000; np = 64: 4·5000 = 20 000.
// Without the estimates (PerIterPS alone, the profile's mean at np = 2:
// 37 000/32 = 1156 ps) np = 64 would cost 4·1156.
func TestFirstIters(t *testing.T) {
	p := prepare(t, "./interp/testdata/firstiters")
	n, pl := markedLoop(t, p, "interp/testdata/firstiters/main.go", "loop")
	if pl.Verdict != reduce.Collapse || pl.Source != reduce.TripsCounted {
		t.Fatalf("plan: %s (%s), source %q; want a counted collapse", pl.Verdict, pl.Why, pl.Source)
	}
	for _, c := range []struct {
		np   int
		want int64
	}{{1, 276_000}, {2, 148_000}, {32, 28_000}, {64, 20_000}} {
		pf := syntheticProfile(t, p, 2, nil)
		pf.Fragments = append(pf.Fragments, profile.FragmentStats{Node: n.ID, Kind: profile.FragLoop, Pos: n.Pos.String(), Executions: 8, MeanPS: 37_000})
		pf.Loops = append(pf.Loops, profile.LoopStats{Node: n.ID, PerIterPS: 1156, D: 3.3, Samples: 128, Trips: []profile.TripCount{{Trips: 32, Count: 8}},
			FirstItersPS: []int64{5000, 2000}, LaterIterPS: 1000})
		if err := pf.Validate(); err != nil {
			t.Fatal(err)
		}
		r, err := p.Run(Config{NP: c.np, Machine: handMachine(t), Profile: pf})
		if err != nil {
			t.Fatal(err)
		}
		if got := int64(r.Compute.Max); got != c.want {
			t.Errorf("np=%d: compute %d ps a rank, hand computation %d ps", c.np, got, c.want)
		}
	}
}
