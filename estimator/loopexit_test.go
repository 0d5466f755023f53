package estimator

import (
	"strings"
	"testing"

	"github.com/predict-tools/predict/interp"
)

// TestLoopExits profiles two corpus programs whose loops end on tests the
// model cannot compute, class S at np 2, and predicts them at np 1 and 2:
// both ran away in the model before, or took a decision's default.
//   - montecarlo stops on a flag set from the sums it reduces
//     (`for batches < *maxBatches && !converged`, main.go:118): the test of
//     the flag, a φ with no position of its own, must be recorded.
//   - bfs's sequential reference drains a queue appended to when a vertex
//     is new (graph.go:93): no data flows from the levels into the queue's
//     length, only which way their tests went, so its trips are replayed.
func TestLoopExits(t *testing.T) {
	for _, tc := range []struct{ name, prog, decision, loop, fromTrips string }{
		{name: "flag", prog: "montecarlo", decision: "montecarlo/main.go:118:"},
		{name: "queue", prog: "bfs", loop: "sequentialBFS/loop"},
		// bfs's visit closure, called from a loop timed whole that the
		// model runs iteration by iteration: it gets no timing probes,
		// but its decision is recorded.
		{name: "closure", prog: "bfs", decision: "bfs/main.go:194:"},
		// bfs's loop over the vertices received (main.go:212) is timed
		// whole, its trips recorded per rank, and the model runs it
		// iteration by iteration (visit's decision is replayed): its exit
		// test's outcomes are made of those trips. Before, it took its
		// default and left at once: no received vertex was visited.
		{name: "received", prog: "bfs", loop: "(*search).run/loop@+33:", fromTrips: "bfs/main.go:212:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"-class", "S"}
			prog, p, m := profileCorpus(t, tc.prog, args)
			recorded := false
			for _, d := range p.Decisions {
				if tc.decision != "" && strings.Contains(d.Pos, tc.decision) && len(d.Ranks) == 2 {
					recorded = true
				}
			}
			for _, l := range p.Loops {
				if tc.loop != "" && strings.HasPrefix(l.Node, tc.loop) && len(l.Ranks) > 0 {
					recorded = true
				}
			}
			if !recorded {
				t.Fatalf("no outcomes of the decision at %q or per-rank trips of the loop %q recorded", tc.decision, tc.loop)
			}
			for _, np := range []int{1, 2} {
				res, err := prog.Run(interp.Config{NP: np, Machine: m, Profile: p, Args: args})
				if err != nil {
					t.Fatalf("np=%d: %v", np, err)
				}
				if res.Time <= 0 {
					t.Errorf("np=%d: predicted %d ps", np, res.Time)
				}
				if tc.fromTrips == "" {
					continue
				}
				found := false
				for _, d := range res.Decisions {
					if strings.Contains(d.Pos, tc.fromTrips) {
						found = true
						if !strings.Contains(d.Source, "made of its loop's trip counts") {
							t.Errorf("np=%d: %s: %s", np, d.Pos, d.Source)
						}
					}
				}
				if !found && np == 2 {
					t.Errorf("np=%d: no decision at %s among %+v", np, tc.fromTrips, res.Decisions)
				}
			}
		})
	}
}
