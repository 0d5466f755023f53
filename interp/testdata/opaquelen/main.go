// Opaquelen broadcasts three batches whose length the model cannot
// compute (drawn at random, received in a message) and one of a length it
// computes. The model takes an opaque length as zero; the run must say so
// at the call's site. It checks that every rank received the batch.
package main

import (
	"fmt"
	"math/rand"

	"github.com/predict-tools/predict/commlib"
)

func main() {
	commlib.Main(func(c *commlib.Comm) {
		fixed := make([]float64, 16)
		fixed[0] = 1
		c.Bcast(fixed, 0) // computed: 128 bytes

		batch := 1 + rand.New(newLCG(7)).Intn(16) // the same on every rank
		made := make([]float64, batch)
		made[0] = 2
		c.Bcast(made, 0) // opaque: made to a random length

		sliced := make([]float64, 16)[:batch]
		sliced[0] = 3
		c.Bcast(sliced, 0) // opaque: sliced to a random length

		n := []int{batch}
		c.Bcast(n, 0) // computed: 8 bytes
		recv := make([]float64, n[0])
		recv[0] = 4
		c.Bcast(recv, 0) // opaque: a length received in a message

		if fixed[0]+made[0]+sliced[0]+recv[0] != 10 {
			c.Abort(fmt.Errorf("rank %d received %v %v %v %v", c.Rank(), fixed[0], made[0], sliced[0], recv[0]))
		}
	})
}

// lcg is a source of the program's own, a linear congruential generator:
// the model does not run it, so what a generator over it draws is random
// numbers to the model (a generator over rand.NewSource it would compute).
type lcg struct{ x uint64 }

func newLCG(seed int64) *lcg { return &lcg{x: uint64(seed)} }

func (s *lcg) Int63() int64 {
	s.x = s.x*6364136223846793005 + 1442695040888963407
	return int64(s.x >> 1)
}

func (s *lcg) Seed(seed int64) { s.x = uint64(seed) }
