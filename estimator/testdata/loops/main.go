// Command loops has counted loops of every form the timing pass computes
// the trip count of before the loop runs, and loops it must count as they
// run, for the tests of the timing pass: each function's loop has a known
// trip count, and the program checks its own sums, so an instrumented copy
// that changed what a loop does would fail.
package main

import (
	"fmt"

	"github.com/predict-tools/predict/commlib"
)

const step = 3

// unsignedSpan counts 10 trips over unsigned conversions of its bounds.
func unsignedSpan(lo, hi int64) uint64 {
	var s uint64
	for k := uint64(lo); k < uint64(hi); k++ {
		s += k
	}
	return s
}

// downward counts 10, 7, 4, 1: 4 trips, by a named constant step.
func downward(n int) int {
	s := 0
	for i := n; i > 0; i -= step {
		s += i
	}
	return s
}

// narrow counts 0, 50, …, 200 in a uint8: 5 trips, inclusive bound.
func narrow() int {
	s := 0
	for i := uint8(0); i <= 200; i += 50 {
		s += int(i)
	}
	return s
}

// rangeInt ranges over a typed integer: n trips.
func rangeInt(n int32) int32 {
	var s int32
	for i := range n {
		s += i
	}
	return s
}

// floatBound compares with an untyped floating-point constant: 1000 trips.
func floatBound() int {
	s := 0
	for i := 0; i < 1e3; i++ {
		s += i & 1
	}
	return s
}

// labeled runs its labeled loop twice (4 trips each), the second time by
// a goto to the loop's label.
func labeled() int {
	s, again := 0, 0
L:
	for i := 0; i < 4; i++ {
		s += i
	}
	if again < 1 {
		again++
		goto L
	}
	return s
}

// shrinking lowers its bound in the body: 9 trips, counted as it runs.
func shrinking(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		if i == 2 {
			n--
		}
		s += i
	}
	return s
}

// box is a struct passed by value, whose fields bound loops.
type box struct {
	n    int
	data []int
}

func (b box) first() int { return b.data[0] }

// fieldBound is bounded by a field of a struct parameter, which the SSA
// form keeps in memory (its other field is indexed): 5 trips.
func fieldBound(b box) int {
	s := 0
	for i := 0; i < b.n; i++ {
		s += b.data[i] + b.first()
	}
	return s
}

// fieldShrinking lowers that field in the body: 3 trips (i = 0, 1, 2
// against n = 5, 4, 3), counted as it runs.
func fieldShrinking(b box) int {
	s := 0
	for i := 0; i < b.n; i++ {
		b.n--
		s += b.data[i]
	}
	return s
}

// early leaves its loop by a break after 6 trips: counted as it runs.
func early(xs []int) int {
	s := 0
	for _, x := range xs {
		if x > 5 {
			break
		}
		s += x
	}
	return s
}

// resumed is a perfect nest of n outer iterations of 50000 additions (long
// enough to be sampled): a sampled entry resumes in the original copy
// after its samples, and records its own trip count, not the nest's.
func resumed(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		for j := 0; j < 50000; j++ {
			s += i ^ j
		}
	}
	return s
}

func main() {
	commlib.Main(func(c *commlib.Comm) {
		xs := []int{0, 1, 2, 3, 4, 5, 6, 7}
		b := box{n: 5, data: xs}
		got := []int{int(unsignedSpan(5, 15)), downward(10), narrow(), int(rangeInt(7)), floatBound(), labeled(), shrinking(10), early(xs),
			fieldBound(b), fieldShrinking(b), resumed(640)}
		want := []int{95, 22, 500, 21, 500, 12, 36, 15, 10, 3, 800010918912}
		for i := range got {
			if got[i] != want[i] {
				c.Abort(fmt.Errorf("loop %d: sum %d, want %d", i, got[i], want[i]))
			}
		}
		if c.Rank() == 0 {
			fmt.Println("ok")
		}
	})
}
