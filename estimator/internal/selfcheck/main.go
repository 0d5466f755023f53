// Command selfcheck runs the timing pass on test programs at np = 1 and
// prints its self-consistency figures: the wall time of the plain run,
// that of the instrumented run (the slowdown), and the sum of the
// compensated fragment times against the plain wall time.
//
//	go run ./estimator/internal/selfcheck [-class W] [-runs 3] [PKG...]
package main

import (
	"flag"
	"fmt"
	"os"
	"slices"

	"github.com/predict-tools/predict/estimator"
)

func main() {
	class := flag.String("class", "W", "problem class passed to every program")
	runs := flag.Int("runs", 3, "timing passes per program; medians are printed")
	flag.Parse()
	pkgs := flag.Args()
	if len(pkgs) == 0 {
		pkgs = []string{"./testprogs/stencil", "./testprogs/stencil2d", "./testprogs/ep", "./testprogs/cg", "./testprogs/ft",
			"./testprogs/amdahl", "./testprogs/masterworker", "./testprogs/hybrid", "./testprogs/pingpong"}
	}
	fmt.Printf("%-26s %12s %12s %9s %12s %9s %8s\n", "program", "plain", "probed", "slowdown", "measured", "coverage", "±bound")
	for _, pkg := range pkgs {
		var plain, probed, measured, slow, cover, bound []float64
		for range *runs {
			p, err := estimator.Run(estimator.Config{Pattern: pkg, NP: 1, Args: []string{"-class", *class}})
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", pkg, err)
				os.Exit(1)
			}
			plain = append(plain, float64(p.PlainWallPS)/1e9)
			probed = append(probed, float64(p.WallPS)/1e9)
			measured = append(measured, float64(p.MeasuredPS)/1e9)
			slow = append(slow, float64(p.WallPS)/float64(p.PlainWallPS))
			cover = append(cover, float64(p.MeasuredPS)/float64(p.PlainWallPS))
			bound = append(bound, p.ErrorRel)
		}
		fmt.Printf("%-26s %10.1fms %10.1fms %8.2fx %10.1fms %8.1f%% %7.2f%%\n", pkg, med(plain), med(probed), med(slow),
			med(measured), 100*med(cover), 100*med(bound))
	}
}

func med(xs []float64) float64 {
	slices.Sort(xs)
	return xs[len(xs)/2]
}
