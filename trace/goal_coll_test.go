// This file tests the messages of collective algorithms against hand
// computations.

package trace

import (
	"fmt"
	"testing"
)

// TestCollectiveRoundsByHand: per algorithm, one participant's rounds
// worked out on paper ("s2 8" sends 8 bytes to position 2, "r0 8"
// receives them from 0; rounds in brackets).
func TestCollectiveRoundsByHand(t *testing.T) {
	for _, tc := range []struct {
		op, alg string
		i, n    int
		root    int
		bytes   []int64
		want    string
	}{
		// partners 1^1 = 0, then 1^2 = 3
		{"Allreduce", "recursive-doubling", 1, 4, -1, []int64{8, 8, 8, 8}, "[s0 8 r0 8] [s3 8 r3 8]"},
		// 3 ranks: rank 1 folds into 0 first and gets the result back last
		{"Allreduce", "recursive-doubling", 1, 3, -1, []int64{8, 8, 8}, "[s0 8] [r0 8]"},
		{"Allreduce", "recursive-doubling", 0, 3, -1, []int64{8, 8, 8}, "[r1 8] [s2 8 r2 8] [s1 8]"},
		// chunks of 40/4 = 10 bytes, n-1 = 3 steps twice
		{"Allreduce", "ring", 1, 4, -1, []int64{40, 40, 40, 40}, "[s2 10 r0 10] [s2 10 r0 10] [s2 10 r0 10] [s2 10 r0 10] [s2 10 r0 10] [s2 10 r0 10]"},
		// halving: 1^2 = 3 with 32 B, 1^1 = 0 with 16 B; doubling back: 16 B with 0, 32 B with 3
		{"Allreduce", "rabenseifner", 1, 4, -1, []int64{64, 64, 64, 64}, "[s3 32 r3 32] [s0 16 r0 16] [s0 16 r0 16] [s3 32 r3 32]"},
		// binomial reduce to 0, then binomial bcast from 0
		{"Allreduce", "binomial", 0, 4, -1, []int64{8, 8, 8, 8}, "[r1 8] [r2 8] [s2 8] [s1 8]"},
		{"Bcast", "binomial", 0, 4, 0, []int64{8, 8, 8, 8}, "[s2 8] [s1 8]"},
		{"Bcast", "binomial", 3, 4, 0, []int64{8, 8, 8, 8}, "[r2 8]"},
		// root 2: relative rank of 1 is 3, its parent relative 2 = rank 0
		{"Bcast", "binomial", 1, 4, 2, []int64{8, 8, 8, 8}, "[r0 8]"},
		// 100 B in chunks of 25: binomial scatter of 2 and 1 chunks, then a ring of 25 B
		{"Bcast", "scatter-allgather", 0, 4, 0, []int64{100, 100, 100, 100}, "[s2 50] [s1 25] [s1 25 r3 25] [s1 25 r3 25] [s1 25 r3 25]"},
		{"Reduce", "rabenseifner", 2, 4, 0, []int64{64, 64, 64, 64}, "[s0 32 r0 32] [s3 16 r3 16] [r3 16] [s0 32]"}, // then the tree: 3 sends its 16 B block, 2 sends 2 blocks to 0
		{"Gather", "linear", 0, 3, 0, []int64{5, 6, 7}, "[r1 6] [r2 7]"},
		{"Gather", "linear", 2, 3, 0, []int64{5, 6, 7}, "[s0 7]"},
		// binomial gather: subtrees of bytes[1] = 6 per rank
		{"Gather", "binomial", 0, 4, 0, []int64{6, 6, 6, 6}, "[r1 6] [r2 12]"},
		{"Allgather", "bruck", 0, 4, -1, []int64{8, 8, 8, 8}, "[s3 8 r1 8] [s2 16 r2 16]"},
		{"Allgather", "recursive-doubling", 0, 4, -1, []int64{8, 8, 8, 8}, "[s1 8 r1 8] [s2 16 r2 16]"},
		// 64 B to 4 ranks: blocks of 16, Bruck sends (n+1)/2 = 2 blocks a step
		{"Alltoall", "bruck", 0, 4, -1, []int64{64, 64, 64, 64}, "[s1 32 r3 32] [s2 32 r2 32]"},
		{"Alltoall", "pairwise", 0, 3, -1, []int64{30, 30, 30}, "[s1 10 r2 10] [s2 10 r1 10]"},
		{"Barrier", "bruck", 0, 3, -1, []int64{0, 0, 0}, "[s1 0 r2 0] [s2 0 r1 0]"},
		{"Barrier", "linear", 0, 3, -1, []int64{0, 0, 0}, "[r1 0] [r2 0] [s1 0] [s2 0]"},
		{"Scan", "recursive-doubling", 1, 4, -1, []int64{8, 8, 8, 8}, "[s2 8 r0 8] [s3 8]"},
		{"Split", "recursive-doubling", 0, 2, -1, []int64{0, 0}, "[s1 8 r1 8]"},
		{"Allreduce", "ring", 0, 1, -1, []int64{8}, ""},
	} {
		rounds, err := CollectiveRounds(tc.op, tc.alg, tc.i, tc.n, tc.root, tc.bytes)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		for k, round := range rounds {
			if k > 0 {
				got += " "
			}
			got += "["
			for j, m := range round {
				if j > 0 {
					got += " "
				}
				kind := "r"
				if m.Send {
					kind = "s"
				}
				got += fmt.Sprintf("%s%d %d", kind, m.Peer, m.Size)
			}
			got += "]"
		}
		if got != tc.want {
			t.Errorf("%s %s participant %d of %d: %s, want %s", tc.op, tc.alg, tc.i, tc.n, got, tc.want)
		}
	}
	for _, tc := range []struct{ op, alg, want string }{
		{"Allreduce", "fastest", `Allreduce: unknown algorithm "fastest"`},
		{"Broadcast", "ring", `collective "Broadcast": unknown operation`},
	} {
		if _, err := CollectiveRounds(tc.op, tc.alg, 0, 2, -1, []int64{8, 8}); err == nil || err.Error() != tc.want {
			t.Errorf("CollectiveRounds(%s, %s) = %v, want %s", tc.op, tc.alg, err, tc.want)
		}
	}
}
