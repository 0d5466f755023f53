// Command noise: steps of the same compute on every rank, each followed by
// a halo exchange with the neighbours (-sync) or by nothing, or (-alt) a
// long and a short burst each followed by a barrier (-chan: by a send on
// a buffered channel); one barrier at the end.
package main

import (
	"flag"

	"github.com/predict-tools/predict/commlib"
)

var (
	steps = flag.Int("steps", 200, "steps")
	sync  = flag.Bool("sync", true, "exchange with the neighbours after each step")
	alt   = flag.Bool("alt", false, "each step a long and a short burst, a barrier after each")
	chans = flag.Bool("chan", false, "as -alt, a send on a buffered channel after each burst instead of a barrier")
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
		done := make(chan int, 2**steps)
		for range *steps {
			if *chans {
				work(x)
				done <- 1
				work(x[:1])
				done <- 2
				continue
			}
			if *alt {
				work(x)
				c.Barrier()
				work(x[:1])
				c.Barrier()
				continue
			}
			work(x)
			if *sync {
				c.Sendrecv(x[0:1], right, 0, x[1:2], left, 0)
			}
		}
		c.Barrier()
	})
}
