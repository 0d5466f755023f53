// Command exchange measures how long two ranks of the in-process runtime
// lose to each other in a halo exchange: each step both compute a stencil
// sweep of about -work microseconds, then exchange one value (a Sendrecv
// each way around a ring of two). With the process's clock shared by the
// ranks it prints, over the steps, the arrival skew (the later rank's
// arrival at the exchange less the earlier's), the time from the later
// arrival until both ranks are out of the first Sendrecv, and the share
// of steps where that took over 20 µs, with the skew of those steps:
//
//	go run ./commlib/internal/exchange -work 100 -steps 1000
//
// It runs two ranks (the in-process runtime only: the clock must be one).
package main

import (
	"flag"
	"fmt"
	"log"
	"slices"
	"time"

	"github.com/predict-tools/predict/commlib"
)

var (
	work  = flag.Int("work", 100, "compute per step, in `MICROSECONDS` (about)")
	steps = flag.Int("steps", 1000, "steps")
)

func main() {
	flag.Parse()
	if *work < 1 || *steps < 20 {
		log.Fatalf("-work %d -steps %d: want at least 1 µs and 20 steps", *work, *steps)
	}
	n := elements(time.Duration(*work) * time.Microsecond)
	var arrive, out [2][]time.Duration
	t0 := time.Now()
	err := commlib.Run(2, func(c *commlib.Comm) {
		r := c.Rank()
		v := make([]float64, n+2)
		for i := range v {
			v[i] = float64(i % 7)
		}
		arrive[r], out[r] = make([]time.Duration, *steps), make([]time.Duration, *steps)
		for s := range *steps {
			arrive[r][s] = time.Since(t0)
			c.Sendrecv(v[1:2], 1-r, 0, v[n+1:n+2], 1-r, 0)
			out[r][s] = time.Since(t0)
			sweep(v)
		}
	})
	if err != nil {
		log.Fatal(err)
	}
	var skew, after, slowSkew []float64
	for s := *steps / 10; s < *steps; s++ { // the first tenth: warm-up
		late := max(arrive[0][s], arrive[1][s])
		sk := float64(late-min(arrive[0][s], arrive[1][s])) / 1e3
		af := float64(max(out[0][s], out[1][s])-late) / 1e3
		skew, after = append(skew, sk), append(after, af)
		if af > 20 {
			slowSkew = append(slowSkew, sk)
		}
	}
	fmt.Printf("two ranks, %d steps of about %d µs of compute, then a Sendrecv each way (the first tenth dropped)\n", *steps, *work)
	show("arrival skew", skew)
	show("later arrival → both out", after)
	fmt.Printf("steps over 20 µs from the later arrival: %d of %d (%.1f %%)\n", len(slowSkew), len(after), 100*float64(len(slowSkew))/float64(len(after)))
	if len(slowSkew) > 0 {
		show("  their arrival skew", slowSkew)
	}
}

// show prints the mean and percentiles of xs (µs).
func show(name string, xs []float64) {
	xs = slices.Clone(xs)
	slices.Sort(xs)
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	at := func(p float64) float64 { return xs[min(int(p*float64(len(xs))), len(xs)-1)] }
	fmt.Printf("%-26s mean %7.2f µs  p50 %7.2f  p90 %7.2f  p99 %7.2f\n", name, sum/float64(len(xs)), at(0.5), at(0.9), at(0.99))
}

// sweep is a 3-point stencil sweep in place.
func sweep(v []float64) {
	for k := 1; k < len(v)-1; k++ {
		v[k] = 0.5*v[k] + 0.25*(v[k-1]+v[k+1])
	}
}

// elements is the length of an array whose sweep takes about d.
func elements(d time.Duration) int {
	v := make([]float64, 4096)
	best := time.Hour
	for range 5 {
		t := time.Now()
		for range 10 {
			sweep(v)
		}
		best = min(best, time.Since(t))
	}
	perElem := float64(best) / (10 * 4096)
	return max(int(float64(d)/perElem), 3)
}
