// Command lu solves Laplace's equation on the unit square with symmetric
// successive over-relaxation (SSOR), the LU-SSOR scheme of the NAS Parallel
// Benchmarks' LU in two dimensions: each iteration is a forward
// Gauss-Seidel sweep (rows top to bottom, columns left to right) followed
// by a backward one (bottom to top, right to left), both over-relaxed by
// -omega. The boundary values are those of the harmonic function x² − y²,
// which the 5-point scheme reproduces exactly, so the iterates converge to
// it.
//
// Communication pattern: the rows are block-distributed over the ranks,
// which form a pipeline. In the forward sweep a rank takes the columns in
// chunks of -block: it receives the updated last row of the rank above for
// the chunk (Recv), updates its rows there, and sends its own last row's
// chunk to the rank below (Send); the backward sweep runs the same pipeline
// upwards, right to left. Each iteration ends with a halo exchange
// (Sendrecv) and an Allreduce of the squared residual. The solution is
// gathered on rank 0 with Gatherv.
//
// Classes (n×n unknowns, iterations): S 128², 20; W 512², 70; A 4096², 100;
// B 8192², 200; C 16384², 250. The pipeline updates every point from the
// same values, in the same order, as a sequential sweep, so the solution is
// the same bit for bit for every np (the checksum is its FNV-64a hash);
// class S checks it against a sequential run, and every class checks that
// the residual fell.
package main

import (
	"flag"
	"fmt"
	"math"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/testprogs/internal/progutil"
)

var (
	class  = flag.String("class", "S", "problem class: S, W, A, B or C")
	omega  = flag.Float64("omega", 1.6, "over-relaxation factor, in (0, 2)")
	block  = flag.Int("block", 32, "columns per pipeline stage")
	nIters = flag.Int("iters", 0, "SSOR iterations (0: from -class)")
)

var (
	classN     = []int{128, 512, 4096, 8192, 16384}
	classIters = []int{20, 70, 100, 200, 250}
)

func main() {
	commlib.Main(func(c *commlib.Comm) {
		ci, err := progutil.ClassIndex(*class)
		if err != nil {
			c.Abort(err)
		}
		if *omega <= 0 || *omega >= 2 {
			c.Abort(fmt.Errorf("-omega %g: SSOR converges for 0 < omega < 2", *omega))
		}
		if *block < 1 {
			c.Abort(fmt.Errorf("-block %d: want at least 1 column", *block))
		}
		n := classN[ci]
		iters := classIters[ci]
		if *nIters > 0 {
			iters = *nIters
		}
		rank, np := c.Rank(), c.Size()
		if np > n {
			c.Abort(fmt.Errorf("class %s has %d rows, fewer than np=%d", *class, n, np))
		}
		progutil.NeedMemory(c, *class, int64(8*(n+2))*int64(n/np+3)+int64(8*n*n/np))

		first, count := progutil.Block(n, rank, np)
		g := newGrid(c, n, first, count)
		start := commlib.Wtime()
		initial := g.residual()
		res := initial
		for it := 1; it <= iters; it++ {
			g.forward(*omega, *block)
			g.backward(*omega, *block)
			res = g.residual()
			if it == 1 || it == iters || it%10 == 0 {
				progutil.Printf(c, "  iteration %3d: residual %s\n", it, progutil.RoundSig(res, 6))
			}
		}
		elapsed := progutil.Elapsed(start)
		solution := g.gather()
		if rank != 0 {
			return
		}
		progutil.Printf(c, "lu class %s: n=%d, np=%d, %d iterations, block %d, time %.3f s\n", *class, n, np, iters, *block, elapsed)
		progutil.Verify(c, res < initial, "the residual grew from %g to %g", initial, res)
		if ci == 0 {
			ref := sequential(n, iters, *omega)
			for i := range ref {
				if math.Float64bits(ref[i]) != math.Float64bits(solution[i]) {
					progutil.Verify(c, false, "point (%d, %d): pipelined %v, sequential %v", i/n+1, i%n+1, solution[i], ref[i])
				}
			}
			progutil.Printf(c, "solution matches the sequential sweeps bit for bit\n")
		}
		progutil.Printf(c, "residual fell from %s to %s\n", progutil.RoundSig(initial, 6), progutil.RoundSig(res, 6))
		progutil.Checksum(c, fmt.Sprintf("iters=%d fnv=%016x", iters, progutil.HashFloats(solution)))
	})
}

// boundary is the exact solution x² − y², used for the boundary values.
func boundary(x, y float64) float64 { return x*x - y*y }
