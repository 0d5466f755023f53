// This file defines the Jacobi sweep and the problem's source term and
// boundary values, shared by the distributed run and the sequential
// reference.

package main

import (
	"math"
)

// Boundary values u(0) and u(n+1).
const (
	leftBoundary  = 1.0
	rightBoundary = 0.0
)

// fillSource sets src[k] = h²·f(x) at the global points first+k for
// f(x) = π² sin(πx), whose solution of -u” = f with the boundary values
// above is u(x) = 1 - x + sin(πx). The value depends only on the global
// index, so every decomposition computes the same bits.
func fillSource(src []float64, first, n int) {
	h := 1 / float64(n+1)
	for k := range src {
		x := float64(first+k) * h
		src[k] = h * h * math.Pi * math.Pi * math.Sin(math.Pi*x)
	}
}

// sweep does one Jacobi update of the points 1..len(u)-2 from u into next
// (u[0] and u[len(u)-1] are halo or boundary values) and returns the sum
// of the squared changes.
func sweep(u, next, src []float64) float64 {
	var residual float64
	for i := 1; i < len(u)-1; i++ {
		v := 0.5 * (u[i-1] + u[i+1] + src[i])
		d := v - u[i]
		residual += d * d
		next[i] = v
	}
	return residual
}

// sequential runs iters Jacobi iterations on all n points and returns the
// interior solution: the reference the distributed run must match bit for bit.
func sequential(n, iters int) []float64 {
	u := make([]float64, n+2)
	next := make([]float64, n+2)
	src := make([]float64, n+2)
	fillSource(src, 0, n)
	u[0], next[0] = leftBoundary, leftBoundary
	u[n+1], next[n+1] = rightBoundary, rightBoundary
	for range iters {
		sweep(u, next, src)
		u, next = next, u
	}
	return u[1 : n+1]
}
