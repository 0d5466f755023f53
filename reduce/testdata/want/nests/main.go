// Command nests multiplies a random sparse matrix by a vector and packs
// blocks for a transpose: loop nests that the reduction seals (nothing
// they compute is needed), counts in units, or must run.
package main

import (
	"flag"
	"math/rand"
	"sort"

	"github.com/predict-tools/predict/commlib"
)

var (
	size  = flag.Int("n", 256, "matrix rows per rank")
	iters = flag.Int("iters", 10, "products")
)

type csr struct {
	ptr []int
	col []int
	val []float64
}

// build makes a random sparse matrix: the row lengths depend on random
// numbers, but nothing after it needs them, so the nest is sealed and its
// random decisions are not opaque.
func build(n int) *csr {
	m := &csr{ptr: make([]int, n+1)}
	for i := 0; i < n; i++ { // want collapse:"counted" sealed trips:"max(0, n)"
		k := rand.Intn(4)
		for j := 0; j < k; j++ { // want collapse:"counted" trips:"max(0, k)"
			m.col = append(m.col, rand.Intn(n))
			m.val = append(m.val, 1)
		}
		m.ptr[i+1] = len(m.col)
	}
	return m
}

// mul is the sparse product: its inner bound is the row pointers, which a
// sealed nest does not need.
func (m *csr) mul(v, out []float64) {
	for i := range out { // want collapse:"counted" sealed trips:"max(0, len(out))"
		s := 0.0
		for k := m.ptr[i]; k < m.ptr[i+1]; k++ { // want collapse:"counted" trips:"max(0, ptr[((t1 + 1) + 1)] - k)"
			s += m.val[k] * v[m.col[k]]
		}
		out[i] = s
	}
}

// positive counts what a later branch needs: it must run.
func positive(xs []float64) int {
	c := 0
	for i := 0; i < len(xs); i++ { // want iterate:"a value it computes is used after it" trips:"max(0, len(xs))"
		if xs[i] > 0 { // want computed
			c++
		}
	}
	return c
}

type grid struct{ rows, cols int }

// clear is a perfect nest whose inner bound is a field of a parameter:
// the skeleton runs the rows and counts the columns.
func clear(g grid, a []float64) {
	for i := 0; i < g.rows; i++ { // want units sealed trips:"max(0, rows)"
		for j := 0; j < g.cols; j++ { // want collapse:"counted" trips:"max(0, cols)"
			a[i*g.cols+j] = 0
		}
	}
}

// upper is a triangular nest: the inner start is the outer index.
func upper(a []float64, n int) {
	for i := 0; i < n; i++ { // want units sealed trips:"max(0, n)"
		for j := i + 1; j < n; j++ { // want collapse:"counted" trips:"max(0, n - (i + 1))"
			a[i*n+j] = 1
		}
	}
}

// pack copies np blocks of lines for an all-to-all: the copies' lengths
// are known on entry to the inner loop, so the nest is counted in units
// (iterations and elements moved).
func pack(out, src []float64, np int) {
	for p := 0; p < np; p++ { // want units sealed trips:"max(0, np)"
		for line := 0; line < 4; line++ { // want collapse:"counted" trips:"max(0, 4)"
			copy(out[p*64+line*16:][:16/np], src[(p*4+line)*16:][:16/np])
		}
	}
}

// unpack is pack written with ranges over integers.
func unpack(out, src []float64, np int) {
	for p := range np { // want units sealed trips:"1 + max(0, np - 1)"
		for line := range 4 { // want collapse:"counted" trips:"1 + max(0, 4 - 1)"
			copy(out[(p*4+line)*16:][:16/np], src[p*64+line*16:][:16/np])
		}
	}
}

func main() {
	commlib.Main(func(c *commlib.Comm) {
		np := c.Size()
		m := build(*size)
		v, out := make([]float64, *size), make([]float64, *size) // want shape shape
		for it := 0; it < *iters; it++ {                         // want iterate:"it calls Comm.Allreduce"
			m.mul(v, out)
			c.Allreduce(out[:1], v[:1], commlib.Sum)
		}
		if positive([]float64{1, -1, 2}) > 1 { // want computed
			clear(grid{*size, 4}, make([]float64, *size*4))
		}
		upper(make([]float64, 64*64), 64)
		blocks, recv := make([]float64, 64*np), make([]float64, 64*np) // want shape shape
		pack(blocks, recv, np)
		c.Alltoall(blocks, recv)
		unpack(blocks, recv, np)
		// A cyclic distribution: rank, rank + np, …: its step is a value
		// the loop does not change.
		for k := c.Rank(); k < *size; k += np { // want collapse:"counted" computed sealed trips:"max(0, ceil((*size - k) / np))"
			v[k] = 0
		}
		// A rank's share sorted by a function outside the program, in a
		// variable a closure captures: the slice is kept as a shape (its
		// length, not its contents, which the sort writes), so that the
		// sort's segment is counted in its bytes.
		keys := make([]int, *size/np) // want shape
		c.Barrier()
		sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	})
}
