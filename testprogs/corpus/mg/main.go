// Command mg solves the 1-D Poisson problem -u” = f on (0, 1), u(0) =
// u(1) = 0, with geometric multigrid V-cycles, in the manner of the NAS
// Parallel Benchmarks' MG kernel. The right-hand side is f(x) = π² sin(πx) +
// 16π² sin(4πx), whose solution is sin(πx) + sin(4πx).
//
// The finest grid has 2^L intervals; every coarser level halves them down to
// 2^coarseLevel intervals, where the problem is solved exactly. A V-cycle
// (the recursive vcycle) pre-smooths with weighted Jacobi, restricts the
// residual by full weighting, recurses, prolongs the correction by linear
// interpolation and post-smooths.
//
// Communication pattern: the coarsest grid's 2^coarseLevel segments are
// block-distributed over the ranks and every level inherits that split, so
// a coarse point always lives on the rank of the fine point below it. Each
// smoothing sweep, residual and prolongation exchanges one halo value with
// each neighbour by Sendrecv (ProcNull at the ends), on every level; the
// coarsest level's right-hand side is gathered on every rank with
// Allgatherv and solved there by the Thomas algorithm; each cycle ends with
// an Allreduce of the squared residual. The solution is gathered on rank 0
// with Gatherv at the end.
//
// Classes (L, cycles): S 2^14, 8; W 2^20, 12; A 2^23, 12; B 2^26, 20; C 2^28,
// 20. np may be at most 2^coarseLevel. Every operation is pointwise and the
// coarse solve is done identically on every rank, so the solution is the
// same bit for bit for every np; the checksum is its FNV-64a hash. The run
// verifies that the residual fell by at least a factor 10 per cycle on
// average (or to the rounding floor of the finest grid) and that the error against the exact solution is at the level of
// the discretization error.
package main

import (
	"flag"
	"fmt"
	"math"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/testprogs/internal/progutil"
)

var (
	class  = flag.String("class", "S", "problem class: S, W, A, B or C")
	cycles = flag.Int("cycles", 0, "V-cycles (0: from -class)")
	pre    = flag.Int("pre", 2, "pre-smoothing sweeps per level")
	post   = flag.Int("post", 2, "post-smoothing sweeps per level")
)

var (
	classLevels = []int{14, 20, 23, 26, 28}
	classCycles = []int{8, 12, 12, 20, 20}
)

// epsilon is the float64 machine epsilon.
const epsilon = 0x1p-52

// coarseLevel is the level solved directly: 2^coarseLevel intervals.
const coarseLevel = 6

func main() {
	commlib.Main(func(c *commlib.Comm) {
		ci, err := progutil.ClassIndex(*class)
		if err != nil {
			c.Abort(err)
		}
		top := classLevels[ci]
		ncycles := classCycles[ci]
		if *cycles > 0 {
			ncycles = *cycles
		}
		np := c.Size()
		if np > 1<<coarseLevel {
			c.Abort(fmt.Errorf("mg splits its coarsest grid of %d segments over the ranks: np=%d is too many", 1<<coarseLevel, np))
		}
		progutil.NeedMemory(c, *class, int64(4*8)*int64(2<<top)/int64(np)+int64(8<<top)/int64(np))

		s := newSolver(c, top)
		s.setRHS()
		start := commlib.Wtime()
		first := s.residualNorm()
		norm := first
		for cyc := 1; cyc <= ncycles; cyc++ {
			s.vcycle(top)
			norm = s.residualNorm()
			progutil.Printf(c, "  cycle %2d: residual %s\n", cyc, progutil.RoundSig(norm, 4))
		}
		elapsed := progutil.Elapsed(start)

		solution := s.gather()
		if c.Rank() != 0 {
			return
		}
		progutil.Printf(c, "mg class %s: n=2^%d, np=%d, %d cycles, time %.3f s\n", *class, top, np, ncycles, elapsed)
		n := 1 << top
		h := 1 / float64(n)
		// The residual cannot fall below the rounding of A u: about ε/h².
		floor := 16 * epsilon / (h * h)
		factor := math.Pow(norm/first, 1/float64(ncycles))
		progutil.Verify(c, factor < 0.1 || norm < floor,
			"residual fell from %g to %g in %d cycles: %.3g per cycle, want < 0.1 (or below the rounding floor %g)", first, norm, ncycles, factor, floor)
		maxErr := 0.0
		for i, v := range solution {
			maxErr = max(maxErr, math.Abs(v-exact(float64(i+1)*h)))
		}
		// The discretization error is about h²·max|u''''|/12 ≈ (4π)⁴h²/12.
		bound := 4 * math.Pow(4*math.Pi, 4) * h * h / 12
		if ncycles >= 6 {
			progutil.Verify(c, maxErr < bound, "max error %g against the exact solution, discretization bound %g", maxErr, bound)
		}
		progutil.Printf(c, "residual reduced %.3g per cycle, max error %.3e (bound %.3e)\n", factor, maxErr, bound)
		progutil.Checksum(c, fmt.Sprintf("cycles=%d fnv=%016x", ncycles, progutil.HashFloats(solution)))
	})
}

// exact is the solution of the continuous problem.
func exact(x float64) float64 { return math.Sin(math.Pi*x) + math.Sin(4*math.Pi*x) }

// source is the right-hand side f = -u”.
func source(x float64) float64 {
	return math.Pi*math.Pi*math.Sin(math.Pi*x) + 16*math.Pi*math.Pi*math.Sin(4*math.Pi*x)
}
