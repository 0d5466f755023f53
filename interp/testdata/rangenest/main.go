// Command rangenest: a perfect nest whose inner loop ranges over an int.
package main

import (
	"flag"

	"github.com/predict-tools/predict/commlib"
)

var m = flag.Int("m", 0, "inner trips")

func nest(n, m int, xs []float64) {
	for i := 0; i < n; i++ { // mark:loop
		for j := range m {
			xs[j] += float64(i)
		}
	}
}

func main() {
	commlib.Main(func(c *commlib.Comm) {
		xs := make([]float64, max(*m, 0))
		nest(10, *m, xs)
		c.Barrier()
	})
}
