// Seeded draws its decisions from generators: one made from a seed (its
// draws are computed, call for call), one that Shuffle has moved with a
// function of the program's (its later draws are random numbers), the
// package's global generator (random numbers), and generators that escape
// where the model cannot follow their calls (random numbers): through an
// interface, a method value, a callback of sort.Slice, a copy by value.
package main

import (
	"math/rand/v2"
	"sort"

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
		var d drawer = rand.New(rand.NewPCG(2, 3))
		if d.Float64() < 0.5 { // want opaque:"random numbers (a generator that escapes"
			c.Barrier()
		}
		bound := rand.New(rand.NewPCG(4, 5))
		draw := bound.Float64
		_ = draw()
		if bound.IntN(2) == 0 { // want opaque:"random numbers (a generator that escapes"
			c.Barrier()
		}
		cb := rand.New(rand.NewPCG(6, 7))
		ys := []int{3, 1, 2}
		sort.Slice(ys, func(i, j int) bool { return cb.IntN(2) == 0 })
		if cb.IntN(2) == 0 { // want opaque:"random numbers (a generator that escapes"
			c.Barrier()
		}
		src := rand.NewPCG(8, 9)
		saved := *src
		_ = src.Uint64()
		*src = saved
		if src.Uint64()%2 == 0 { // want opaque:"random numbers (a generator that escapes"
			c.Barrier()
		}
	})
}

// drawer is an interface of the program's own that a generator satisfies.
type drawer interface{ Float64() float64 }
