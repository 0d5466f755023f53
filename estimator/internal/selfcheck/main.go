// Command selfcheck runs the timing pass on test programs at np = 1 and
// prints its self-consistency figures: the wall time of the plain run and
// that of the instrumented run, each from the first rank's start to the
// run's end (measured inside the processes), and their ratio, the
// slowdown; the slowdown of the whole processes (start-up, the probes'
// calibration and exit included); the sum of the compensated fragment
// times, the time spent inside commlib, the coverage (those two together
// against the plain run's wall time), the same against the instrumented
// run's own wall time ("in run": measured in one process, so free of the
// run-to-run noise of a shared machine, but blind to what the probes
// themselves slow down), and the fragments against the plain run's CPU
// time over the same span (the comparison for programs whose threads run
// in parallel).
//
// Each timing pass runs the plain and the instrumented binary -repeat
// times, alternately, and keeps the fastest of each (the machine's other
// load only slows runs down); -runs timing passes are made per program
// and the medians printed.
//
//	go run ./estimator/internal/selfcheck [-class W] [-runs 3] [-repeat 3] [PKG...]
//	go run ./estimator/internal/selfcheck -known   # against a program of known costs
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
	repeat := flag.Int("repeat", 3, "runs of each binary per timing pass, alternated; the fastest is kept")
	known := flag.Bool("known", false, "profile estimator/testdata/known instead: measured against known costs")
	flag.Parse()
	if *known {
		knownCosts(*runs, *repeat)
		return
	}
	pkgs := flag.Args()
	if len(pkgs) == 0 {
		pkgs = []string{"./testprogs/stencil", "./testprogs/stencil2d", "./testprogs/ep", "./testprogs/cg", "./testprogs/ft",
			"./testprogs/amdahl", "./testprogs/masterworker", "./testprogs/hybrid", "./testprogs/pingpong"}
	}
	fmt.Printf("%-26s %10s %10s %9s %9s %10s %10s %9s %8s %8s %8s\n", "program", "plain", "probed", "slowdown", "process",
		"fragments", "in commlib", "coverage", "in run", "of CPU", "±bound")
	for _, pkg := range pkgs {
		var plain, probed, measured, comm, slow, procSlow, cover, inRun, cpuCover, bound []float64
		for range *runs {
			p, err := estimator.Run(estimator.Config{Pattern: pkg, NP: 1, Args: []string{"-class", *class}, Repeat: *repeat})
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", pkg, err)
				os.Exit(1)
			}
			pl, pr := p.PlainRunTime()
			plain = append(plain, float64(pl)/1e9)
			probed = append(probed, float64(pr)/1e9)
			slow = append(slow, float64(pr)/float64(pl))
			procSlow = append(procSlow, float64(p.WallPS)/float64(p.PlainWallPS))
			measured = append(measured, float64(p.MeasuredPS)/1e9)
			comm = append(comm, float64(p.CommPS)/1e9)
			cover = append(cover, p.Coverage())
			inRun = append(inRun, float64(p.MeasuredPS+p.CommPS)/float64(pr))
			cpu := p.PlainRunCPUPS
			if cpu == 0 {
				cpu = p.PlainCPUPS
			}
			cpuCover = append(cpuCover, float64(p.MeasuredPS)/float64(max(cpu, 1)))
			bound = append(bound, p.ErrorRel)
		}
		fmt.Printf("%-26s %8.1fms %8.1fms %8.2fx %8.2fx %8.1fms %8.1fms %8.1f%% %7.1f%% %7.1f%% %7.2f%%\n", pkg, med(plain), med(probed), med(slow),
			med(procSlow), med(measured), med(comm), 100*med(cover), 100*med(inRun), 100*med(cpuCover), 100*med(bound))
	}
}

// knownCosts profiles the program of known costs at np = 1 and prints the
// measured time per iteration of its loops against the known one, and
// their balance degrees.
func knownCosts(runs, repeat int) {
	want := map[string]float64{"balanced": 200e6, "unbalanced": 220e6} // ps per iteration
	got := map[string][]float64{}
	ds := map[string][]float64{}
	for range runs {
		p, err := estimator.Run(estimator.Config{Pattern: "./estimator/testdata/known", NP: 1, Args: []string{"-n", "64"}, Repeat: repeat})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		for _, l := range p.Loops {
			for name := range want {
				if len(l.Node) > len(name) && l.Node[:len(name)+1] == name+"/" {
					got[name] = append(got[name], float64(l.PerIterPS))
					ds[name] = append(ds[name], l.D)
				}
			}
		}
	}
	fmt.Printf("%-12s %14s %14s %9s %8s\n", "loop", "known", "measured", "error", "D")
	for _, name := range []string{"balanced", "unbalanced"} {
		m := med(got[name])
		fmt.Printf("%-12s %12.1fus %12.1fus %8.2f%% %8.3f\n", name, want[name]/1e6, m/1e6, 100*(m-want[name])/want[name], med(ds[name]))
	}
}

func med(xs []float64) float64 {
	slices.Sort(xs)
	return xs[len(xs)/2]
}
