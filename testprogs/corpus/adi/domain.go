// This file defines one rank's part of the grid in both orientations, the
// Thomas algorithm, and the transposes between rows and columns.

package main

import (
	"math"

	"github.com/predict-tools/predict/commlib"
)

// domain holds a rank's nb-row block of the grid (rows[i][j] is the point
// (x_j, y_{lo+i})) and, between the transposes, its nb-column block
// (cols[j][i] is the point (x_{lo+j}, y_i)). Only the first count rows and
// columns are real; the rest pad the Alltoall blocks.
type domain struct {
	c          *commlib.Comm
	n, nb      int
	lo, count  int
	rows, cols [][]float64
	send, recv []float64
	cp, dp     []float64 // scratch of the Thomas algorithm
}

func newDomain(c *commlib.Comm, n, nb int) *domain {
	np := c.Size()
	lo := c.Rank() * nb
	d := &domain{c: c, n: n, nb: nb, lo: lo, count: min(nb, n-lo),
		send: make([]float64, np*nb*nb), recv: make([]float64, np*nb*nb),
		cp: make([]float64, n), dp: make([]float64, n)}
	d.rows = make([][]float64, nb)
	d.cols = make([][]float64, nb)
	for i := range nb {
		d.rows[i] = make([]float64, np*nb)
		d.cols[i] = make([]float64, np*nb)
	}
	return d
}

// coord returns the coordinate of grid index i (0-based interior point).
func (d *domain) coord(i int) float64 { return float64(i+1) / float64(d.n+1) }

// fill sets the rank's rows to f.
func (d *domain) fill(f func(x, y float64) float64) {
	for i := range d.count {
		y := d.coord(d.lo + i)
		for j := range d.n {
			d.rows[i][j] = f(d.coord(j), y)
		}
	}
}

// thomas solves (1+2r)v_i − r v_{i−1} − r v_{i+1} = b_i for i in 0..len(b)-1
// (v = 0 outside) in place.
func (d *domain) thomas(b []float64, r float64) {
	n := len(b)
	diag, off := 1+2*r, -r
	cp, dp := d.cp[:n], d.dp[:n]
	cp[0] = off / diag
	dp[0] = b[0] / diag
	for i := 1; i < n; i++ {
		den := diag - off*cp[i-1]
		cp[i] = off / den
		dp[i] = (b[i] - off*dp[i-1]) / den
	}
	b[n-1] = dp[n-1]
	for i := n - 2; i >= 0; i-- {
		b[i] = dp[i] - cp[i]*b[i+1]
	}
}

// solveRows does the implicit step along x on every local row.
func (d *domain) solveRows(r float64) {
	for i := range d.count {
		d.thomas(d.rows[i][:d.n], r)
	}
}

// solveCols does the implicit step along y on every local column.
func (d *domain) solveCols(r float64) {
	for j := range d.count {
		d.thomas(d.cols[j][:d.n], r)
	}
}

// transpose turns the rank's block of from (nb lines of np·nb values) into
// its block of to: block b of the send buffer holds from's values at
// positions b·nb..b·nb+nb-1, which rank b stores transposed.
func (d *domain) transpose(from, to [][]float64) {
	np, nb := d.c.Size(), d.nb
	for b := range np {
		blk := d.send[b*nb*nb : (b+1)*nb*nb]
		for i := range nb {
			copy(blk[i*nb:(i+1)*nb], from[i][b*nb:(b+1)*nb])
		}
	}
	d.c.Alltoall(d.send, d.recv)
	for b := range np {
		blk := d.recv[b*nb*nb : (b+1)*nb*nb]
		for i := range nb {
			for j := range nb {
				to[j][b*nb+i] = blk[i*nb+j]
			}
		}
	}
}

// maxError returns the largest |u − f| over the whole grid, on every rank.
func (d *domain) maxError(f func(x, y float64) float64) float64 {
	worst := []float64{0}
	for i := range d.count {
		y := d.coord(d.lo + i)
		for j := range d.n {
			worst[0] = max(worst[0], math.Abs(d.rows[i][j]-f(d.coord(j), y)))
		}
	}
	all := make([]float64, 1)
	d.c.Allreduce(worst, all, commlib.Max)
	return all[0]
}

// gather collects the grid on rank 0, row by row.
func (d *domain) gather() []float64 {
	np := d.c.Size()
	local := make([]float64, 0, d.count*d.n)
	for i := range d.count {
		local = append(local, d.rows[i][:d.n]...)
	}
	var all []float64
	counts := make([]int, np)
	displs := make([]int, np)
	if d.c.Rank() == 0 {
		all = make([]float64, d.n*d.n)
		for r := range np {
			displs[r] = r * d.nb * d.n
			counts[r] = min(d.nb, d.n-r*d.nb) * d.n
		}
	}
	d.c.Gatherv(local, all, counts, displs, 0)
	return all
}
