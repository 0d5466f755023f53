// Replayargs passes a ring of messages whose peers and lengths the model
// cannot compute: each step draws how far the ring reaches (always one
// rank, but drawn) and how many values a rank sends, sends the count and
// then the values. The timing pass records these arguments per rank, and
// the model replays them at the profile's np; at another np it takes them
// as zero, and says so.
package main

import (
	"fmt"
	"math/rand/v2"

	"github.com/predict-tools/predict/commlib"
)

func main() {
	commlib.Main(func(c *commlib.Comm) {
		rng := rand.New(newLCG(1, uint64(c.Rank())))
		np, rank := c.Size(), c.Rank()
		total := 0
		for range 3 {
			hop := 1 + rng.IntN(1) // always 1, but drawn
			right, left := (rank+hop)%np, (rank-hop+np)%np
			n := 1 + rng.IntN(100)
			got := []int{0}
			c.Sendrecv([]int{n}, right, 0, got, left, 0) // mark:counts
			out, in := make([]float64, n), make([]float64, got[0])
			c.Sendrecv(out, right, 1, in, left, 1) // mark:values
			total += len(in)
		}
		if total == 0 {
			c.Abort(fmt.Errorf("rank %d received nothing", rank))
		}
	})
}

// lcg is a source of the program's own, a linear congruential generator:
// the model does not run it, so what a generator over it draws is random
// numbers to the model (a generator over rand.NewPCG it would compute).
type lcg struct{ x uint64 }

func newLCG(a, b uint64) *lcg { return &lcg{x: a*0x9e3779b97f4a7c15 ^ b} }

func (s *lcg) Uint64() uint64 {
	s.x = s.x*6364136223846793005 + 1442695040888963407
	return s.x ^ s.x>>29
}
