// Command clockafter: a loop until a moment of modeled time whose last
// reading of the clock is used after it.
package main

import (
	"github.com/predict-tools/predict/commlib"
)

func main() {
	commlib.Main(func(c *commlib.Comm) {
		end := commlib.Wtime() + 1e-6
		var now float64
		for { // mark:loop
			now = commlib.Wtime()
			if !(now < end) {
				break
			}
		}
		if now < end { // never true in the real program
			c.Barrier()
			c.Barrier()
		}
	})
}
