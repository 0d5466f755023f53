// Command checks tests its parameters against the process count the way
// real programs do, and ends the run when they do not fit; the
// interpreter must end the modeled run the same way at the np where the
// real run ends, and predict normally elsewhere. It also verifies its
// result, a check on data the model does not compute (assumed to pass).
//
//	go run ./interp/testdata/checks -np 3           # aborts: 4096 % 3 != 0
//	go run ./interp/testdata/checks -np 4           # runs
//	go run ./interp/testdata/checks -np 4 -min 2048 # aborts in require
package main

import (
	"flag"
	"fmt"
	"log"
	"os"

	"github.com/predict-tools/predict/commlib"
)

var (
	n         = flag.Int("n", 1<<12, "points, divided evenly among the ranks")
	minPoints = flag.Int("min", 1, "fewest points per rank")
	iters     = flag.Int("iters", 3, "iterations")
	maxIters  = flag.Int("max", 100, "most iterations")
	how       = flag.String("how", "abort", "how a rank ends the run when -n does not divide: abort, panic, fatal or exit")
)

// require ends the run when a parameter test fails: a check of a
// parameter, which the model evaluates where its callers pass values
// computed from control values.
func require(c *commlib.Comm, ok bool, format string, args ...any) {
	if !ok {
		c.Abort(fmt.Errorf(format, args...))
	}
}

func main() {
	flag.Parse()
	if *iters < 0 {
		log.Fatalf("-iters %d: want at least 0", *iters)
	}
	commlib.Main(func(c *commlib.Comm) {
		np := c.Size()
		if *n%np != 0 {
			msg := fmt.Sprintf("n=%d not divisible by np=%d", *n, np)
			switch *how {
			case "panic":
				panic(msg)
			case "fatal":
				log.Fatal(msg)
			case "exit":
				os.Exit(3)
			}
			c.Abort(fmt.Errorf("%s", msg))
		}
		require(c, *n/np >= *minPoints, "np=%d leaves %d points per rank, fewer than -min %d", np, *n/np, *minPoints)
		local := make([]float64, *n/np)
		for i := range local {
			local[i] = 1
		}
		sum := make([]float64, 1)
		for range *iters {
			part := 0.0
			for _, v := range local {
				part += v
			}
			c.Allreduce([]float64{part}, sum, commlib.Sum)
		}
		// A check of a parameter whose message shows data: the model
		// evaluates the check but cannot tell the message.
		if *iters > *maxIters {
			c.Abort(fmt.Errorf("-iters %d is more than -max %d (sum so far %g)", *iters, *maxIters, sum[0]))
		}
		// A check of the result: it depends on the data, which the model
		// does not compute.
		if *iters > 0 && sum[0] != float64(*n) {
			c.Abort(fmt.Errorf("sum %g, want %d", sum[0], *n))
		}
	})
}
