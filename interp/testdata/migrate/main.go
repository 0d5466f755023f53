// Command migrate: each rank handles the items that came from its
// neighbours, a number drawn at random, and none at np = 1, where a rank
// has no neighbour; the loop over them has an opaque bound, its trips are
// replayed.
package main

import (
	"math/rand"

	"github.com/predict-tools/predict/commlib"
)

func main() {
	commlib.Main(func(c *commlib.Comm) {
		arrived := 0
		if c.Size() > 1 {
			arrived = 1 + rand.Intn(4)
		}
		s := 0.0
		for i := 0; i < arrived; i++ { // mark:loop
			s += rand.Float64()
		}
		c.Barrier()
	})
}
