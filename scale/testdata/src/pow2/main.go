// Command pow2 runs only at a power-of-two number of ranks, as programs
// built on recursive doubling often do: at any other np it aborts before
// communicating. Otherwise every rank computes a share of -n units of work
// and the ranks sum the results with Allreduce; rank 0 checks the sum.
//
// It is the test program of a sweep in which some process counts fail.
package main

import (
	"flag"
	"fmt"

	"github.com/predict-tools/predict/commlib"
)

var n = flag.Int("n", 1<<16, "units of work, split over the ranks")

func main() {
	commlib.Main(func(c *commlib.Comm) {
		np := c.Size()
		if np&(np-1) != 0 {
			c.Abort(fmt.Errorf("np=%d: want a power of two", np))
		}
		lo, hi := c.Rank()**n/np, (c.Rank()+1)**n/np
		part := []float64{0}
		for i := lo; i < hi; i++ {
			part[0] += float64(i % 7)
		}
		total := []float64{0}
		c.Allreduce(part, total, commlib.Sum)
		if c.Rank() == 0 {
			want := 0.0
			for i := 0; i < *n; i++ {
				want += float64(i % 7)
			}
			if total[0] != want {
				c.Abort(fmt.Errorf("sum %g, want %g", total[0], want))
			}
			fmt.Printf("np=%d n=%d sum=%g\n", np, *n, total[0])
		}
	})
}
