// Command threads is a program of known per-thread cost for the tests of
// the timing pass: the rank's main thread runs a busy loop of fixed work
// (alone, -reps times, by default as many as there are threads, so that
// the same entries of both loops run the loop's sampled copy, whose code
// differs), then a pool of -threads threads, more than the
// machine's cores, runs the same loop once per thread, all at once. Each
// loop is long enough (tens of milliseconds) for the Go scheduler to
// interleave the threads, so a thread's loop takes several times its own
// compute in wall time; the timing pass must measure the same time per
// iteration on the threads as on the main thread.
package main

import (
	"flag"

	"github.com/predict-tools/predict/commlib"
)

var (
	threads = flag.Int("threads", 8, "pool threads")
	iters   = flag.Int("iters", 20_000_000, "iterations of each busy loop")
	reps    = flag.Int("reps", 8, "busy loops of the main thread (as many as threads: the same entries of both loops are sampled)")
)

// sink keeps the loops' results.
var sink [64]uint64

// alone is the busy loop of the main thread: a chain of dependent
// multiply-adds, no memory traffic.
func alone(n int) {
	x := uint64(n)
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	sink[0] += x
}

// shared is the same loop run by the pool's threads.
func shared(tid, n int) {
	x := uint64(n)
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	sink[tid%len(sink)] += x
}

func main() {
	commlib.Main(func(c *commlib.Comm) {
		for range *reps { // the barrier keeps this loop from being timed whole
			alone(*iters)
			c.Barrier()
		}
		pool := c.NewPool(*threads)
		defer pool.Close()
		for range *threads {
			pool.SetTask(func(tid int) float64 {
				shared(tid, *iters)
				return 0
			})
		}
		pool.WaitForAll()
	})
}
