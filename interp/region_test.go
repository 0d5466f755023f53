package interp

import (
	"testing"

	"github.com/predict-tools/predict/model"
	"github.com/predict-tools/predict/profile"
	"github.com/predict-tools/predict/reduce"
)

// TestRegionCharges checks, by hand, where the time of a region (what a
// function's or an iterated loop's fragments leave unmeasured) is
// charged: per call at the function's entry, per iteration at the start
// of the loop's iteration.
func TestRegionCharges(t *testing.T) {
	p := prepare(t, "./interp/testdata/pingpong")
	args := []string{"-bytes", "8", "-reps", "3"}
	m := handMachine(t)
	base, err := p.Run(Config{NP: 2, Machine: m, Profile: syntheticProfile(t, p, 2, args), Args: args})
	if err != nil {
		t.Fatal(err)
	}
	pf := syntheticProfile(t, p, 2, args)
	const perCall, perIter = 7_000, 1_000 // ps
	var body, loop *model.Node
	for _, f := range p.Model.Functions {
		if f.ID == p.Model.Body {
			body = f.Tree
		}
	}
	for _, l := range p.Report.Plan.Loops {
		if l.Verdict == reduce.Iterate && l.IterStart != nil && l.Fn.Name() == "main$1" && (loop == nil || l.Node.Pos.Start.Before(loop.Pos.Start)) {
			loop = l.Node // the ping-pong's loop of -reps round trips
		}
	}
	if body == nil || loop == nil {
		t.Fatalf("body %v, iterated loop %v", body, loop)
	}
	pf.SpreadRel = 0.04
	pf.Fragments = append(pf.Fragments,
		profile.FragmentStats{Node: body.ID, Kind: profile.FragRegion, Pos: body.Pos.String(), Executions: 2, MeanPS: perCall, ErrorRel: 0.1},
		profile.FragmentStats{Node: loop.ID, Kind: profile.FragRegion, Pos: loop.Pos.String(), Executions: 6, MeanPS: perIter, ErrorRel: 0.2})
	r, err := p.Run(Config{NP: 2, Machine: m, Profile: pf, Args: args})
	if err != nil {
		t.Fatal(err)
	}
	// Each rank enters the body once and runs the loop's 3 iterations.
	if got, want := int64(r.Compute.Max-base.Compute.Max), int64(perCall+3*perIter); got != want {
		t.Errorf("the regions add %d ps of compute to a rank, hand computation %d ps", got, want)
	}
	// The bound: the regions' bounds weighted by what the run charged
	// them (2·7000 ps at 10 %, 6·1000 ps at 20 %: 13 %), plus half the
	// profile's spread (2 %), on the busiest rank's 10000 ps of compute.
	if base.Compute.Max != 0 {
		t.Fatalf("the synthetic profile charges %v already", base.Compute.Max)
	}
	if r.Bound != 1500 {
		t.Errorf("bound %d ps, hand computation 1500 ps", r.Bound)
	}
	// A region the model has no place for is an error, never dropped.
	pf.Fragments = append(pf.Fragments, profile.FragmentStats{Node: "main$1/nowhere", Kind: profile.FragRegion, Pos: "x.go:1", Executions: 1, MeanPS: 1})
	if _, err := p.Run(Config{NP: 2, Machine: m, Profile: pf, Args: args}); err == nil {
		t.Errorf("a region of no function or iterated loop was accepted")
	}
}
