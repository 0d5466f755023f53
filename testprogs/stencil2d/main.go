// Command stencil2d solves the 2-D Poisson problem -Δu = f on an N×N grid
// (u = 1 on the top side, 0 on the others, starting from zero) by 5-point
// Jacobi iteration.
//
// Communication pattern: the grid is split into blocks over a 2-D Cartesian
// communicator (DimsCreate, CartCreate, Shift; uneven divisions handled).
// Every iteration each rank exchanges its edge rows and columns with its four
// neighbours by Irecv/Isend and Waitall (columns packed into contiguous
// buffers), updates its block, and every -k iterations (and at the last) sums
// the squared changes over all ranks with Allreduce. At the end the blocks
// are gathered on rank 0 with Gatherv.
//
// Classes (N, iterations): S 128, 100; W 512, 200; A 2048, 500; B 8192, 1000;
// C 32768, 2000. For S and W rank 0 checks the gathered grid bit for bit
// against a sequential run. Jacobi updates do not depend on the
// decomposition, so the checksum (iteration count and FNV-64a of the grid's
// bits) is the same for every np.
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
	itersArg = flag.Int("iters", 0, "iterations (0: from -class)")
	every    = flag.Int("k", 10, "reduce the residual every k iterations")
)

var (
	classN     = []int{128, 512, 2048, 8192, 32768}
	classIters = []int{100, 200, 500, 1000, 2000}
)

// referenceClasses is the number of classes (from S) checked against a sequential run.
const referenceClasses = 2

// Tags name the direction a halo travels in.
const (
	tagUp = iota + 1
	tagDown
	tagLeft
	tagRight
)

func main() {
	commlib.Main(func(c *commlib.Comm) {
		ci, err := progutil.ClassIndex(*class)
		if err != nil {
			c.Abort(err)
		}
		if *every < 1 {
			c.Abort(fmt.Errorf("-k %d: want at least 1", *every))
		}
		n := classN[ci]
		iters := classIters[ci]
		if *itersArg > 0 {
			iters = *itersArg
		}
		np := c.Size()
		points := int64(n) * int64(n)
		perRank := 3 * 8 * (points/int64(np) + 4*int64(n)) // u, next, src with halos
		perRank += 2 * 8 * points / int64(np)              // rank 0's gathered blocks and grid, spread over the ranks
		if ci < referenceClasses {
			perRank += 3 * 8 * (points/int64(np) + int64(n)) // rank 0's sequential reference
		}
		progutil.NeedMemory(c, *class, perRank)

		dims := commlib.DimsCreate(np, []int{0, 0})
		if dims[0] > n || dims[1] > n {
			c.Abort(fmt.Errorf("class %s: a %d×%d grid cannot be split over %d×%d ranks", *class, n, n, dims[0], dims[1]))
		}
		cart := c.CartCreate(dims, []bool{false, false})
		if cart == nil {
			return // not in the grid (cannot happen: the grid holds all np ranks)
		}
		coords := cart.Coords(cart.Rank())
		firstRow, rows := progutil.Block(n, coords[0], dims[0])
		firstCol, cols := progutil.Block(n, coords[1], dims[1])
		up, down := cart.Shift(0, 1)
		left, right := cart.Shift(1, 1)

		u, next, src := newGrid(rows, cols), newGrid(rows, cols), newGrid(rows, cols)
		fillSource(src, firstRow, firstCol, n)
		if up == commlib.ProcNull {
			for j := range cols {
				u.row(0)[j], next.row(0)[j] = topBoundary, topBoundary
			}
		}
		sendLeft, sendRight := make([]float64, rows), make([]float64, rows)
		recvLeft, recvRight := make([]float64, rows), make([]float64, rows)

		local := make([]float64, 1)
		global := make([]float64, 1)
		start := commlib.Wtime()
		for it := 1; it <= iters; it++ {
			w := u.width()
			for i := 1; i <= rows; i++ {
				sendLeft[i-1] = u.u[i*w+1]
				sendRight[i-1] = u.u[i*w+cols]
			}
			reqs := []*commlib.Request{
				cart.Irecv(u.row(0), up, tagDown),
				cart.Irecv(u.row(rows+1), down, tagUp),
				cart.Irecv(recvLeft, left, tagRight),
				cart.Irecv(recvRight, right, tagLeft),
				cart.Isend(u.row(1), up, tagUp),
				cart.Isend(u.row(rows), down, tagDown),
				cart.Isend(sendLeft, left, tagLeft),
				cart.Isend(sendRight, right, tagRight),
			}
			cart.Waitall(reqs)
			if left != commlib.ProcNull {
				for i := 1; i <= rows; i++ {
					u.u[i*w] = recvLeft[i-1]
				}
			}
			if right != commlib.ProcNull {
				for i := 1; i <= rows; i++ {
					u.u[i*w+cols+1] = recvRight[i-1]
				}
			}
			local[0] = sweep(u, next, src)
			u, next = next, u
			if it%*every == 0 || it == iters {
				cart.Allreduce(local, global, commlib.Sum)
			}
		}
		elapsed := progutil.Elapsed(start)

		solution := gather(cart, u, dims, n)
		if cart.Rank() != 0 {
			return
		}
		progutil.Printf(cart, "stencil2d class %s: %d×%d grid, np=%d as %d×%d, %d iterations, time %.3f s\n",
			*class, n, n, np, dims[0], dims[1], iters, elapsed)
		progutil.Printf(cart, "residual: %s\n", progutil.RoundSig(global[0], 8))
		if ci < referenceClasses {
			ref := sequential(n, iters)
			for k := range ref {
				if math.Float64bits(ref[k]) != math.Float64bits(solution[k]) {
					progutil.Verify(cart, false, "point (%d, %d): distributed %v, sequential %v",
						k/n+1, k%n+1, solution[k], ref[k])
				}
			}
			progutil.Printf(cart, "grid matches the sequential run bit for bit\n")
		}
		progutil.Checksum(cart, fmt.Sprintf("iters=%d fnv=%016x", iters, progutil.HashFloats(solution)))
	})
}

// gather collects every rank's block on rank 0 of cart with Gatherv and
// returns the whole N×N grid row by row there (nil elsewhere).
func gather(cart *commlib.Comm, u grid, dims []int, n int) []float64 {
	packed := make([]float64, 0, u.rows*u.cols)
	for i := 1; i <= u.rows; i++ {
		packed = append(packed, u.row(i)...)
	}
	np := cart.Size()
	var all []float64
	counts := make([]int, np)
	displs := make([]int, np)
	if cart.Rank() == 0 {
		all = make([]float64, n*n)
		offset := 0
		for r := range np {
			coords := cart.Coords(r)
			_, rows := progutil.Block(n, coords[0], dims[0])
			_, cols := progutil.Block(n, coords[1], dims[1])
			counts[r], displs[r] = rows*cols, offset
			offset += rows * cols
		}
	}
	cart.Gatherv(packed, all, counts, displs, 0)
	if cart.Rank() != 0 {
		return nil
	}
	grid := make([]float64, n*n)
	for r := range np {
		coords := cart.Coords(r)
		firstRow, rows := progutil.Block(n, coords[0], dims[0])
		firstCol, cols := progutil.Block(n, coords[1], dims[1])
		for i := range rows {
			copy(grid[(firstRow+i)*n+firstCol:], all[displs[r]+i*cols:displs[r]+(i+1)*cols])
		}
	}
	return grid
}
