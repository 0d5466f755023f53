// Command andcond: a loop whose condition is not a single test.
package main

import (
	"flag"

	"github.com/predict-tools/predict/commlib"
)

var n = flag.Int("n", 10, "trips")

func work(n int, xs []float64) {
	for i := 0; i < n && i < len(xs); i++ { // mark:loop
		xs[i] = float64(i) * 2
	}
}

func main() {
	commlib.Main(func(c *commlib.Comm) {
		work(*n, make([]float64, 100))
		c.Barrier()
	})
}
