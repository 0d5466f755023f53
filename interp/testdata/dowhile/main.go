// Command dowhile fills every other element of its part of an array in a
// do-while loop whose test, at the bottom, reads the bound len(xs) in a
// block of its own: the loop plan computes the bound on entry, so the
// loop is collapsed (and sealed: nothing in it is kept).
package main

import (
	"flag"

	"github.com/predict-tools/predict/commlib"
)

var n = flag.Int("n", 1000, "elements in all")

func fillEven(xs []float64) {
	i := 0
	for { // mark:loop
		if i%2 == 0 {
			xs[i] = 1
		}
		i++
		if i >= len(xs) {
			break
		}
	}
}

func main() {
	commlib.Main(func(c *commlib.Comm) {
		xs := make([]float64, *n/c.Size())
		fillEven(xs)
		c.Barrier()
	})
}
