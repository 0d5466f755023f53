// This file defines the random sparse matrix: its rows, generated from a
// seed and the row's global index alone, so that every decomposition builds
// the same matrix, and the sequential power iteration that checks the
// distributed one.

package main

import (
	"math"
	"math/rand/v2"
	"slices"
)

// csr is a block of rows in compressed sparse row form. The column indices
// are global until localize rewrites them.
type csr struct {
	rowPtr []int
	col    []int
	val    []float64
}

// graph describes the random graph behind the matrix: every row has between
// minDeg and maxDeg entries; a fraction near of them fall within window of
// the diagonal, the rest anywhere.
type graph struct {
	n              int
	minDeg, maxDeg int
	near           float64
	window         int
	seed           uint64
}

// row appends the entries of global row i to cols and vals and returns them.
// Duplicate columns are merged by keeping the first.
func (g graph) row(i int, cols []int, vals []float64) ([]int, []float64) {
	rng := rand.New(rand.NewPCG(g.seed, uint64(i)))
	deg := g.minDeg + rng.IntN(g.maxDeg-g.minDeg+1)
	start := len(cols)
	// the diagonal keeps the matrix's dominant eigenvalue well separated
	cols = append(cols, i)
	vals = append(vals, 2)
	for range deg {
		var j int
		if rng.Float64() < g.near {
			j = i + rng.IntN(2*g.window+1) - g.window
			j = (j%g.n + g.n) % g.n
		} else {
			j = rng.IntN(g.n)
		}
		if slices.Contains(cols[start:], j) {
			continue
		}
		cols = append(cols, j)
		vals = append(vals, 0.25+rng.Float64())
	}
	return cols, vals
}

// rows builds rows [first, first+count).
func (g graph) rows(first, count int) *csr {
	m := &csr{rowPtr: make([]int, 1, count+1)}
	for i := first; i < first+count; i++ {
		m.col, m.val = g.row(i, m.col, m.val)
		m.rowPtr = append(m.rowPtr, len(m.col))
	}
	return m
}

// mul sets y = A·x, where the column indices of A index x.
func (m *csr) mul(x, y []float64) {
	for i := range len(m.rowPtr) - 1 {
		var s float64
		for k := m.rowPtr[i]; k < m.rowPtr[i+1]; k++ {
			s += m.val[k] * x[m.col[k]]
		}
		y[i] = s
	}
}

// rowSumBounds returns the smallest and largest row sums: for a nonnegative
// matrix the dominant eigenvalue lies between them (Perron–Frobenius).
func (m *csr) rowSumBounds() (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for i := range len(m.rowPtr) - 1 {
		var s float64
		for _, v := range m.val[m.rowPtr[i]:m.rowPtr[i+1]] {
			s += v
		}
		lo, hi = min(lo, s), max(hi, s)
	}
	return lo, hi
}

// sequentialPower runs iters steps of the power iteration on the whole
// matrix and returns the eigenvalue estimate and the final vector.
func sequentialPower(g graph, iters int) (float64, []float64) {
	a := g.rows(0, g.n)
	x := make([]float64, g.n)
	y := make([]float64, g.n)
	for i := range x {
		x[i] = startValue(i)
	}
	var lambda float64
	for range iters {
		a.mul(x, y)
		var dot, norm2 float64
		for i := range y {
			dot += x[i] * y[i]
			norm2 += y[i] * y[i]
		}
		lambda = dot / sumSquares(x)
		norm := math.Sqrt(norm2)
		for i := range y {
			x[i] = y[i] / norm
		}
	}
	return lambda, x
}

func sumSquares(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x * x
	}
	return s
}

// startValue is the start vector's entry i: positive, not an eigenvector.
func startValue(i int) float64 { return 1 + float64(i%7)/7 }
