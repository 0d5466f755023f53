// This file defines the Jacobi sweep, the problem's source term and
// boundary values, the block distribution and the solution hash, shared by
// the distributed run and the sequential reference.

package main

import (
	"encoding/binary"
	"hash/fnv"
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

// block returns the first global point (0-based) and the number of points
// of rank out of np for n points: the first n%np ranks get one point more.
func block(n, rank, np int) (first, count int) {
	size, extra := n/np, n%np
	first = rank*size + min(rank, extra)
	count = size
	if rank < extra {
		count++
	}
	return first, count
}

// hashBits returns FNV-64a of the IEEE-754 bits of v, little-endian.
func hashBits(v []float64) uint64 {
	h := fnv.New64a()
	buf := make([]byte, 0, 8<<10)
	for _, x := range v {
		buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(x))
		if len(buf) == cap(buf) {
			h.Write(buf)
			buf = buf[:0]
		}
	}
	h.Write(buf)
	return h.Sum64()
}
