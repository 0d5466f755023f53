// Command replayeddowhile: a do-while whose test (on random data) is at the
// bottom of a body of several blocks: its trips are replayed.
package main

import (
	"math/rand"

	"github.com/predict-tools/predict/commlib"
)

func converge(n int) {
	for { // mark:loop
		s := rand.Float64()
		for i := 0; i < n; i++ {
			s += rand.Float64()
		}
		if s < 0.3*float64(n) {
			break
		}
	}
}

func main() {
	commlib.Main(func(c *commlib.Comm) {
		converge(100)
		c.Barrier()
	})
}
