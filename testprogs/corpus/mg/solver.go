// This file defines the multigrid hierarchy of one rank: the levels with
// their local slices and halos, the smoother, the residual, the transfers
// between levels, the coarse solve and the recursive V-cycle.

package main

import (
	"math"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/testprogs/internal/progutil"
)

// omega is the weight of the Jacobi smoother (2/3 damps the upper half of
// the spectrum best in 1-D).
const omega = 2.0 / 3.0

const (
	tagToLeft  = 10
	tagToRight = 11
)

// level is one grid of the hierarchy as a rank holds it. Local index k in
// 1..cnt is the global point lo+k-1; index 0 and cnt+1 are halos (or the
// boundary). Global point 0 is the boundary u(0) = 0 and is never updated;
// global point n is u(1) = 0, the last rank's right halo.
type level struct {
	n       int     // intervals
	h       float64 // mesh width
	lo, cnt int     // first global point held and their number
	u, f    []float64
	r, tmp  []float64
}

// solver holds the levels coarseLevel..top of one rank.
type solver struct {
	c           *commlib.Comm
	top         int
	levels      []*level // indexed by level number
	left, right int
	coarse      []float64 // the coarsest right-hand side, gathered
	counts      []int     // coarsest points of every rank
	displs      []int
	one, sum    []float64
}

func newSolver(c *commlib.Comm, top int) *solver {
	rank, np := c.Rank(), c.Size()
	s := &solver{c: c, top: top, levels: make([]*level, top+1), left: rank - 1, right: rank + 1,
		one: make([]float64, 1), sum: make([]float64, 1)}
	if s.left < 0 {
		s.left = commlib.ProcNull
	}
	if s.right >= np {
		s.right = commlib.ProcNull
	}
	segFirst, segCount := progutil.Block(1<<coarseLevel, rank, np)
	for l := coarseLevel; l <= top; l++ {
		scale := 1 << (l - coarseLevel)
		cnt := segCount * scale
		s.levels[l] = &level{
			n: 1 << l, h: 1 / float64(int(1)<<l),
			lo: segFirst * scale, cnt: cnt,
			u: make([]float64, cnt+2), f: make([]float64, cnt+2),
			r: make([]float64, cnt+2), tmp: make([]float64, cnt+2),
		}
	}
	s.coarse = make([]float64, 1<<coarseLevel)
	s.counts = make([]int, np)
	s.displs = make([]int, np)
	for r := range np {
		s.displs[r], s.counts[r] = progutil.Block(1<<coarseLevel, r, np)
	}
	return s
}

// setRHS fills the finest level's right-hand side.
func (s *solver) setRHS() {
	lv := s.levels[s.top]
	for k := 1; k <= lv.cnt; k++ {
		lv.f[k] = source(float64(lv.lo+k-1) * lv.h)
	}
}

// firstUpdated returns the first local index that is an unknown: index 1
// unless it is the boundary point 0.
func (lv *level) firstUpdated() int {
	if lv.lo == 0 {
		return 2
	}
	return 1
}

// exchange fills the halos of v with the neighbours' edge values.
func (s *solver) exchange(v []float64) {
	n := len(v) - 2
	s.c.Sendrecv(v[1:2], s.left, tagToLeft, v[n+1:n+2], s.right, tagToLeft)
	s.c.Sendrecv(v[n:n+1], s.right, tagToRight, v[0:1], s.left, tagToRight)
}

// smooth does one weighted Jacobi sweep on lv.
func (s *solver) smooth(lv *level) {
	s.exchange(lv.u)
	u, next, f := lv.u, lv.tmp, lv.f
	h2 := lv.h * lv.h
	for k := lv.firstUpdated(); k <= lv.cnt; k++ {
		jacobi := 0.5 * (u[k-1] + u[k+1] + h2*f[k])
		next[k] = u[k] + omega*(jacobi-u[k])
	}
	lv.u, lv.tmp = next, u
}

// residual computes lv.r = f - A u.
func (s *solver) residual(lv *level) {
	s.exchange(lv.u)
	u, r, f := lv.u, lv.r, lv.f
	inv := 1 / (lv.h * lv.h)
	for k := lv.firstUpdated(); k <= lv.cnt; k++ {
		r[k] = f[k] - (2*u[k]-u[k-1]-u[k+1])*inv
	}
}

// restrict sets the coarse right-hand side to the full-weighting restriction
// of the fine residual and the coarse unknowns to zero.
func (s *solver) restrict(fine, coarse *level) {
	s.exchange(fine.r)
	for kc := 1; kc <= coarse.cnt; kc++ {
		coarse.u[kc] = 0
		g := coarse.lo + kc - 1
		if g == 0 {
			coarse.f[kc] = 0
			continue
		}
		kf := 2*g - fine.lo + 1
		coarse.f[kc] = 0.25 * (fine.r[kf-1] + 2*fine.r[kf] + fine.r[kf+1])
	}
}

// prolong adds the linear interpolation of the coarse correction to the
// fine unknowns.
func (s *solver) prolong(coarse, fine *level) {
	s.exchange(coarse.u)
	at := func(g int) float64 { return coarse.u[g-coarse.lo+1] }
	for kf := fine.firstUpdated(); kf <= fine.cnt; kf++ {
		g := fine.lo + kf - 1
		if g%2 == 0 {
			fine.u[kf] += at(g / 2)
		} else {
			fine.u[kf] += 0.5 * (at((g-1)/2) + at((g+1)/2))
		}
	}
}

// solveCoarse gathers the coarsest right-hand side on every rank and solves
// the tridiagonal system exactly with the Thomas algorithm; every rank keeps
// its own points of the solution.
func (s *solver) solveCoarse(lv *level) {
	s.c.Allgatherv(lv.f[1:lv.cnt+1], s.coarse, s.counts, s.displs)
	n := lv.n
	inv := 1 / (lv.h * lv.h)
	// Unknowns 1..n-1: (2u_i - u_{i-1} - u_{i+1})/h² = f_i.
	cp := make([]float64, n)
	dp := make([]float64, n)
	diag, off := 2*inv, -inv
	for i := 1; i < n; i++ {
		den := diag
		rhs := s.coarse[i]
		if i > 1 {
			den -= off * cp[i-1]
			rhs -= off * dp[i-1]
		}
		cp[i] = off / den
		dp[i] = rhs / den
	}
	sol := make([]float64, n+1)
	for i := n - 1; i >= 1; i-- {
		sol[i] = dp[i] - cp[i]*sol[i+1]
	}
	for k := 1; k <= lv.cnt; k++ {
		lv.u[k] = sol[lv.lo+k-1]
	}
}

// vcycle runs one V-cycle from level l down to the coarsest and back.
func (s *solver) vcycle(l int) {
	lv := s.levels[l]
	if l == coarseLevel {
		s.solveCoarse(lv)
		return
	}
	for range *pre {
		s.smooth(lv)
	}
	s.residual(lv)
	coarse := s.levels[l-1]
	s.restrict(lv, coarse)
	s.vcycle(l - 1)
	s.prolong(coarse, lv)
	for range *post {
		s.smooth(lv)
	}
}

// residualNorm returns the global 2-norm of the finest residual times h.
func (s *solver) residualNorm() float64 {
	lv := s.levels[s.top]
	s.residual(lv)
	sum := 0.0
	for k := lv.firstUpdated(); k <= lv.cnt; k++ {
		sum += lv.r[k] * lv.r[k]
	}
	s.one[0] = sum
	s.c.Allreduce(s.one, s.sum, commlib.Sum)
	return math.Sqrt(s.sum[0] * lv.h)
}

// gather collects the finest solution on rank 0: the values at the global
// points 1..n-1.
func (s *solver) gather() []float64 {
	lv := s.levels[s.top]
	np := s.c.Size()
	var all []float64
	counts := make([]int, np)
	displs := make([]int, np)
	if s.c.Rank() == 0 {
		all = make([]float64, lv.n)
		scale := 1 << (s.top - coarseLevel)
		for r := range np {
			displs[r], counts[r] = s.displs[r]*scale, s.counts[r]*scale
		}
	}
	s.c.Gatherv(lv.u[1:lv.cnt+1], all, counts, displs, 0)
	if all == nil {
		return nil
	}
	return all[1:]
}
