// Command cellcheck runs Conway's Game of Life with cell ages on a torus
// and checks every cell update: per cell a neighbour count (short calls
// with a wrap-around branch), the rule, and a validity check whose failure
// aborts the run. The work per cell is tiny and made of calls and branches.
//
// Communication pattern: the rows are block-distributed on a ring of ranks.
// Every step each rank exchanges its first and last rows with the ranks
// above and below (two Sendrecv), updates its rows, and the ranks sum the
// live cells with Allreduce. At the end the row hashes are summed.
//
// Classes (width × height, steps): S 128 × 128, 40; W 384 × 384, 60;
// A 2048 × 2048, 200; B 8192 × 8192, 500; C 32768 × 32768, 1000. Checks:
// every cell's update (checkCell, Abort on failure); for S and W rank 0
// runs the whole torus sequentially and compares the population after
// every step and the final row hash. The checksum (exact) holds the final
// population, a hash of the population history and the row hash.
package main

import (
	"flag"
	"fmt"
	"hash/fnv"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/testprogs/internal/progutil"
)

var (
	class   = flag.String("class", "S", "problem class: S, W, A, B or C")
	steps   = flag.Int("steps", 0, "generations (0: from -class)")
	density = flag.Float64("density", 0.3, "fraction of cells alive at the start")
)

type problem struct{ width, height, steps int }

var problems = []problem{{128, 128, 40}, {384, 384, 60}, {2048, 2048, 200}, {8192, 8192, 500}, {32768, 32768, 1000}}

const (
	referenceClasses = 2
	seed             = 0xce11
	tagUp            = 1
	tagDown          = 2
)

func main() {
	commlib.Main(func(c *commlib.Comm) {
		ci, err := progutil.ClassIndex(*class)
		if err != nil {
			c.Abort(err)
		}
		pr := problems[ci]
		if *steps > 0 {
			pr.steps = *steps
		}
		rank, np := c.Rank(), c.Size()
		if np > pr.height {
			c.Abort(fmt.Errorf("class %s has %d rows, fewer than np=%d", *class, pr.height, np))
		}
		progutil.NeedMemory(c, *class, 2*int64(pr.height/np+3)*int64(pr.width))
		first, rows := progutil.Block(pr.height, rank, np)
		up, down := (rank+np-1)%np, (rank+1)%np

		cur, next := newBlock(pr.width, rows, first), newBlock(pr.width, rows, first)
		cur.seed(seed, *density)
		invalid := func(r, j int, err error) {
			c.Abort(fmt.Errorf("cell (%d, %d): %w", first+r-1, j, err))
		}

		start := commlib.Wtime()
		history := make([]int64, 0, pr.steps)
		live := []int64{0}
		for range pr.steps {
			c.Sendrecv(cur.row(1), up, tagUp, cur.row(rows+1), down, tagUp)
			c.Sendrecv(cur.row(rows), down, tagDown, cur.row(0), up, tagDown)
			n := cur.step(next, invalid)
			c.Allreduce([]int64{n}, live, commlib.Sum)
			history = append(history, live[0])
			cur, next = next, cur
		}
		hashes := []uint64{0}
		c.Allreduce([]uint64{cur.rowHashes()}, hashes, commlib.Sum)
		elapsed := progutil.Elapsed(start)

		progutil.Printf(c, "cellcheck class %s: %d × %d, np=%d, %d steps, %d cells alive at the end, time %.3f s\n",
			*class, pr.width, pr.height, np, pr.steps, live[0], elapsed)
		if ci < referenceClasses && rank == 0 {
			refHash, refPop := sequential(pr.width, pr.height, pr.steps, seed, *density)
			for s := range refPop {
				progutil.Verify(c, refPop[s] == history[s], "step %d: %d cells alive, sequential %d", s, history[s], refPop[s])
			}
			progutil.Verify(c, refHash == hashes[0], "row hash %016x, sequential %016x", hashes[0], refHash)
			progutil.Printf(c, "every step matches the sequential run\n")
		}
		h := fnv.New64a()
		for _, p := range history {
			fmt.Fprintf(h, "%d,", p)
		}
		progutil.Checksum(c, fmt.Sprintf("live=%d history=%016x rows=%016x", live[0], h.Sum64(), hashes[0]))
	})
}
