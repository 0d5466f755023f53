// Command montecarlo integrates f(x) = exp(−|x|²) over the unit cube
// [0,1]^d by Monte Carlo, in batches, until the estimated standard error
// falls below a relative tolerance: the number of batches depends on the
// data. The integral has the closed form (√π/2 · erf(1))^d.
//
// Communication pattern: a batch is cut into fixed chunks of samples; chunk
// k of a batch goes to rank k mod np, which draws it from its own generator
// seeded with the chunk's global number, so the samples do not depend on
// np. After each batch the ranks combine the chunks' sums with one Allreduce
// of a vector indexed by chunk (each slot has one nonzero contributor, so
// the sum is exact), every rank adds the chunks in order, and all decide
// together whether to stop.
//
// Classes (dimension, relative tolerance): S 6, 1e-3; W 6, 2.5e-4;
// A 8, 1e-4; B 8, 2e-5; C 10, 5e-6. Checks: the run stopped on the
// tolerance, not on the batch limit, and the estimate is within 5 standard
// errors of the closed form. The checksum holds the batches, the samples and
// the estimate (bitwise the same for every np).
package main

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/testprogs/internal/progutil"
)

var (
	class      = flag.String("class", "S", "problem class: S, W, A, B or C")
	tolArg     = flag.Float64("tol", 0, "relative standard error at which to stop (0: from -class)")
	maxBatches = flag.Int("max-batches", 100000, "batches after which the run gives up")
	seed       = flag.Uint64("seed", 20261126, "seed of the sample stream")
)

type problem struct {
	dim int
	tol float64
}

var problems = []problem{{6, 1e-3}, {6, 2.5e-4}, {8, 1e-4}, {8, 2e-5}, {10, 5e-6}}

const (
	chunkSize      = 512 // samples per chunk
	chunksPerBatch = 64
	sigmas         = 5 // accepted distance from the closed form, in standard errors
)

// moments accumulates the sum and the sum of squares of samples.
type moments struct {
	n       int64
	sum, sq float64
}

func (m *moments) add(v float64) {
	m.n++
	m.sum += v
	m.sq += v * v
}

func (m moments) mean() float64 { return m.sum / float64(m.n) }

// stdErr is the estimated standard error of the mean.
func (m moments) stdErr() float64 {
	mu := m.mean()
	variance := m.sq/float64(m.n) - mu*mu
	return math.Sqrt(max(variance, 0) / float64(m.n))
}

// integrand is exp(−|x|²).
func integrand(x []float64) float64 {
	var r2 float64
	for _, v := range x {
		r2 += v * v
	}
	return math.Exp(-r2)
}

// exact is the closed form of the integral over [0,1]^dim.
func exact(dim int) float64 {
	return math.Pow(math.Sqrt(math.Pi)/2*math.Erf(1), float64(dim))
}

// sampleChunk draws the chunk with global number chunk and returns its moments.
func sampleChunk(dim int, chunk uint64) moments {
	rng := rand.New(rand.NewPCG(*seed, chunk))
	x := make([]float64, dim)
	var m moments
	for range chunkSize {
		for i := range x {
			x[i] = rng.Float64()
		}
		m.add(integrand(x))
	}
	return m
}

func main() {
	commlib.Main(func(c *commlib.Comm) {
		ci, err := progutil.ClassIndex(*class)
		if err != nil {
			c.Abort(err)
		}
		pr := problems[ci]
		if *tolArg > 0 {
			pr.tol = *tolArg
		}
		rank, np := c.Rank(), c.Size()
		start := commlib.Wtime()

		local := make([]float64, 2*chunksPerBatch) // sum, sum of squares per chunk
		global := make([]float64, 2*chunksPerBatch)
		var total moments
		batches := 0
		converged := false
		for batches < *maxBatches && !converged {
			clear(local)
			for k := rank; k < chunksPerBatch; k += np {
				m := sampleChunk(pr.dim, uint64(batches*chunksPerBatch+k))
				local[2*k], local[2*k+1] = m.sum, m.sq
			}
			c.Allreduce(local, global, commlib.Sum)
			for k := range chunksPerBatch {
				total.n += chunkSize
				total.sum += global[2*k]
				total.sq += global[2*k+1]
			}
			batches++
			converged = total.stdErr() < pr.tol*total.mean()
		}
		elapsed := progutil.Elapsed(start)

		want := exact(pr.dim)
		est, se := total.mean(), total.stdErr()
		progutil.Verify(c, converged, "no convergence to %g after %d batches (standard error %g)", pr.tol, batches, se/est)
		progutil.Verify(c, math.Abs(est-want) < sigmas*se, "estimate %v is %.1f standard errors from the closed form %v",
			est, math.Abs(est-want)/se, want)
		progutil.Printf(c, "montecarlo class %s: d=%d, np=%d, %d batches, %d samples, time %.3f s\n",
			*class, pr.dim, np, batches, total.n, elapsed)
		progutil.Printf(c, "estimate %.10f ± %.2e, closed form %.10f (%.2f standard errors)\n", est, se, want, (est-want)/se)
		progutil.Checksum(c, fmt.Sprintf("batches=%d samples=%d estimate=%s", batches, total.n, progutil.RoundSig(est, 14)))
	})
}
