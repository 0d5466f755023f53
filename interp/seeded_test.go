// This file defines the test of seeded generators and searches in the
// model (testdata/seeded, stdlib.go): communication drawn from a seed is
// computed, at any np, as the program draws it.

package interp

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/predict-tools/predict/trace"
)

// seededWant is what testdata/seeded broadcasts at np ranks, drawn here
// with the standard library itself: per Bcast, its bytes and root.
func seededWant(np int) (bytes []int64, roots []int) {
	starts := make([]int, np+1)
	for r := range np + 1 {
		starts[r] = r * 1000 / np
	}
	rng := rand.New(rand.NewPCG(7, 11))
	for range 4 {
		_, _ = rng.Float64(), rng.NormFloat64()
		n := 1 + rng.IntN(40)
		if slices.Contains([]int{0, 3}, n%5) {
			n += 100
		}
		col := rng.IntN(1000)
		bytes = append(bytes, int64(n)*8)
		roots = append(roots, sort.SearchInts(starts, col+1)-1)
	}
	return bytes, roots
}

// TestSeededComputed runs testdata/seeded without a profile at several np
// and checks every Bcast's bytes and root against the standard library's
// own draws: the draws that only fill data are made too (else the lengths
// would differ), and the roots follow np through the binary search. No
// assumption is noted: nothing is taken as zero.
func TestSeededComputed(t *testing.T) {
	p := prepare(t, "./interp/testdata/seeded")
	for _, np := range []int{1, 3, 4, 7} {
		var events []trace.Event
		r, err := p.Run(Config{NP: np, Machine: handMachine(t), Trace: func(e trace.Event) { events = append(events, e) }})
		if err != nil {
			t.Fatalf("np=%d: %v", np, err)
		}
		if len(r.Assumptions) > 0 {
			t.Errorf("np=%d: assumptions %q, want none", np, r.Assumptions)
		}
		wantBytes, wantRoots := seededWant(np)
		var gotBytes []int64
		var gotRoots []int
		for _, e := range events {
			if e.Op == "Bcast" && e.Rank == np-1 && e.Kind == trace.KindOp {
				gotBytes = append(gotBytes, e.Bytes)
				gotRoots = append(gotRoots, e.Root)
			}
		}
		if !slices.Equal(gotBytes, wantBytes) {
			t.Errorf("np=%d: Bcast bytes %v, want %v", np, gotBytes, wantBytes)
		}
		if !slices.Equal(gotRoots, wantRoots) {
			t.Errorf("np=%d: Bcast roots %v, want %v", np, gotRoots, wantRoots)
		}
	}
}
