// Command verdicts is a small heat-diffusion solver whose loops cover the
// loop plan's verdicts: collapsed because counted, sealed, run until a
// moment of modeled time or replayed; iterated because of what they keep,
// how they are left or what they compute.
package main

import (
	"flag"
	"math/rand"

	"github.com/predict-tools/predict/commlib"
)

var (
	n      = flag.Int("n", 1<<12, "points per rank")
	steps  = flag.Int("steps", 20, "time steps")
	budget = flag.Float64("budget", 0.01, "seconds of warm-up")
)

// smooth averages neighbours: nothing it computes is kept.
func smooth(u, v []float64) {
	for i := 1; i < len(u)-1; i++ { // want collapse:"counted" sealed
		v[i] = (u[i-1] + u[i] + u[i+1]) / 3
	}
}

// scratch sizes a buffer by a sum a loop computes: the buffer's length
// is only its cost (a soft root), so the loop stays sealed rather than
// run iteration by iteration to size an allocation.
func scratch(np int) []float64 {
	m := 0
	for i := 0; i < *n; i++ { // want collapse:"counted" sealed
		m += i % 3
	}
	return make([]float64, m/np)
}

// mergeInto merges sorted x and y: a condition of two tests, each of
// which can leave the loop for the same block, and nothing it computes
// kept: timed whole, its trips replayed. Both tests read positions that
// the comparison inside selects (an implicit flow): opaque.
func mergeInto(dst, x, y []float64) {
	i, j, k := 0, 0, 0
	for i < len(x) && j < len(y) { // want collapse:"replayed" source:"replayed" opaque:"how the opaque decision at" opaque:"how the opaque decision at"
		if y[j] < x[i] { // want opaque:"the contents of make"
			dst[k] = y[j]
			j++
		} else {
			dst[k] = x[i]
			i++
		}
		k++
	}
	k += copy(dst[k:], x[i:])
	copy(dst[k:], y[j:])
}

// firstNegative leaves early: where it stops decides what follows.
func firstNegative(ids []int) int {
	for i, id := range ids { // want iterate:"left from several places"
		if id < 0 { // want computed
			return i
		}
	}
	return -1
}

// blocks computes the counts of a block distribution, which the model
// keeps for the Allgatherv.
func blocks(total, np int) (counts, displs []int) {
	counts, displs = make([]int, np), make([]int, np)
	for r := 0; r < np; r++ { // want iterate:"effects the model keeps"
		counts[r] = total / np
		if r < total%np { // want computed
			counts[r]++
		}
		if r > 0 { // want computed
			displs[r] = displs[r-1] + counts[r-1]
		}
	}
	return counts, displs
}

// chunks counts the messages of a pipelined exchange: the count decides
// the loop after it.
func chunks(size, chunk int) int {
	k := 0
	for left := size; left > 0; left -= chunk { // want iterate:"a value it computes is used after it"
		k++
	}
	return k
}

func warmUp(u []float64) {
	end := commlib.Wtime() + *budget
	for commlib.Wtime() < end { // want collapse:"until a moment of modeled time" source:"clock"
		u[0] += 1
	}
}

func main() {
	commlib.Main(func(c *commlib.Comm) {
		rank, np := c.Rank(), c.Size()
		u, v := make([]float64, *n+2), make([]float64, *n+2) // want shape:"make([]float64, (*n + 2))" shape
		warmUp(u)
		// A random number of relaxation sweeps per rank.
		for rand.Intn(4) != 0 { // want collapse:"replayed" source:"replayed" opaque:"random numbers"
			smooth(u, v)
		}
		for s := 0; s < *steps; s++ { // want iterate:"it calls Comm.Sendrecv"
			left, right := (rank+np-1)%np, (rank+1)%np
			c.Sendrecv(u[*n:*n+1], right, 0, u[0:1], left, 0)
			c.Sendrecv(u[1:2], left, 1, u[*n+1:*n+2], right, 1)
			smooth(u, v)
			u, v = v, u
		}
		counts, displs := blocks(*n*np, np)
		all := make([]float64, *n*np) // want shape:"(*n * np)"
		c.Allgatherv(u[1:*n+1], all, counts, displs)
		for i := 0; i < chunks(len(all), 1024); i++ { // want iterate:"it calls Comm.Bcast"
			c.Bcast(all[:1024], 0)
		}
		ids := make([]int, np)
		_ = firstNegative(ids)
		_ = scratch(np)
		mergeInto(all, u[:*n/2], v[:*n/2])
	})
}
