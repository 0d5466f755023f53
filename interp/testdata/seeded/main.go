// Seeded broadcasts batches whose lengths and roots it draws from
// generators seeded by a constant (the same on every rank), as programs
// that build a random matrix or graph from a seed do. Between the draws
// that decide the communication are draws whose values only fill data:
// the model must make them too (each moves the generator on), call for
// call, to draw the same lengths. The root is the owner of a drawn
// column, found by a binary search of the ranks' first columns, so the
// communication depends on np.
package main

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/predict-tools/predict/commlib"
)

// columns is the number of columns the ranks share in blocks.
const columns = 1000

func main() {
	commlib.Main(func(c *commlib.Comm) {
		np := c.Size()
		starts := make([]int, np+1) // rank r's first column; starts[np] = columns
		for r := range np + 1 {
			starts[r] = r * columns / np
		}
		rng := rand.New(rand.NewPCG(7, 11))
		var fill []float64
		sum := 0.0
		for step := range 4 {
			fill = append(fill, rng.Float64(), rng.NormFloat64()) // data only
			n := 1 + rng.IntN(40)
			if slices.Contains([]int{0, 3}, n%5) {
				n += 100
			}
			col := rng.IntN(columns)
			root := sort.SearchInts(starts, col+1) - 1
			batch := make([]float64, n)
			batch[0] = float64(step)
			c.Bcast(batch, root) // n·8 bytes from the owner of col
			sum += batch[0]
		}
		if sum != 6 || len(fill) != 8 {
			c.Abort(fmt.Errorf("rank %d: sum %v, %d values", c.Rank(), sum, len(fill)))
		}
	})
}
