// Batches averages samples in batches until the standard error of the
// global mean (an Allreduce of sums) is below a tolerance, as a Monte
// Carlo code does. A sample is computed in a loop the reduction seals, so
// the model reads the sums as zero and its stopping test never holds:
// the model must stop with an error, not run -max-batches batches.
package main

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"

	"github.com/predict-tools/predict/commlib"
)

var (
	tol        = flag.Float64("tol", 1e-3, "relative standard error at which to stop")
	maxBatches = flag.Int("max-batches", 1000000, "batches after which the run gives up")
)

// sample is exp(−|x|²) for a point x of [0,1)^4 drawn from stream i.
func sample(rng *rand.Rand) float64 {
	var x [4]float64
	for k := range x {
		x[k] = rng.Float64()
	}
	var r2 float64
	for _, v := range x {
		r2 += v * v
	}
	return math.Exp(-r2)
}

func main() {
	commlib.Main(func(c *commlib.Comm) {
		local, global := make([]float64, 2), make([]float64, 2)
		var n, sum, sq float64
		batches := 0
		for batches < *maxBatches { // mark:batch
			local[0], local[1] = 0, 0
			rng := rand.New(newLCG(1, uint64(batches*c.Size()+c.Rank())))
			for range 256 { // mark:sample
				v := sample(rng)
				local[0] += v
				local[1] += v * v
			}
			c.Allreduce(local, global, commlib.Sum)
			n += float64(256 * c.Size())
			sum += global[0]
			sq += global[1]
			batches++
			mean := sum / n
			if math.Sqrt(max(sq/n-mean*mean, 0)/n) < *tol*mean { // mark:exit
				break
			}
		} // mark:batch-end
		if batches == *maxBatches {
			fmt.Fprintf(os.Stderr, "batches: no convergence after %d batches\n", batches)
			os.Exit(1)
		}
		if c.Rank() == 0 {
			fmt.Printf("batches: mean %.4f after %d batches on %d ranks, ok\n", sum/n, batches, c.Size())
		}
	})
}

// lcg is a source of the program's own, a linear congruential generator:
// the model does not run it, so what a generator over it draws is random
// numbers to the model (a generator over rand.NewPCG it would compute).
type lcg struct{ x uint64 }

func newLCG(a, b uint64) *lcg { return &lcg{x: a*0x9e3779b97f4a7c15 ^ b} }

func (s *lcg) Uint64() uint64 {
	s.x = s.x*6364136223846793005 + 1442695040888963407
	return s.x ^ s.x>>29
}
