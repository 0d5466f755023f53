// Command swarm simulates a population of particles on a periodic line of
// unit cells, in the style of an agent-based code: every step each particle
// aligns its velocity with the mean of its cell, gets a random kick, moves,
// may die and may give birth. The particles are pointers to small structs
// and every step builds the population anew — a new struct per surviving
// particle and per child, new per-cell slices grown by append, a sort of
// every cell, new message slices — so the run is dominated by small
// allocations and the garbage collector.
//
// Communication pattern: the cells are block-distributed over the ranks
// (periodic: rank 0's left neighbour is the last rank). A particle moves
// less than a cell per step, so the ones that leave a rank go to a
// neighbour: each step sends the count, the ids and the (x, v, age) values
// left and right with Sendrecv (varying sizes), then sums the population,
// births and deaths with Allreduce and checks that the population changed
// by births − deaths.
//
// A particle's fate depends only on its id, the step and its cell's
// contents (taken in id order), so the population evolves the same for
// every np; the checksum is the population and an order-independent hash
// of every particle's id, position and velocity bits.
//
// Classes (cells, particles per cell, steps): S 256, 16, 20; W 4096, 16, 40;
// A 16384, 32, 50; B 131072, 32, 100; C 1048576, 32, 100.
package main

import (
	"flag"
	"fmt"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/testprogs/internal/progutil"
)

var (
	class     = flag.String("class", "S", "problem class: S, W, A, B or C")
	stepsFlag = flag.Int("steps", 0, "time steps (0: from -class)")
	birth     = flag.Int("birth", 20, "chance of a birth per particle and step, per mille")
	death     = flag.Int("death", 20, "chance of a death per particle and step, per mille")
)

// problem holds the sizes of one class.
type problem struct {
	cells, density, steps int
}

var problems = []problem{
	{256, 16, 20},
	{4096, 16, 40},
	{16384, 32, 50},
	{131072, 32, 100},
	{1048576, 32, 100},
}

func main() {
	commlib.Main(func(c *commlib.Comm) {
		ci, err := progutil.ClassIndex(*class)
		if err != nil {
			c.Abort(err)
		}
		pr := problems[ci]
		if *stepsFlag > 0 {
			pr.steps = *stepsFlag
		}
		if *birth < 0 || *birth > 1000 || *death < 0 || *death > 1000 {
			c.Abort(fmt.Errorf("-birth %d, -death %d: want per mille values in 0..1000", *birth, *death))
		}
		np := c.Size()
		if np > pr.cells {
			c.Abort(fmt.Errorf("class %s has %d cells, fewer than np=%d", *class, pr.cells, np))
		}
		// About 64 bytes per particle and its pointer, twice (old and new population).
		progutil.NeedMemory(c, *class, int64(2*64*pr.density)*int64(pr.cells/np+1))

		w := newWorld(c, pr.cells, pr.density)
		pop := w.census(0, 0)
		start := commlib.Wtime()
		for step := 1; step <= pr.steps; step++ {
			births, deaths := w.step(uint64(step), *birth, *death)
			next := w.census(births, deaths)
			progutil.Verify(c, next.count == pop.count+next.births-next.deaths,
				"step %d: population %d, but %d + %d births − %d deaths = %d",
				step, next.count, pop.count, next.births, next.deaths, pop.count+next.births-next.deaths)
			pop = next
		}
		elapsed := progutil.Elapsed(start)

		progutil.Printf(c, "swarm class %s: %d cells, np=%d, %d steps, population %d, time %.3f s\n",
			*class, pr.cells, np, pr.steps, pop.count, elapsed)
		progutil.Checksum(c, fmt.Sprintf("population=%d hash=%016x", pop.count, pop.hash))
	})
}
