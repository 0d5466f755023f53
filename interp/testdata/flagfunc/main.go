// Flagfunc takes its -level flag through flag.Func, a function of the
// program that the model does not follow: the prediction must stop with
// an error at that call, not run with a zero level.
package main

import (
	"flag"
	"fmt"
	"strconv"

	"github.com/predict-tools/predict/commlib"
)

func main() {
	level := 1
	flag.Func("level", "barriers to run", func(s string) error { // mark:func
		n, err := strconv.Atoi(s)
		level = n
		return err
	})
	commlib.Main(func(c *commlib.Comm) {
		for range level {
			c.Barrier()
		}
		if c.Rank() == 0 {
			fmt.Printf("flagfunc: %d barriers on %d ranks, ok\n", level, c.Size())
		}
	})
}
