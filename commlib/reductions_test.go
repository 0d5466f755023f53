// This file tests the reductions (Reduce, Allreduce, Scan, Exscan) against
// sequential references: every operator on every representative element
// type at several sizes, hand-computed values, and determinism.

package commlib_test

import (
	"fmt"
	"math"
	"math/cmplx"
	"slices"
	"testing"

	"github.com/predict-tools/predict/commlib"
)

var sizes = []int{1, 2, 3, 5, 8}

// refOp is the sequential reference of a reduction operator on one type.
type refOp[T any] func(op commlib.Op, a, b T) T

func b2n[T int | uint8 | float64 | complex128](b bool) T {
	if b {
		return 1
	}
	return 0
}

func refInt(op commlib.Op, a, b int) int {
	switch op {
	case commlib.Sum:
		return a + b
	case commlib.Prod:
		return a * b
	case commlib.Min:
		return min(a, b)
	case commlib.Max:
		return max(a, b)
	case commlib.Land:
		return b2n[int](a != 0 && b != 0)
	case commlib.Lor:
		return b2n[int](a != 0 || b != 0)
	case commlib.Lxor:
		return b2n[int]((a != 0) != (b != 0))
	case commlib.Band:
		return a & b
	case commlib.Bor:
		return a | b
	case commlib.Bxor:
		return a ^ b
	}
	panic(op)
}

func refUint8(op commlib.Op, a, b uint8) uint8 {
	switch op {
	case commlib.Sum:
		return a + b
	case commlib.Prod:
		return a * b
	case commlib.Min:
		return min(a, b)
	case commlib.Max:
		return max(a, b)
	case commlib.Land:
		return b2n[uint8](a != 0 && b != 0)
	case commlib.Lor:
		return b2n[uint8](a != 0 || b != 0)
	case commlib.Lxor:
		return b2n[uint8]((a != 0) != (b != 0))
	case commlib.Band:
		return a & b
	case commlib.Bor:
		return a | b
	case commlib.Bxor:
		return a ^ b
	}
	panic(op)
}

func refFloat64(op commlib.Op, a, b float64) float64 {
	switch op {
	case commlib.Sum:
		return a + b
	case commlib.Prod:
		return a * b
	case commlib.Min:
		return math.Min(a, b)
	case commlib.Max:
		return math.Max(a, b)
	case commlib.Land:
		return b2n[float64](a != 0 && b != 0)
	case commlib.Lor:
		return b2n[float64](a != 0 || b != 0)
	case commlib.Lxor:
		return b2n[float64]((a != 0) != (b != 0))
	}
	panic(op)
}

func refBool(op commlib.Op, a, b bool) bool {
	switch op {
	case commlib.Land, commlib.Band:
		return a && b
	case commlib.Lor, commlib.Bor:
		return a || b
	case commlib.Lxor, commlib.Bxor:
		return a != b
	}
	panic(op)
}

func refComplex(op commlib.Op, a, b complex128) complex128 {
	switch op {
	case commlib.Sum:
		return a + b
	case commlib.Prod:
		return a * b
	case commlib.Land:
		return b2n[complex128](a != 0 && b != 0)
	case commlib.Lor:
		return b2n[complex128](a != 0 || b != 0)
	case commlib.Lxor:
		return b2n[complex128]((a != 0) != (b != 0))
	}
	panic(op)
}

// fold combines the contributions of ranks 0..upto-1 of element i in rank
// order.
func fold[T any](gen func(rank, i int) T, ref refOp[T], op commlib.Op, upto, i int) T {
	acc := gen(0, i)
	for r := 1; r < upto; r++ {
		acc = ref(op, acc, gen(r, i))
	}
	return acc
}

// checkReductions runs Allreduce, Reduce (at every root), Scan and Exscan
// of op on np ranks and compares every rank's result with the sequential
// reference, exactly.
func checkReductions[T comparable](t *testing.T, np int, op commlib.Op, gen func(rank, i int) T, ref refOp[T]) {
	t.Helper()
	const n = 6
	mustRun(t, np, func(c *commlib.Comm) {
		me := c.Rank()
		send := make([]T, n)
		for i := range send {
			send[i] = gen(me, i)
		}
		orig := slices.Clone(send)
		check := func(what string, got []T, upto int) {
			for i := range n {
				if want := fold(gen, ref, op, upto, i); got[i] != want {
					t.Errorf("np=%d rank %d %s %v: element %d = %v, want %v", np, me, what, op, i, got[i], want)
					return
				}
			}
		}

		all := make([]T, n)
		c.Allreduce(send, all, op)
		check("Allreduce", all, np)

		for root := range np {
			var recv []T
			if me == root {
				recv = make([]T, n+1) // a larger buffer is fine
			}
			c.Reduce(send, recv, op, root)
			if me == root {
				check(fmt.Sprintf("Reduce(root=%d)", root), recv, np)
			}
		}

		scan := make([]T, n)
		c.Scan(send, scan, op)
		check("Scan", scan, me+1)

		ex := make([]T, n)
		sentinel := make([]T, n)
		for i := range ex {
			ex[i] = gen(np+3, i)
			sentinel[i] = ex[i]
		}
		c.Exscan(send, ex, op)
		if me == 0 {
			if !slices.Equal(ex, sentinel) {
				t.Errorf("np=%d Exscan %v changed rank 0's buffer: %v", np, op, ex)
			}
		} else {
			check("Exscan", ex, me)
		}
		if !slices.Equal(send, orig) {
			t.Errorf("np=%d rank %d: send buffer changed: %v", np, me, send)
		}
	})
}

var (
	allOps     = []commlib.Op{commlib.Sum, commlib.Prod, commlib.Min, commlib.Max, commlib.Land, commlib.Lor, commlib.Lxor, commlib.Band, commlib.Bor, commlib.Bxor}
	floatOps   = allOps[:7]
	logicalOps = allOps[4:]
	complexOps = []commlib.Op{commlib.Sum, commlib.Prod, commlib.Land, commlib.Lor, commlib.Lxor}
)

func genInt(r, i int) int {
	return (r*7+i*3)%11 - 5 // negative, zero and positive values
}

func genUint8(r, i int) uint8 { return uint8(r*37 + i*91 + r*i) }

func genFloat64(r, i int) float64 {
	if (r+i)%4 == 0 {
		return 0
	}
	return float64((r*5+i*3)%9)*0.37 - 1.1
}

func genBool(r, i int) bool { return (r*i+r+i)%3 != 0 }

func genComplex(r, i int) complex128 {
	if (r+2*i)%5 == 0 {
		return 0
	}
	return complex(float64(r+1)*0.5, float64(i-r)*0.25)
}

func TestReductionOperators(t *testing.T) {
	for _, np := range sizes {
		for _, op := range allOps {
			t.Run(fmt.Sprintf("int/%v/np=%d", op, np), func(t *testing.T) { checkReductions(t, np, op, genInt, refInt) })
			t.Run(fmt.Sprintf("uint8/%v/np=%d", op, np), func(t *testing.T) { checkReductions(t, np, op, genUint8, refUint8) })
		}
		for _, op := range floatOps {
			t.Run(fmt.Sprintf("float64/%v/np=%d", op, np), func(t *testing.T) { checkReductions(t, np, op, genFloat64, refFloat64) })
		}
		for _, op := range logicalOps {
			t.Run(fmt.Sprintf("bool/%v/np=%d", op, np), func(t *testing.T) { checkReductions(t, np, op, genBool, refBool) })
		}
		for _, op := range complexOps {
			t.Run(fmt.Sprintf("complex128/%v/np=%d", op, np), func(t *testing.T) { checkReductions(t, np, op, genComplex, refComplex) })
		}
	}
}

func TestReductionSpotValues(t *testing.T) {
	// A few hand-computed results, independent of the reference functions.
	mustRun(t, 4, func(c *commlib.Comm) {
		r := c.Rank()
		got := make([]int, 1)
		c.Allreduce([]int{r + 1}, got, commlib.Prod) // 1*2*3*4
		if got[0] != 24 {
			t.Errorf("Prod = %d, want 24", got[0])
		}
		c.Allreduce([]int{1 << r}, got, commlib.Bor)
		if got[0] != 15 {
			t.Errorf("Bor = %d, want 15", got[0])
		}
		c.Allreduce([]int{r}, got, commlib.Lxor) // three nonzero values: odd
		if got[0] != 1 {
			t.Errorf("Lxor = %d, want 1", got[0])
		}
		b := make([]bool, 1)
		c.Allreduce([]bool{r == 2}, b, commlib.Lor)
		if !b[0] {
			t.Error("Lor of one true = false")
		}
		c.Allreduce([]bool{r != 2}, b, commlib.Land)
		if b[0] {
			t.Error("Land with one false = true")
		}
		z := make([]complex128, 1)
		c.Allreduce([]complex128{1i}, z, commlib.Prod) // i^4
		if z[0] != 1 {
			t.Errorf("complex Prod = %v, want 1", z[0])
		}
		f := make([]float64, 2)
		c.Allreduce([]float64{-float64(r), float64(r) / 2}, f, commlib.Min)
		if f[0] != -3 || f[1] != 0 {
			t.Errorf("float Min = %v, want [-3 0]", f)
		}
		u := make([]uint8, 1)
		c.Allreduce([]uint8{200}, u, commlib.Sum) // 800 mod 256
		if u[0] != 32 {
			t.Errorf("uint8 Sum = %d, want 32 (wrapping)", u[0])
		}
	})
}

func TestReductionsAreDeterministic(t *testing.T) {
	// Floating-point sums depend on the order of combination: these values
	// give different results in different orders. The result must be the
	// rank-order one, bit for bit, on every rank and in every run.
	vals := []float64{1e16, 1, -1e16, 1, 3.5, -2.25e-3, 1e-7, 7e15}
	for _, np := range []int{3, 5, 8} {
		want := vals[0]
		for _, v := range vals[1:np] {
			want += v
		}
		var first uint64
		for run := range 20 {
			results := make([]float64, np)
			var rootResult float64
			mustRun(t, np, func(c *commlib.Comm) {
				out := make([]float64, 1)
				c.Allreduce(vals[c.Rank():c.Rank()+1], out, commlib.Sum)
				results[c.Rank()] = out[0]
				red := make([]float64, 1)
				c.Reduce(vals[c.Rank():c.Rank()+1], red, commlib.Sum, np-1)
				if c.Rank() == np-1 {
					rootResult = red[0]
				}
			})
			for r, v := range results {
				if math.Float64bits(v) != math.Float64bits(want) {
					t.Fatalf("np=%d run %d rank %d: Allreduce = %v, want the rank-order sum %v", np, run, r, v, want)
				}
			}
			if rootResult != want {
				t.Fatalf("np=%d run %d: Reduce = %v, want %v", np, run, rootResult, want)
			}
			if run == 0 {
				first = math.Float64bits(results[0])
			} else if math.Float64bits(results[0]) != first {
				t.Fatalf("np=%d: run %d differs from run 0", np, run)
			}
		}
	}
}

func TestExscanFirstRankUntouched(t *testing.T) {
	mustRun(t, 4, func(c *commlib.Comm) {
		out := []float64{math.Pi}
		c.Exscan([]float64{float64(c.Rank() + 1)}, out, commlib.Prod)
		want := []float64{math.Pi, 1, 2, 6}[c.Rank()]
		if out[0] != want {
			t.Errorf("rank %d Exscan Prod = %v, want %v", c.Rank(), out[0], want)
		}
		z := []complex128{1}
		c.Scan([]complex128{cmplx.Rect(1, math.Pi/2)}, z, commlib.Sum)
		if cmplx.Abs(z[0]-complex(0, float64(c.Rank()+1))) > 1e-12 {
			t.Errorf("rank %d Scan complex = %v", c.Rank(), z[0])
		}
	})
}
