// Flagsinmain defines its flag inside main, before commlib.Main parses the
// command line (as many programs do), and runs -iters barriers.
package main

import (
	"flag"
	"fmt"

	"github.com/predict-tools/predict/commlib"
)

func main() {
	iters := flag.Int("iters", 1, "number of barriers")
	commlib.Main(func(c *commlib.Comm) { // mark:main
		for range *iters {
			c.Barrier()
		}
		if c.Rank() == 0 {
			fmt.Printf("flagsinmain: %d barriers on %d ranks, ok\n", *iters, c.Size())
		}
	})
}
