// Command firstiters: a rank's share of n rows, swept four times; a
// sweep's first rows cost more than the others (they warm its caches).
package main

import (
	"flag"

	"github.com/predict-tools/predict/commlib"
)

var n = flag.Int("n", 64, "rows in all")

func sweep(rows []float64) {
	for i := 0; i < len(rows); i++ { // mark:loop
		rows[i] = rows[i]*0.5 + 1
	}
}

func main() {
	commlib.Main(func(c *commlib.Comm) {
		rows := make([]float64, *n/c.Size())
		for range 4 {
			sweep(rows)
		}
		c.Barrier()
	})
}
