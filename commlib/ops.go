// This file defines the reduction operators.

package commlib

import "fmt"

// Op is a reduction operator for Reduce, Allreduce, Scan, Exscan and pool
// reductions. Contributions are combined in rank order (task order for
// pools), so a result is deterministic for a given number of ranks.
type Op int

// The operators. Sum, Prod, Min and Max apply to numbers (Min and Max not to
// complex numbers); Land, Lor and Lxor treat nonzero as true and yield 1 or 0
// (they also apply to []bool); Band, Bor and Bxor apply to integers.
const (
	Sum Op = iota + 1
	Prod
	Min
	Max
	Land
	Lor
	Lxor
	Band
	Bor
	Bxor
)

var opNames = [...]string{Sum: "Sum", Prod: "Prod", Min: "Min", Max: "Max", Land: "Land", Lor: "Lor",
	Lxor: "Lxor", Band: "Band", Bor: "Bor", Bxor: "Bxor"}

func (op Op) String() string {
	if op > 0 && int(op) < len(opNames) {
		return opNames[op]
	}
	return fmt.Sprintf("Op(%d)", int(op))
}

func (op Op) known() bool { return op >= Sum && op <= Bxor }

func integerOps(op Op) bool { return op.known() }
func floatOps(op Op) bool   { return op >= Sum && op <= Lxor }
func complexOps(op Op) bool { return op == Sum || op == Prod || op == Land || op == Lor || op == Lxor }
func boolOps(op Op) bool    { return op >= Land && op <= Bxor }

type integer interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

type number interface {
	integer | ~float32 | ~float64 | ~complex64 | ~complex128
}

func truth[T number](x T) bool { return x != 0 }

func fromBool[T number](b bool) T {
	if b {
		return 1
	}
	return 0
}

// reduceLogical applies the logical and arithmetic operators common to all numbers.
func reduceLogical[T number](op Op, acc, src []T) bool {
	src = src[:len(acc)]
	switch op {
	case Sum:
		for i, v := range src {
			acc[i] += v
		}
	case Prod:
		for i, v := range src {
			acc[i] *= v
		}
	case Land:
		for i, v := range src {
			acc[i] = fromBool[T](truth(acc[i]) && truth(v))
		}
	case Lor:
		for i, v := range src {
			acc[i] = fromBool[T](truth(acc[i]) || truth(v))
		}
	case Lxor:
		for i, v := range src {
			acc[i] = fromBool[T](truth(acc[i]) != truth(v))
		}
	default:
		return false
	}
	return true
}

func reduceInteger[T integer](op Op, acc, src []T) {
	if reduceLogical(op, acc, src) {
		return
	}
	src = src[:len(acc)]
	switch op {
	case Min:
		for i, v := range src {
			acc[i] = min(acc[i], v)
		}
	case Max:
		for i, v := range src {
			acc[i] = max(acc[i], v)
		}
	case Band:
		for i, v := range src {
			acc[i] &= v
		}
	case Bor:
		for i, v := range src {
			acc[i] |= v
		}
	case Bxor:
		for i, v := range src {
			acc[i] ^= v
		}
	}
}

func reduceFloat[T ~float32 | ~float64](op Op, acc, src []T) {
	if reduceLogical(op, acc, src) {
		return
	}
	src = src[:len(acc)]
	switch op {
	case Min:
		for i, v := range src {
			acc[i] = min(acc[i], v)
		}
	case Max:
		for i, v := range src {
			acc[i] = max(acc[i], v)
		}
	}
}

func reduceComplex[T ~complex64 | ~complex128](op Op, acc, src []T) {
	reduceLogical(op, acc, src)
}

func reduceBool(op Op, acc, src []bool) {
	src = src[:len(acc)]
	for i, v := range src {
		switch op {
		case Land, Band:
			acc[i] = acc[i] && v
		case Lor, Bor:
			acc[i] = acc[i] || v
		case Lxor, Bxor:
			acc[i] = acc[i] != v
		}
	}
}

// reduceFloat64 combines two pool task values.
func reduceFloat64(op Op, acc, v float64) float64 {
	a := []float64{acc}
	reduceFloat(op, a, []float64{v})
	return a[0]
}

// CombineInt64 returns acc combined with v by op, as a reduction of int64
// buffers computes each element: acc unchanged for an operator that does
// not apply to integers. The interpreter reduces modeled data with it.
func (op Op) CombineInt64(acc, v int64) int64 {
	a := [1]int64{acc}
	reduceInteger(op, a[:], []int64{v})
	return a[0]
}

// CombineFloat64 returns acc combined with v by op, as a reduction of
// float64 buffers (and a pool's task values) computes each element: acc
// unchanged for an operator that does not apply to floats.
func (op Op) CombineFloat64(acc, v float64) float64 { return reduceFloat64(op, acc, v) }
