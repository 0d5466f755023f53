package validate

import (
	"testing"

	"github.com/predict-tools/predict/interp"
	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/model"
	"github.com/predict-tools/predict/profile"
	"github.com/predict-tools/predict/trace"
)

// TestBrokenProfileShows checks that the attribution is honest: the
// prediction of ./testprogs/amdahl from a profile whose parallel loop reads
// half its time, set against the prediction from the right profile (as if
// it were the measured run), differs by exactly −50 % in the one region
// that holds the loop (the compute between the Bcast and the Allreduce),
// and in no other. Both sides are modeled, so the figures are exact.
func TestBrokenProfileShows(t *testing.T) {
	prog, err := interp.Prepare("..", "./testprogs/amdahl")
	if err != nil {
		t.Fatal(err)
	}
	m, err := machine.Preset("infiniband-hdr")
	if err != nil {
		t.Fatal(err)
	}
	good, broken := unitProfile(t, prog, 1_000_000), unitProfile(t, prog, 1_000_000)
	for i := range broken.Loops {
		if broken.Fragments[i].Pos == "parallel" {
			broken.Loops[i].PerIterPS /= 2
		}
	}
	const np = 4
	args := []string{"-class", "S"}
	traceOf := func(p *profile.File) ([]trace.Event, trace.Time) {
		var events []trace.Event
		r, err := prog.Run(interp.Config{NP: np, Machine: m, Profile: p, Args: args, Trace: func(e trace.Event) { events = append(events, e) }})
		if err != nil {
			t.Fatal(err)
		}
		return events, r.Time
	}
	goodEvents, goodEnd := traceOf(good)
	brokenEvents, brokenEnd := traceOf(broken)
	regions := Attribute(np, goodEvents, brokenEvents, goodEnd, brokenEnd, Sites{Root: prog.Loaded.ModuleDir})
	top := regions[0]
	if top.Region.String() != "compute testprogs/amdahl/main.go:80 → testprogs/amdahl/main.go:85" {
		t.Fatalf("largest difference in %s, want the parallel loop's region", top.Region)
	}
	if rel := float64(top.Diff()) / float64(top.Measured); rel < -0.5001 || rel > -0.4999 {
		t.Errorf("%s: %v measured, %v predicted: %+.2f%%, want −50 %%", top.Region, top.Measured, top.Predicted, 100*rel)
	}
	// The other regions are charged the same on both sides, except the
	// waits the shorter loop moves (the collectives and the end).
	for _, rt := range regions[1:] {
		if rt.Region.Kind == "compute" && rt.Region.To != "end" && rt.Diff() != 0 {
			t.Errorf("%s: differs by %v; only the broken loop's region should", rt.Region, rt.Diff())
		}
	}
}

// unitProfile is a profile of amdahl in which a unit of work of its serial
// and its parallel loop (lines 76 and 82) costs unitPS and nothing else is
// timed. Fragment Pos names the loop ("serial", "parallel").
func unitProfile(t *testing.T, prog *interp.Program, unitPS int64) *profile.File {
	hash, err := profile.ContentHash(prog.Loaded)
	if err != nil {
		t.Fatal(err)
	}
	p := &profile.File{Format: profile.Format, Version: profile.Version,
		Package: prog.Model.Package, Module: prog.Model.Module, ContentHash: hash, NP: 1, Alpha: 0.1}
	name := map[int]string{76: "serial", 82: "parallel"}
	for _, f := range prog.Model.Functions {
		model.Walk(f.Tree, func(n *model.Node) bool {
			if which := name[n.Pos.Start.Line]; n.Kind == model.KindLoop && f.ID == "main$1" && which != "" {
				p.Fragments = append(p.Fragments, profile.FragmentStats{Node: n.ID, Kind: profile.FragLoop, Pos: which, MeanPS: 1})
				p.Loops = append(p.Loops, profile.LoopStats{Node: n.ID, PerIterPS: unitPS, Balanced: true})
			}
			return true
		})
	}
	if len(p.Loops) != 2 {
		t.Fatalf("amdahl's loops at lines 76 and 82 not found")
	}
	return p
}
