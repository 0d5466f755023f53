// Seeded draws its decisions from generators: one made from a seed (its
// draws are computed, call for call), one that Shuffle has moved with a
// function of the program's (its later draws are random numbers), and the
// package's global generator (random numbers).
package main

import (
	"math/rand/v2"

	"github.com/predict-tools/predict/commlib"
)

func main() {
	commlib.Main(func(c *commlib.Comm) {
		rng := rand.New(rand.NewPCG(1, uint64(c.Rank())))
		if rng.Float64() < 0.5 { // want computed
			c.Barrier()
		}
		for range rng.IntN(8) { // want iterate:"it calls Comm.Barrier" trips:"1 + max(0, t8 - 1)"
			c.Barrier()
		}
		moved := rand.New(rand.NewChaCha8([32]byte{1}))
		xs := []int{1, 2, 3}
		moved.Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
		if moved.IntN(2) == 0 { // want opaque:"random numbers ((*math/rand/v2.Rand).Shuffle at"
			c.Barrier()
		}
		if rand.IntN(2) == 0 { // want opaque:"random numbers (math/rand/v2.IntN at"
			c.Barrier()
		}
	})
}
