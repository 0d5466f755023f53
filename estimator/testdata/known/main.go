// Command known is a program of known costs for the tests of the timing
// pass: a balanced loop (every iteration busy-waits 200 µs), an unbalanced
// loop (iteration i busy-waits i×40 µs, i = 1..10), and a decision on the
// contents of a problem-sized table that rank r takes for exactly a quarter
// of the entries.
package main

import (
	"flag"
	"time"

	"github.com/predict-tools/predict/commlib"
)

var n = flag.Int("n", 64, "entries of the decision table (a multiple of 4)")

// spin busy-waits for d.
func spin(d time.Duration) {
	t0 := time.Now()
	for time.Since(t0) < d {
	}
}

func balanced() {
	for i := 0; i < 10; i++ {
		spin(200 * time.Microsecond)
	}
}

func unbalanced() {
	for i := 1; i <= 10; i++ {
		spin(time.Duration(i) * 40 * time.Microsecond)
	}
}

func main() {
	commlib.Main(func(c *commlib.Comm) {
		for range 5 { // the barrier keeps this loop from being timed whole
			balanced()
			unbalanced()
			c.Barrier()
		}
		table := make([]int, *n)
		for i := range table {
			table[i] = (i*7 + c.Rank()) % 4
		}
		hits := 0
		for i := range table {
			if table[i] == 0 {
				hits++
			}
			c.Barrier()
		}
		if hits != *n/4 {
			c.Abort(nil)
		}
	})
}
