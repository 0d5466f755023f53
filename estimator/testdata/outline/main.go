// Command outline has loops timed whole whose sampled copies the timing
// pass writes as functions of their own (outlined), and loops it must keep
// in their functions because their variables cannot travel by value, for
// the tests of the timing pass. Each function's first entry is sampled, so
// the instrumented run goes through the outlined copies; the program
// checks its own results, so an outlined copy that changed what a loop
// does would fail.
package main

import (
	"fmt"
	"strings"

	"github.com/predict-tools/predict/commlib"
)

// counter has a method with a pointer receiver.
type counter struct{ n int }

func (c *counter) add(k int) { c.n += k }

// structField accumulates into the fields of a local struct: outlined, the
// struct goes in and comes back.
func structField(n int) int {
	var acc struct{ n, s int }
	for i := 0; i < n; i++ {
		acc.s += i
		acc.n++
	}
	return acc.s + acc.n
}

// viaSlice writes the elements of a slice: outlined, the slice goes in
// only (its elements are shared).
func viaSlice(n int) int {
	xs := make([]int, n)
	for i := range xs {
		xs[i] = 2 * i
	}
	return xs[n-1]
}

// builder appends to a strings.Builder through a pointer: outlined.
func builder(n int) int {
	b := &strings.Builder{}
	for i := 0; i < n; i++ {
		b.WriteByte('x')
	}
	return b.Len()
}

// address takes a variable's address: kept.
func address(n int) int {
	x := 0
	for i := 0; i < n; i++ {
		p := &x
		*p += i
	}
	return x
}

// method calls a pointer method on a local value (&c, implicitly): kept.
func method(n int) int {
	var c counter
	for i := 0; i < n; i++ {
		c.add(i)
	}
	return c.n
}

// arraySlice slices a local array (its address, implicitly): kept.
func arraySlice(n int) int {
	var buf [4]int
	s := 0
	for i := 0; i < n; i++ {
		copy(buf[:], []int{i, i, i, i})
		s += buf[3]
	}
	return s
}

// localType has a variable of a type declared in the function: kept (its
// type cannot be written outside).
func localType(n int) int {
	type pair struct{ a, b int }
	var p pair
	for i := 0; i < n; i++ {
		p.a += i
		p.b--
	}
	return p.a + p.b
}

func main() {
	commlib.Main(func(c *commlib.Comm) {
		got := []int{structField(100), viaSlice(100), builder(100), address(100), method(100), arraySlice(100), localType(100)}
		want := []int{5050, 198, 100, 4950, 4950, 4950, 4850}
		for i := range got {
			if got[i] != want[i] {
				c.Abort(fmt.Errorf("loop %d: %d, want %d", i, got[i], want[i]))
			}
		}
		if c.Rank() == 0 {
			fmt.Println("ok")
		}
	})
}
