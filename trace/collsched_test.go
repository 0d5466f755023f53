// This file tests the rounds of the collective schedules (collsched.go)
// against the textbook formulas, with the divisions the rounds avoid.

package trace

import (
	"math/bits"
	"testing"

	"github.com/predict-tools/predict/commlib/catalog"
)

// TestRoundsMatchFormulas: for 1 to 70 members, every member, root,
// distance, step and mask, each kind of round pairs the members as the
// formulas of the algorithms do.
func TestRoundsMatchFormulas(t *testing.T) {
	type pair struct{ to, from int }
	check := func(rd Round, r int, want pair) {
		t.Helper()
		if to, from := rd.Peers(r); (pair{to, from}) != want {
			t.Fatalf("%+v, member %d: to %d from %d, want to %d from %d", rd, r, to, from, want.to, want.from)
		}
	}
	for n := 1; n <= 70; n++ {
		for r := range n {
			for k := 0; k < n; k++ {
				check(Round{kind: shift, n: n, k: k}, r, pair{(r + k) % n, (r - k + n) % n})
				to, from := r+k, r-k
				if to >= n {
					to = -1
				}
				if from < 0 {
					from = -1
				}
				check(Round{kind: scan, n: n, k: k}, r, pair{to, from})
			}
			for root := range n {
				for step := 1; step < n; step <<= 1 {
					v := (r - root + n) % n
					parent, child := -1, -1
					if v%(2*step) == step {
						parent = (v - step + root) % n
					}
					if v%(2*step) == 0 && v+step < n {
						child = (v + step + root) % n
					}
					check(Round{kind: treeDown, n: n, k: step, root: root}, r, pair{child, parent})
					check(Round{kind: treeUp, n: n, k: step, root: root}, r, pair{parent, child})
				}
			}
			pof2 := 1 << (bits.Len(uint(n)) - 1)
			rem := n - pof2
			odd, even := -1, -1
			if r < 2*rem && r%2 == 1 {
				odd = r - 1
			}
			if r < 2*rem && r%2 == 0 {
				even = r + 1
			}
			check(Round{kind: foldIn, n: n, rem: rem}, r, pair{odd, even})
			check(Round{kind: foldOut, n: n, rem: rem}, r, pair{even, odd})
			for mask := 1; mask < pof2; mask <<= 1 {
				partner := -1
				var v int
				switch {
				case r < 2*rem && r%2 == 1:
					v = -1
				case r < 2*rem:
					v = r / 2
				default:
					v = r - rem
				}
				if v >= 0 {
					if v ^= mask; v < rem {
						partner = 2 * v
					} else {
						partner = v + rem
					}
				}
				check(Round{kind: pairs, n: n, k: mask, rem: rem}, r, pair{partner, partner})
				half := -1
				if r < pof2 {
					half = r ^ mask
				}
				check(Round{kind: halving, n: n, k: mask, pof2: pof2}, r, pair{half, half})
			}
		}
	}
}

// TestRunScheduleCoversCatalog: every collective and communicator
// constructor of commlib's catalog has a schedule (a renamed operation
// would otherwise cost nothing), and has a default algorithm for the GOAL
// export.
func TestRunScheduleCoversCatalog(t *testing.T) {
	for _, o := range catalog.All() {
		if o.Class != catalog.ClassCollective && o.Class != catalog.ClassCommCreate {
			continue
		}
		name := o.TraceName()
		alg, ok := defaultAlgorithms[name]
		if !ok {
			t.Errorf("%s has no default algorithm", o.Name)
			continue
		}
		p := &collPlan{i: 0, n: 4}
		RunSchedule(p, name, alg, 4, 0, []int64{8, 8, 8, 8})
		if len(p.rounds) == 0 {
			t.Errorf("%s: RunSchedule has no schedule for it (member 0 of 4 sends and receives nothing)", o.Name)
		}
	}
}
