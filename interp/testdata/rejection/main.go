// Rejection draws one accepted sample per item by rejection sampling, a
// loop whose exit depends on data the model does not compute (for { x :=
// draw(); if ok(x) { break } }), keeps the samples in a slice whose length
// decides the communication after it (one barrier per sample), and checks
// the mean of the samples.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/predict-tools/predict/commlib"
)

var items = flag.Int("items", 10, "samples to draw")

// draw returns a number in [0, 1) that depends only on (r, j): one step
// of a 64-bit linear congruential generator, its high bits.
func draw(r, j int) float64 {
	x := uint64(r)<<32 + uint64(j)
	x = x*6364136223846793005 + 1442695040888963407
	return float64(x>>11) / (1 << 53)
}

// sample returns the first of item i's draws from pool below 0.25.
func sample(pool []float64, i int) float64 {
	var x float64
	for k := 0; ; k++ { // mark:draw
		x = pool[(7*i+k)%len(pool)]
		if x < 0.25 { // mark:exit
			break
		}
	} // mark:draw-end
	return x
}

func main() {
	commlib.Main(func(c *commlib.Comm) {
		pool := make([]float64, 64**items)
		for j := range pool {
			pool[j] = draw(c.Rank(), j)
		}
		var kept []float64
		for i := range *items { // mark:sampling
			kept = append(kept, sample(pool, i))
		}
		sum := 0.0
		for _, x := range kept {
			sum += x
			c.Barrier()
		}
		if mean := sum / float64(len(kept)); mean < 0 || mean >= 0.25 {
			fmt.Fprintf(os.Stderr, "rejection: mean %v outside [0, 0.25)\n", mean)
			os.Exit(1)
		}
		if c.Rank() == 0 {
			fmt.Printf("rejection: %d samples, %d barriers on %d ranks, ok\n", len(kept), len(kept), c.Size())
		}
	})
}
