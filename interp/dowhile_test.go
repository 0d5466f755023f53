package interp

import (
	"testing"

	"github.com/predict-tools/predict/model"
	"github.com/predict-tools/predict/profile"
)

// TestBoundOnEntry checks, by hand, a do-while whose bound is read in its
// bottom test, not its header: the loop plan computes the bound on entry
// and the loop is collapsed, charged its trips × the measured time of an
// iteration (before the plan did so, the sealed loop could be neither
// collapsed nor iterated and the run failed with an internal error).
func TestBoundOnEntry(t *testing.T) {
	p := prepare(t, "./interp/testdata/dowhile")
	line := markLine(t, "interp/testdata/dowhile/main.go", "loop")
	args := []string{"-n", "1000"}
	pf := syntheticProfile(t, p, 2, args)
	for _, f := range p.Model.Functions {
		model.Walk(f.Tree, func(n *model.Node) bool {
			if n.Kind == model.KindLoop && n.Pos.Start.Line == line {
				pl := p.Report.Plan.Loop(n)
				if !pl.Sealed || !pl.BoundOnEntry {
					t.Errorf("loop at %s: sealed %v, bound on entry %v; want both (%s: %s)", n.Pos, pl.Sealed, pl.BoundOnEntry, pl.Verdict, pl.Why)
				}
				pf.Fragments = append(pf.Fragments, profile.FragmentStats{Node: n.ID, Kind: profile.FragLoop, Pos: n.Pos.String(), Executions: 2, MeanPS: 5000})
				pf.Loops = append(pf.Loops, profile.LoopStats{Node: n.ID, PerIterPS: 10, Balanced: true})
			}
			return true
		})
	}
	if len(pf.Loops) != 1 {
		t.Fatalf("the do-while at line %d not found", line)
	}
	for _, np := range []int{1, 2, 4} {
		r, err := p.Run(Config{NP: np, Machine: handMachine(t), Profile: pf, Args: args})
		if err != nil {
			t.Fatalf("np=%d: %v", np, err)
		}
		// 1000/np elements, one iteration each, 10 ps an iteration.
		if got, want := int64(r.Compute.Max), int64(1000/np*10); got != want {
			t.Errorf("np=%d: compute %d ps a rank, hand computation %d ps", np, got, want)
		}
	}
}
