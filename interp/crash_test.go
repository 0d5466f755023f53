package interp

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/predict-tools/predict/model"
	"github.com/predict-tools/predict/modelgen"
	"github.com/predict-tools/predict/profile"
	"golang.org/x/tools/go/ssa"
)

// TestRecursiveVCycle: a multigrid V-cycle that recurses to coarser grids,
// exchanging halos on each, is planned and run (its planning used to follow
// the recursion until the stack overflowed). The message count is the hand
// count: -n 64 gives 6 levels (64 down to 2 points a rank); a cycle does 9
// halo exchanges on each of the 5 finer levels (3 sweeps, the residual's
// and the restriction's halos, the correction's, 3 sweeps) and 33 on the
// coarsest (3 + 30 sweeps); 2 cycles and the 2 residual norms make 158
// halos of 2(np−1) messages, and each norm's Allreduce at np = 4 is 2
// rounds of recursive doubling, 8 messages.
func TestRecursiveVCycle(t *testing.T) {
	p := prepare(t, "./interp/testdata/vcycle")
	r, err := p.Run(Config{NP: 4, Machine: handMachine(t), Args: []string{"-n", "64", "-cycles", "2"}})
	if err != nil {
		t.Fatal(err)
	}
	const want = 158*2*3 + 2*8
	if r.Messages != want {
		t.Errorf("%d messages, hand count %d", r.Messages, want)
	}
	// The residual check, if !(r < reduction*r0) { Abort }, replays the
	// outcome the timing pass records for its condition, !(...): false
	// when it passes. The branch tests r < reduction*r0, so the outcome
	// is negated (before, the model took the Abort).
	pf := syntheticProfile(t, p, 4, nil)
	for _, f := range p.Model.Functions {
		model.Walk(f.Tree, func(n *model.Node) bool {
			if n.Cond != nil && n.Cond.Kind == model.KindNot && n.Cond.Children[0].Check != "" {
				ds := profile.DecisionStats{Node: n.Cond.ID}
				for r := range 4 {
					ds.Ranks = append(ds.Ranks, profile.RankOutcomes{Rank: r, False: 1, Runs: []int64{1}})
				}
				pf.Decisions = append(pf.Decisions, ds)
			}
			return true
		})
	}
	if len(pf.Decisions) != 1 {
		t.Fatalf("%d negated checks, want 1 (the residual's)", len(pf.Decisions))
	}
	if _, err := p.Run(Config{NP: 4, Machine: handMachine(t), Profile: pf, Args: []string{"-n", "64", "-cycles", "2"}}); err != nil {
		t.Fatalf("with the check's recorded outcome: %v", err)
	}
	// 5 recursive calls a cycle in each of 4 ranks, 2 cycles.
	limit := "time of recursive calls is not modeled: vcycle at " + markPos(t, "interp/testdata/vcycle/main.go", "recurse") + ":8 (40 calls in this run)"
	if len(r.Limits) != 1 || !strings.HasPrefix(r.Limits[0], limit) {
		t.Errorf("limits %q, want one starting %q", r.Limits, limit)
	}
}

// TestReceivedIndex: a level-synchronous BFS whose received vertex ids
// index the local distances, from which the next frontier is collected.
// The model does not hold the ids (their buffer is shape-only), so the
// write at such an index is not run and the test that collects the
// frontier from the distances is opaque: replayed, not computed. Before,
// the test on dist[id − first] was replayed and the write run with the
// id the model holds, 0: "index out of range [-16384]" at rank 1 when
// the test was replayed true. Here every replayed test of the mark and
// collect loops says "true" at its first run, then "false": each rank's
// first frontier has one vertex, and the search ends at the second level.
func TestReceivedIndex(t *testing.T) {
	p := prepare(t, "./interp/testdata/bfs")
	opaque := map[string]bool{}
	for _, fr := range p.Report.Functions {
		for _, d := range fr.Opaque {
			opaque[d.Where] = true
		}
	}
	const bfs = "interp/testdata/bfs/main.go"
	// if d == level+1, after the write of the distances it tests.
	frontierTest := markPos(t, bfs, "frontier")
	visited, frontier := markLine(t, bfs, "visited"), markLine(t, bfs, "frontier")
	if !opaque[frontierTest] {
		t.Errorf("the frontier's test at %s is not opaque; opaque: %v", frontierTest, opaque)
	}
	for _, np := range []int{2, 4} {
		pf := syntheticProfile(t, p, np, nil)
		for _, f := range p.Model.Functions {
			model.Walk(f.Tree, func(n *model.Node) bool {
				if n.Cond == nil {
					return true
				}
				model.Walk(n.Cond, func(x *model.Node) bool {
					if line := x.Pos.Start.Line; x.Kind != model.KindTest || x.Opaque == "" || (line != visited && line != frontier) {
						return true
					}
					ds := profile.DecisionStats{Node: n.Cond.ID, Pos: x.Pos.Start.String()}
					for r := range np {
						ds.Ranks = append(ds.Ranks, profile.RankOutcomes{Rank: r, True: 1, False: 1 << 40, FirstTrue: true, Runs: []int64{1, 1 << 40}})
					}
					pf.Decisions = append(pf.Decisions, ds)
					return true
				})
				return true
			})
		}
		r, err := p.Run(Config{NP: np, Machine: handMachine(t), Profile: pf})
		if err != nil {
			t.Fatalf("np=%d: %v", np, err)
		}
		// Two levels, each an Alltoall and an Alltoallv of np(np−1)
		// messages (pairwise exchange) and an Allreduce of np·log2(np)
		// (recursive doubling).
		log2 := map[int]int64{2: 1, 4: 2}[np]
		want := 2 * (2*int64(np*(np-1)) + int64(np)*log2)
		if r.Messages != want {
			t.Errorf("np=%d: %d messages, want %d (two levels)", np, r.Messages, want)
		}
	}
}

// TestSwappedFieldsOfElements: halos sent from slices of a grid's current
// buffer, the grid an element of a slice of structs whose buffer fields
// are swapped each step. The reduction used to keep the slice of structs
// as a shape (only its elements' fields were control, and the whole
// elements' stores did not count as writing them), so the halo was "a
// slice of a value the reduced model does not hold". Each step sends 2
// halos per field of np−1 messages each; each field's heat is summed by
// an Allreduce (recursive doubling: np·log2(np) messages).
func TestSwappedFieldsOfElements(t *testing.T) {
	p := prepare(t, "./interp/testdata/swapgrid")
	for _, np := range []int{2, 4} {
		r, err := p.Run(Config{NP: np, Machine: handMachine(t), Args: []string{"-steps", "10", "-fields", "3"}})
		if err != nil {
			t.Fatalf("np=%d: %v", np, err)
		}
		log2 := map[int]int64{2: 1, 4: 2}[np]
		if want := 10*3*2*int64(np-1) + 3*int64(np)*log2; r.Messages != want {
			t.Errorf("np=%d: %d messages, hand count %d", np, r.Messages, want)
		}
	}
}

// TestModelingLimit: a panic inside the interpreter (injected while it
// compiles halo's first Sendrecv, which it does lazily, in the middle of
// the run) is reported as a modeling limit naming that call's file:line,
// not as a Go panic.
func TestModelingLimit(t *testing.T) {
	p := prepare(t, "./interp/testdata/vcycle")
	site := markPos(t, "interp/testdata/vcycle/main.go", "halo") + ":12"
	compileHook = func(in ssa.Instruction) {
		if p.Loaded.PosString(in.Pos()) == site {
			var empty []int
			i := 7
			_ = empty[i] // a runtime error, as a bug would make
		}
	}
	defer func() { compileHook = nil }()
	_, err := p.Run(Config{NP: 2, Machine: handMachine(t), Args: []string{"-n", "8", "-cycles", "1"}})
	var le *modelgen.LimitError
	if !errors.As(err, &le) {
		t.Fatalf("got %v (%T), want a modeling limit", err, err)
	}
	want := "modeling limit at " + site + ": runtime error: index out of range [7] with length 0; please report it"
	if err.Error() != want {
		t.Errorf("got  %q\nwant %q", err, want)
	}
}

// TestRecursionLimit: a run that makes recursive calls says that their
// time is not modeled, naming the function and its recursive call site,
// with the count of recursive calls: fib(k) makes 2·fib(k+1) − 2 of them,
// so ranks 0 and 1 computing fib(10) and fib(11) make 176 + 286. A run
// without recursion says nothing.
func TestRecursionLimit(t *testing.T) {
	p := prepare(t, "./interp/testdata/fib")
	r, err := p.Run(Config{NP: 2, Machine: handMachine(t), Args: []string{"-n", "10"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"time of recursive calls is not modeled: fib at " + markPos(t, "interp/testdata/fib/main.go", "recurse") + ":12 (462 calls in this run); " +
		"the prediction leaves out their time but for the fragments the timing pass measured inside them"}
	if !reflect.DeepEqual(r.Limits, want) {
		t.Errorf("limits %q\nwant %q", r.Limits, want)
	}
	r, err = prepare(t, "./interp/testdata/pingpong").Run(Config{NP: 2, Machine: handMachine(t)})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Limits) != 0 {
		t.Errorf("pingpong: limits %q, want none", r.Limits)
	}
}
