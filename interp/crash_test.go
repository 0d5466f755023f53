package interp

import (
	"testing"
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
}
