// Command noise: steps of the same compute on every rank, each followed by
// a halo exchange with the neighbours (-sync) or by nothing; one barrier at
// the end.
package main

import (
	"flag"

	"github.com/predict-tools/predict/commlib"
)

var (
	steps = flag.Int("steps", 200, "steps")
	sync  = flag.Bool("sync", true, "exchange with the neighbours after each step")
)

func work(x []float64) {
	for i := 0; i < len(x); i++ { // mark:loop
		x[i] = x[i]*0.5 + 1
	}
}

func main() {
	commlib.Main(func(c *commlib.Comm) {
		rank, np := c.Rank(), c.Size()
		left, right := (rank+np-1)%np, (rank+1)%np
		x := make([]float64, 16)
		for range *steps {
			work(x)
			if *sync {
				c.Sendrecv(x[0:1], right, 0, x[1:2], left, 0)
			}
		}
		c.Barrier()
	})
}
