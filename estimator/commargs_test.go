package estimator

import (
	"strings"
	"testing"

	"github.com/predict-tools/predict/interp"
)

// TestCommArgs profiles testdata/commargs (np 2), whose ranks send a
// batch to a peer and of a length drawn from a generator over a source of
// the program's own: the peers and lengths of its Isends are recorded per
// rank, and so are the receives' `if n == 0` decisions. The prediction at
// np = 2 replays them, and its messages go to the other rank; without
// them, the model would deadlock. (The corpus's spmv was this test's
// program until the model computed its seeded matrix.)
func TestCommArgs(t *testing.T) {
	var args []string
	prog, p, m := profileProgram(t, "./estimator/testdata/commargs", args)
	peers := 0
	for _, a := range p.CommArgs {
		if strings.Contains(a.Site, "commargs/main.go:") && a.Part == "value" {
			for _, r := range a.Ranks {
				for _, run := range r.Runs {
					if run.Vals[0] != int64(1-r.Rank) {
						t.Errorf("%s argument %d: rank %d passed %d: want the other rank", a.Site, a.Arg, r.Rank, run.Vals[0])
					}
					peers++
				}
			}
		}
	}
	if peers == 0 {
		t.Fatalf("no peer recorded: %+v", p.CommArgs)
	}
	res, err := prog.Run(interp.Config{NP: 2, Machine: m, Profile: p, Args: args})
	if err != nil {
		t.Fatal(err)
	}
	replayed := 0
	for _, a := range res.Assumptions {
		if strings.Contains(a, "replayed per rank") {
			replayed++
		}
		if strings.Contains(a, "taken as zero") || strings.Contains(a, "past the values recorded") {
			t.Errorf("np=2: %s", a)
		}
	}
	if replayed == 0 {
		t.Errorf("np=2: no replayed argument among %q", res.Assumptions)
	}
	// The same values at np = 1, recorded by a run of their own there
	// (replays.go), are what a prediction at np = 1 replays.
	if len(p.Replays) != 1 || p.Replays[0].NP != 1 || len(p.Replays[0].Decisions) == 0 {
		t.Fatalf("want one record of the decisions at np=1, got %+v", p.Replays)
	}
	res, err = prog.Run(interp.Config{NP: 1, Machine: m, Profile: p, Args: args})
	if err != nil {
		t.Fatal(err)
	}
	atOne := 0
	for _, d := range res.Decisions {
		if strings.Contains(d.Source, "record at np=1") {
			atOne++
		}
		if strings.Contains(d.Source, "at np=2") {
			t.Errorf("np=1: %s: %s", d.Pos, d.Source)
		}
	}
	if atOne == 0 {
		t.Errorf("np=1: no decision replayed from the record at np=1: %+v", res.Decisions)
	}
}
