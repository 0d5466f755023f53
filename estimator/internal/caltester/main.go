// Command caltester is the network part of predict calibrate as a program
// of its own, for predict calibrate --launcher: built with -tags mpi and
// run by the launcher, one process a rank, it measures what
// estimator.CalibrateNetwork measures between ranks 0 and 1 and rank 0
// writes it as JSON to -o (with "error" set when the calibration was
// refused). Without the mpi tag it runs its ranks as goroutines (-np 2).
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/estimator"
)

func main() {
	out := flag.String("o", "", "write rank 0's measurements to `FILE` (JSON)")
	quick := flag.Bool("quick", false, "fewer sizes to a wider interval")
	ci := flag.Float64("ci", 0, "the relative half-width every mean must reach (0: the default)")
	budget := flag.Duration("budget", 0, "the time each quantity may take (0: the default)")
	maxBytes := flag.Int64("max-bytes", 0, "the largest ping-pong message (0: 4 MiB)")
	colls := flag.Bool("collectives", false, "time the collectives too")
	cold := flag.Bool("cold", false, "cold buffers: a rotation beyond the caches")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "caltester: -o FILE is required")
		os.Exit(2)
	}
	commlib.Main(func(c *commlib.Comm) {
		opt := estimator.CalibrateOptions{Quick: *quick, RelCI: *ci, Budget: *budget, MaxBytes: *maxBytes, Collectives: *colls, Cold: *cold}
		if c.Rank() == 0 {
			opt.Log = os.Stderr
		}
		cal, err := estimator.CalibrateNetwork(c, opt)
		if c.Rank() != 0 {
			return
		}
		if err != nil {
			cal.Error = err.Error()
		}
		f, ferr := os.Create(*out)
		if ferr == nil {
			ferr = cal.WriteJSON(f)
			if cerr := f.Close(); ferr == nil {
				ferr = cerr
			}
		}
		if ferr != nil {
			fmt.Fprintln(os.Stderr, "caltester:", ferr)
			os.Exit(1)
		}
	})
}
