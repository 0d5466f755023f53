// Command churn diffuses a quantity along a ring of cells, the way code
// that does not reuse its buffers is written: every step allocates the
// next generation of cells and the fluxes afresh, keeps a copy of the new
// state made by append, and appends the step's probe value to a growing
// history. Its time is as much allocation, zeroing, copying and garbage
// collection as arithmetic.
//
// Communication pattern: the ring is cut into np blocks; each step a rank
// exchanges one boundary cell with each neighbour (two Sendrecv) and the
// ranks sum the mass with one Allreduce.
//
// Classes (cells, steps): S 2^17, 40; W 2^21, 40; A 2^23, 40; B 2^25, 40;
// C 2^27, 40 — S is W with 16 times smaller slices. Checks: the mass is
// conserved to 1e-9 relative. The checksum holds the mass and a hash of
// weighted sum of the final cells, to 12 digits (a cell's update reads
// only its neighbours, so the cells are the same at every np).
package main

import (
	"flag"
	"fmt"
	"math"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/testprogs/internal/progutil"
)

var (
	class = flag.String("class", "S", "problem class: S, W, A, B or C")
	steps = flag.Int("steps", 40, "diffusion steps")
)

var cellsOf = []int{1 << 17, 1 << 21, 1 << 23, 1 << 25, 1 << 27}

const kappa = 0.25 // diffusion number: stable below 0.5

// initial is cell g's value at the start: a few smooth bumps.
func initial(g, n int) float64 {
	x := float64(g) / float64(n)
	return 1 + math.Sin(2*math.Pi*x) + 0.5*math.Cos(6*math.Pi*x)
}

func main() {
	commlib.Main(func(c *commlib.Comm) {
		ci, err := progutil.ClassIndex(*class)
		if err != nil {
			c.Abort(err)
		}
		if *steps < 1 {
			c.Abort(fmt.Errorf("-steps %d: want at least 1", *steps))
		}
		n := cellsOf[ci]
		rank, np := c.Rank(), c.Size()
		if np > n {
			c.Abort(fmt.Errorf("np=%d: want at most %d ranks (one cell each)", np, n))
		}
		progutil.NeedMemory(c, *class, int64(n/np+2)*8*4)
		first, count := progutil.Block(n, rank, np)
		left, right := (rank+np-1)%np, (rank+1)%np
		start := commlib.Wtime()

		// cur holds the rank's cells at 1..count and a ghost at each end.
		cur := make([]float64, count+2)
		for i := 1; i <= count; i++ {
			cur[i] = initial(first+i-1, n)
		}
		mass0 := allSum(c, cur[1:count+1])
		var history []float64 // the first cell of rank 0 at each step
		var snapshot []float64
		for range *steps {
			// The ghosts: the neighbours' boundary cells.
			c.Sendrecv(cur[1:2], left, 0, cur[count+1:count+2], right, 0)
			c.Sendrecv(cur[count:count+1], right, 1, cur[0:1], left, 1)
			flux := make([]float64, count+1) // fresh each step
			for i := 0; i <= count; i++ {
				flux[i] = kappa * (cur[i+1] - cur[i])
			}
			next := make([]float64, count+2) // the next generation, fresh
			for i := 1; i <= count; i++ {
				next[i] = cur[i] + flux[i] - flux[i-1]
			}
			snapshot = append([]float64(nil), next[1:count+1]...)
			history = append(history, next[1])
			cur = next
		}
		mass := allSum(c, snapshot)
		elapsed := progutil.Elapsed(start)

		progutil.Verify(c, math.Abs(mass-mass0) <= 1e-9*math.Abs(mass0), "mass %v, want %v (conserved)", mass, mass0)
		moment := 0.0 // Σ value × (g mod 7 + 1): the cells' places matter
		for i, x := range snapshot {
			moment += x * float64((first+i)%7+1)
		}
		moments := []float64{0}
		c.Allreduce([]float64{moment}, moments, commlib.Sum)
		progutil.Printf(c, "churn class %s: %d cells, np=%d, %d steps, %d values in the history, time %.3f s\n",
			*class, n, np, *steps, len(history), elapsed)
		progutil.Checksum(c, fmt.Sprintf("mass=%s moment=%s", progutil.RoundSig(mass, 12), progutil.RoundSig(moments[0], 12)))
	})
}

// allSum is the sum over all ranks of the values.
func allSum(c *commlib.Comm, v []float64) float64 {
	local := 0.0
	for _, x := range v {
		local += x
	}
	out := []float64{0}
	c.Allreduce([]float64{local}, out, commlib.Sum)
	return out[0]
}
