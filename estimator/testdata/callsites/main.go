// Command callsites has functions and methods whose work is one loop
// timed whole, for the tests of the timing pass: those it times at their
// call sites (the call statement is timed, a sampled entry calls the
// callee's instrumented clone) and those it must time inside, because a
// call of theirs is not a statement it can time or their loop's trip
// count cannot be written at the call. The program checks its own
// results, so a clone or a trip count that changed what a call does would
// fail the run.
package main

import (
	"fmt"

	"github.com/predict-tools/predict/commlib"
)

// size is a package-level bound, hidden by a local at one call of fillTo.
var size = 8

// grid has methods with a pointer receiver.
type grid struct {
	n     int
	cells []float64
}

// relax is timed at its call sites, on a pointer and on a value (whose
// address the call takes).
func (g *grid) relax(w float64) {
	h := w * 0.5
	for i := 0; i < g.n; i++ {
		g.cells[i] = g.cells[i]*h + 1
	}
}

// total is called through an interface too: timed inside.
func (g *grid) total() float64 {
	s := 0.0
	for i := 0; i < g.n; i++ {
		s += g.cells[i]
	}
	return s
}

type totaler interface{ total() float64 }

// vec has a method with a value receiver.
type vec []float64

// scale is timed at its call site, called on a pointer (which the call
// dereferences).
func (v vec) scale(k float64) {
	for i := range v {
		v[i] *= k
	}
}

// blur is a perfect nest whose inner bound the outer loop does not
// change: timed at its call site, its trip count the nest's inner
// iterations.
func blur(img [][]float64, w int) {
	for i := 0; i < len(img); i++ {
		for j := 0; j < w; j++ {
			img[i][j] += 1
		}
	}
}

// halve assigns its bound before the loop: timed inside (the bound at
// the call is not the loop's).
func halve(xs []float64, n int) {
	n = n / 2
	for i := 0; i < n; i++ {
		xs[i] /= 2
	}
}

// fillTo's bound is package-level, hidden at a call: timed inside.
func fillTo(xs []float64) {
	for i := 0; i < size; i++ {
		xs[i] = float64(i)
	}
}

// sumOf is taken as a value: timed inside.
func sumOf(xs []float64) {
	for i := range xs {
		xs[0] += xs[i]
	}
}

func main() {
	commlib.Main(func(c *commlib.Comm) {
		g := &grid{n: 100, cells: make([]float64, 100)}
		var h grid
		h.n, h.cells = 50, make([]float64, 50)
		v := make(vec, 40)
		for i := range v {
			v[i] = 1
		}
		pv := &v
		xs := make([]float64, 64)
		var t totaler = g
		img := make([][]float64, 6)
		for i := range img {
			img[i] = make([]float64, 5)
		}
		f := sumOf
		for step := 0; step < 3; step++ {
			g.relax(2)
			h.relax(4)
			pv.scale(2)
			halve(xs, 64)
			fillTo(xs)
			f(xs)
			blur(img, 4)
		}
		size := 3
		fillTo(xs[:size+5])
		got := []float64{g.cells[99], h.cells[49], v[39], t.total(), g.total(), xs[0], img[5][3], img[5][4]}
		want := []float64{3, 7, 8, 300, 300, 0, 3, 0}
		for i := range got {
			if got[i] != want[i] {
				c.Abort(fmt.Errorf("result %d: %g, want %g", i, got[i], want[i]))
			}
		}
		if c.Rank() == 0 {
			fmt.Println("ok")
		}
	})
}
