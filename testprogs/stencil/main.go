// Command stencil solves the 1-D Poisson/heat problem -u” = f on n interior
// points with fixed boundary values u(0) = 1, u(n+1) = 0 by Jacobi
// iteration, starting from zero.
//
// Communication pattern: the points are block-distributed over the ranks
// (the first n%np ranks get one point more). Every iteration each rank
// exchanges one halo value with its left and right neighbours by Sendrecv
// (ProcNull at the ends), updates its points, and sums the squared changes
// over all ranks with Allreduce. With -converge the loop stops when that
// residual drops below -tol, so the trip count depends on the data.
// At the end the solution is gathered on rank 0 with Gatherv.
//
// Classes (n, iterations): S 2^16, 100; W 2^20, 200; A 2^24, 500;
// B 2^28, 1000; C 2^32, 2000. For S and W rank 0 checks the gathered solution
// bit for bit against a sequential run. Jacobi updates do not depend on the
// decomposition, so the checksum (iteration count and FNV-64a of the
// solution's bits) is the same for every np.
package main

import (
	"flag"
	"fmt"
	"math"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/testprogs/internal/progutil"
)

var (
	class    = flag.String("class", "S", "problem class: S, W, A, B or C")
	itersArg = flag.Int("iters", 0, "iterations (0: from -class); with -converge, the most iterations")
	converge = flag.Bool("converge", false, "stop when the residual drops below -tol")
	tol      = flag.Float64("tol", 1e-5, "residual (sum of squared changes) at which -converge stops")
)

var (
	classN     = []int{1 << 16, 1 << 20, 1 << 24, 1 << 28, 1 << 32}
	classIters = []int{100, 200, 500, 1000, 2000}
)

// referenceClasses is the number of classes (from S) checked against a sequential run.
const referenceClasses = 2

// convergeFactor multiplies the class's iteration count to give the limit of a -converge run.
const convergeFactor = 20

const (
	tagToLeft  = 1
	tagToRight = 2
)

func main() {
	commlib.Main(func(c *commlib.Comm) {
		ci, err := progutil.ClassIndex(*class)
		if err != nil {
			c.Abort(err)
		}
		n := classN[ci]
		maxIters := classIters[ci]
		if *converge {
			maxIters *= convergeFactor
		}
		if *itersArg > 0 {
			maxIters = *itersArg
		}
		rank, np := c.Rank(), c.Size()
		if np > n {
			c.Abort(fmt.Errorf("class %s has %d points, fewer than np=%d", *class, n, np))
		}
		perRank := int64(3*8) * int64(n/np+3) // u, next, src
		perRank += int64(8) * int64(n/np+1)   // rank 0's gathered solution, spread over the ranks
		if ci < referenceClasses {
			perRank += int64(3*8) * int64(n/np+1) // rank 0's sequential reference
		}
		progutil.NeedMemory(c, *class, perRank)

		first, count := progutil.Block(n, rank, np)
		left, right := rank-1, rank+1
		if left < 0 {
			left = commlib.ProcNull
		}
		if right >= np {
			right = commlib.ProcNull
		}

		// Local points are u[1..count]; u[0] and u[count+1] hold the
		// neighbours' values or the boundary values.
		u := make([]float64, count+2)
		next := make([]float64, count+2)
		src := make([]float64, count+2)
		fillSource(src, first, n)
		if left == commlib.ProcNull {
			u[0], next[0] = leftBoundary, leftBoundary
		}
		if right == commlib.ProcNull {
			u[count+1], next[count+1] = rightBoundary, rightBoundary
		}

		local := make([]float64, 1)
		global := make([]float64, 1)
		start := commlib.Wtime()
		iters := 0
		for iters < maxIters {
			c.Sendrecv(u[1:2], left, tagToLeft, u[count+1:count+2], right, tagToLeft)
			c.Sendrecv(u[count:count+1], right, tagToRight, u[0:1], left, tagToRight)
			local[0] = sweep(u, next, src)
			c.Allreduce(local, global, commlib.Sum)
			u, next = next, u
			iters++
			if *converge && global[0] < *tol {
				break
			}
		}
		elapsed := progutil.Elapsed(start)

		var solution []float64
		counts := make([]int, np)
		displs := make([]int, np)
		if rank == 0 {
			solution = make([]float64, n)
			for r := range np {
				displs[r], counts[r] = progutil.Block(n, r, np)
			}
		}
		c.Gatherv(u[1:count+1], solution, counts, displs, 0)

		if rank != 0 {
			return
		}
		progutil.Printf(c, "stencil class %s: n=%d, np=%d, %d iterations, time %.3f s\n", *class, n, np, iters, elapsed)
		progutil.Printf(c, "residual: %s\n", progutil.RoundSig(global[0], 8))
		if *converge && global[0] >= *tol {
			progutil.Printf(c, "not converged to %g after %d iterations\n", *tol, iters)
		}
		if ci < referenceClasses {
			ref := sequential(n, iters)
			for i := range ref {
				if math.Float64bits(ref[i]) != math.Float64bits(solution[i]) {
					progutil.Verify(c, false, "point %d: distributed %v, sequential %v", i+1, solution[i], ref[i])
				}
			}
			progutil.Printf(c, "solution matches the sequential run bit for bit\n")
		}
		progutil.Checksum(c, fmt.Sprintf("iters=%d fnv=%016x", iters, progutil.HashFloats(solution)))
	})
}
