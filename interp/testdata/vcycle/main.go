// Command vcycle solves the 1-D Poisson problem -u” = 1 on (0, 1), u = 0 at
// both ends (the last rank's last point is the right end), with multigrid
// V-cycles: a recursive function smooths with
// weighted Jacobi (a halo exchange with both neighbours per sweep),
// restricts the residual to the next coarser grid, recurses, prolongs the
// correction back and smooths again. Every level is block-distributed
// over the ranks. It is the interpreter's test of recursive functions
// whose calls communicate: the model must plan them without recursing
// forever and say that their time is not modeled.
//
// Rank 0 checks that the residual fell by the factor -reduction over the
// cycles.
package main

import (
	"flag"
	"fmt"
	"math"

	"github.com/predict-tools/predict/commlib"
)

var (
	n      = flag.Int("n", 1<<12, "interior points of the finest grid per rank")
	levels = flag.Int("levels", 16, "the most grid levels (coarsening stops at 2 points a rank)")
	cycles = flag.Int("cycles", 8, "V-cycles")
	sweeps = flag.Int("sweeps", 3, "smoothing sweeps before and after the coarse correction")
	reduc  = flag.Float64("reduction", 1e-3, "the residual must fall by this factor")
)

const (
	tagLeft  = 1
	tagRight = 2
)

func main() {
	commlib.Main(func(c *commlib.Comm) {
		if *n < 2 || *n&(*n-1) != 0 {
			c.Abort(fmt.Errorf("-n %d is not a power of 2", *n))
		}
		np := c.Size()
		h := 1 / float64(*n*np)
		u := make([]float64, *n+2) // with one halo point each side
		f := make([]float64, *n+2)
		for i := range f {
			f[i] = 1
		}
		r0 := residualNorm(c, u, f, *n, h)
		for range *cycles {
			vcycle(c, 0, u, f, *n, h)
		}
		r := residualNorm(c, u, f, *n, h)
		if c.Rank() == 0 {
			if !(r < *reduc*r0) {
				c.Abort(fmt.Errorf("residual %.3g after %d cycles, from %.3g: not reduced by %g", r, *cycles, r0, *reduc))
			}
			fmt.Printf("residual %.3g -> %.3g after %d V-cycles\n", r0, r, *cycles)
		}
	})
}

// vcycle improves u on level (n points a rank, spacing h) towards a
// solution of -u” = f.
func vcycle(c *commlib.Comm, level int, u, f []float64, n int, h float64) {
	smooth(c, u, f, n, h, *sweeps)
	if level == *levels-1 || n <= 2 {
		smooth(c, u, f, n, h, 10**sweeps) // the coarsest grid: smoothing is enough
		return
	}
	// The residual, restricted by full weighting to n/2 coarse points.
	res := make([]float64, n+2)
	halo(c, u, n)
	for i := 1; i <= owned(c, n); i++ {
		res[i] = f[i] - (2*u[i]-u[i-1]-u[i+1])/(h*h)
	}
	halo(c, res, n)
	m := n / 2
	fc := make([]float64, m+2)
	for i := 1; i <= m; i++ {
		fc[i] = 0.25*res[2*i-1] + 0.5*res[2*i] + 0.25*res[2*i+1]
	}
	ec := make([]float64, m+2)
	vcycle(c, level+1, ec, fc, m, 2*h) // coarse spacing: twice the fine one; mark:recurse
	// Prolong the correction linearly and add it.
	halo(c, ec, m)
	for i := 1; i <= m; i++ {
		u[2*i] += ec[i]
		u[2*i-1] += 0.5 * (ec[i-1] + ec[i])
	}
	smooth(c, u, f, n, h, *sweeps)
}

// smooth runs weighted Jacobi sweeps, each after a halo exchange.
func smooth(c *commlib.Comm, u, f []float64, n int, h float64, k int) {
	next := make([]float64, n+2)
	for range k {
		halo(c, u, n)
		for i := 1; i <= owned(c, n); i++ {
			next[i] = u[i] + 2.0/3*(0.5*(u[i-1]+u[i+1]+h*h*f[i])-u[i])
		}
		copy(u[1:owned(c, n)+1], next[1:owned(c, n)+1])
	}
}

// halo exchanges the end points with the neighbours (zero beyond the
// domain's ends).
func halo(c *commlib.Comm, u []float64, n int) {
	left, right := c.Rank()-1, c.Rank()+1
	if left < 0 {
		left = commlib.ProcNull
		u[0] = 0
	}
	if right >= c.Size() {
		right = commlib.ProcNull
		u[n], u[n+1] = 0, 0
	}
	c.Sendrecv(u[1:2], left, tagLeft, u[n+1:n+2], right, tagLeft) // mark:halo
	c.Sendrecv(u[n:n+1], right, tagRight, u[0:1], left, tagRight)
}

// owned is the last point a rank updates: the last rank's last point is
// the domain's right end, on every level.
func owned(c *commlib.Comm, n int) int {
	if c.Rank() == c.Size()-1 {
		return n - 1
	}
	return n
}

// residualNorm is the global 2-norm of f + u”.
func residualNorm(c *commlib.Comm, u, f []float64, n int, h float64) float64 {
	halo(c, u, n)
	var s float64
	for i := 1; i <= owned(c, n); i++ {
		r := f[i] - (2*u[i]-u[i-1]-u[i+1])/(h*h)
		s += r * r
	}
	total := []float64{0}
	c.Allreduce([]float64{s}, total, commlib.Sum)
	return math.Sqrt(total[0])
}
