// This file defines the 5-point Jacobi sweep on a block with a one-point
// halo, the problem's source term and boundary values, and the sequential
// reference run.

package main

import (
	"math"
)

// topBoundary is u on the grid's first row (global row 0); the other three
// sides are held at zero.
const topBoundary = 1.0

// grid is a block of rows×cols points stored row-major with a one-point halo:
// point (i, j), 1 ≤ i ≤ rows, 1 ≤ j ≤ cols, is at i*(cols+2)+j.
type grid struct {
	rows, cols int
	u          []float64
}

func newGrid(rows, cols int) grid {
	return grid{rows: rows, cols: cols, u: make([]float64, (rows+2)*(cols+2))}
}

func (g grid) width() int { return g.cols + 2 }

// row returns the points 1..cols of row i (i may be a halo row, 0 or rows+1).
func (g grid) row(i int) []float64 {
	w := g.width()
	return g.u[i*w+1 : i*w+1+g.cols]
}

// fillSource sets src to h²·f at every point of a block whose point (1, 1)
// is global point (firstRow+1, firstCol+1), for f(x, y) = 2π² sin(πx) sin(πy)
// on the N×N interior of the unit square. The value depends only on the
// global indices, so every decomposition computes the same bits.
func fillSource(src grid, firstRow, firstCol, n int) {
	h := 1 / float64(n+1)
	w := src.width()
	for i := 0; i < src.rows+2; i++ {
		y := float64(firstRow+i) * h
		for j := 0; j < w; j++ {
			x := float64(firstCol+j) * h
			src.u[i*w+j] = h * h * 2 * math.Pi * math.Pi * math.Sin(math.Pi*x) * math.Sin(math.Pi*y)
		}
	}
}

// sweep does one Jacobi update of the block's points from u into next and
// returns the sum of the squared changes.
func sweep(u, next, src grid) float64 {
	w := u.width()
	var residual float64
	for i := 1; i <= u.rows; i++ {
		for j := 1; j <= u.cols; j++ {
			k := i*w + j
			v := 0.25 * (u.u[k-w] + u.u[k+w] + u.u[k-1] + u.u[k+1] + src.u[k])
			d := v - u.u[k]
			residual += d * d
			next.u[k] = v
		}
	}
	return residual
}

// sequential runs iters Jacobi iterations on the whole N×N grid and returns
// its points row by row: the reference the distributed run must match bit
// for bit.
func sequential(n, iters int) []float64 {
	u, next, src := newGrid(n, n), newGrid(n, n), newGrid(n, n)
	fillSource(src, 0, 0, n)
	for j := range u.row(0) {
		u.row(0)[j], next.row(0)[j] = topBoundary, topBoundary
	}
	for range iters {
		sweep(u, next, src)
		u, next = next, u
	}
	out := make([]float64, 0, n*n)
	for i := 1; i <= n; i++ {
		out = append(out, u.row(i)...)
	}
	return out
}
