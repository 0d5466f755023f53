// This file defines one rank's rows of the grid and the pipelined SSOR
// sweeps over them, plus the sequential sweeps class S is checked against.

package main

import (
	"math"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/testprogs/internal/progutil"
)

const (
	tagDown = 1 // forward sweep: rows flow to the rank below
	tagUp   = 2 // backward sweep: rows flow to the rank above
	tagHalo = 3
)

// grid holds a rank's rows. u[k][j] for k in 1..count is global row
// first+k-1 (rows 1..n of the grid, row 0 and n+1 being the boundary), for
// columns 0..n+1; u[0] and u[count+1] are the neighbours' rows or the
// boundary.
type grid struct {
	c            *commlib.Comm
	n            int
	first, count int
	u            [][]float64
	up, down     int // neighbour ranks, ProcNull at the ends
	one, sum     []float64
}

func newGrid(c *commlib.Comm, n, first, count int) *grid {
	g := &grid{c: c, n: n, first: first, count: count, up: c.Rank() - 1, down: c.Rank() + 1,
		one: make([]float64, 1), sum: make([]float64, 1)}
	if g.up < 0 {
		g.up = commlib.ProcNull
	}
	if g.down >= c.Size() {
		g.down = commlib.ProcNull
	}
	g.u = make([][]float64, count+2)
	h := 1 / float64(n+1)
	for k := range g.u {
		row := make([]float64, n+2)
		i := first + k // global row of u[k]
		if i == 0 || i == n+1 {
			for j := range row {
				row[j] = boundary(float64(j)*h, float64(i)*h)
			}
		} else {
			row[0] = boundary(0, float64(i)*h)
			row[n+1] = boundary(1, float64(i)*h)
		}
		g.u[k] = row
	}
	// The first forward sweep reads the old values of the row below.
	g.c.Sendrecv(g.u[1], g.up, tagHalo, g.u[count+1], g.down, tagHalo)
	return g
}

// relax updates one point from its four neighbours.
func relax(u [][]float64, k, j int, omega float64) {
	gs := 0.25 * (u[k-1][j] + u[k+1][j] + u[k][j-1] + u[k][j+1])
	u[k][j] += omega * (gs - u[k][j])
}

// forward is the lower-triangular sweep, pipelined down the ranks.
func (g *grid) forward(omega float64, block int) {
	u := g.u
	for j0 := 1; j0 <= g.n; j0 += block {
		j1 := min(j0+block, g.n+1)
		g.c.Recv(u[0][j0:j1], g.up, tagDown)
		for k := 1; k <= g.count; k++ {
			for j := j0; j < j1; j++ {
				relax(u, k, j, omega)
			}
		}
		g.c.Send(u[g.count][j0:j1], g.down, tagDown)
	}
}

// backward is the upper-triangular sweep, pipelined up the ranks.
func (g *grid) backward(omega float64, block int) {
	u := g.u
	for j1 := g.n + 1; j1 > 1; j1 -= block {
		j0 := max(j1-block, 1)
		g.c.Recv(u[g.count+1][j0:j1], g.down, tagUp)
		for k := g.count; k >= 1; k-- {
			for j := j1 - 1; j >= j0; j-- {
				relax(u, k, j, omega)
			}
		}
		g.c.Send(u[1][j0:j1], g.up, tagUp)
	}
}

// residual refreshes the upper halo (the backward sweep left the rank
// above's old last row there) and returns the global 2-norm of the
// residual of the 5-point equations.
func (g *grid) residual() float64 {
	g.c.Sendrecv(g.u[g.count], g.down, tagHalo, g.u[0], g.up, tagHalo)
	sum := 0.0
	for k := 1; k <= g.count; k++ {
		row, above, below := g.u[k], g.u[k-1], g.u[k+1]
		for j := 1; j <= g.n; j++ {
			r := above[j] + below[j] + row[j-1] + row[j+1] - 4*row[j]
			sum += r * r
		}
	}
	g.one[0] = sum
	g.c.Allreduce(g.one, g.sum, commlib.Sum)
	return math.Sqrt(g.sum[0])
}

// gather collects the interior points on rank 0, row by row.
func (g *grid) gather() []float64 {
	np := g.c.Size()
	local := make([]float64, 0, g.count*g.n)
	for k := 1; k <= g.count; k++ {
		local = append(local, g.u[k][1:g.n+1]...)
	}
	var all []float64
	counts := make([]int, np)
	displs := make([]int, np)
	if g.c.Rank() == 0 {
		all = make([]float64, g.n*g.n)
		for r := range np {
			first, count := progutil.Block(g.n, r, np)
			counts[r], displs[r] = count*g.n, first*g.n
		}
	}
	g.c.Gatherv(local, all, counts, displs, 0)
	return all
}

// sequential runs the same SSOR iterations on the whole grid in one piece
// and returns the interior points.
func sequential(n, iters int, omega float64) []float64 {
	h := 1 / float64(n+1)
	u := make([][]float64, n+2)
	for i := range u {
		u[i] = make([]float64, n+2)
		for j := range u[i] {
			if i == 0 || i == n+1 || j == 0 || j == n+1 {
				u[i][j] = boundary(float64(j)*h, float64(i)*h)
			}
		}
	}
	for range iters {
		for i := 1; i <= n; i++ {
			for j := 1; j <= n; j++ {
				relax(u, i, j, omega)
			}
		}
		for i := n; i >= 1; i-- {
			for j := n; j >= 1; j-- {
				relax(u, i, j, omega)
			}
		}
	}
	out := make([]float64, 0, n*n)
	for i := 1; i <= n; i++ {
		out = append(out, u[i][1:n+1]...)
	}
	return out
}
