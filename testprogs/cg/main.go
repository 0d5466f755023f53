// Command cg is the NAS Parallel Benchmarks' CG kernel: it estimates the
// smallest eigenvalue of a large sparse symmetric positive-definite matrix by
// inverse power iteration. Each of niter outer iterations solves A z = x with
// exactly 25 conjugate-gradient iterations (no convergence test), computes
// zeta = shift + 1/(x·z) and normalises x = z/‖z‖. The matrix is NPB's
// (makea/sprnvc/vecset/sparse with the NPB linear congruential generator,
// a = 5^13 mod 2^46, seed 314159265): a sum of na random sparse outer
// products with geometrically decreasing weights, plus (rcond − shift)·I.
// NPB's untimed warm-up solve is left out (it does not change zeta).
//
// Communication pattern: the rows (and the pieces of every vector) are
// block-distributed over the ranks, the first na%np ranks getting one row
// more; every rank generates the same random vectors and keeps the matrix
// entries of its own rows. Each CG iteration gathers the whole search
// direction p with Allgatherv for the sparse matrix-vector product and
// reduces two dot products (p·q and r·r) with Allreduce. The explicit
// residual ‖x − A z‖ at the end of each solve needs one more Allgatherv and
// Allreduce, and the outer iteration one more Allreduce of two sums.
//
// Classes (na, nonzer, niter, shift): S 1400, 7, 15, 10; W 7000, 8, 15, 12;
// A 14000, 11, 15, 20; B 75000, 13, 75, 60; C 150000, 15, 75, 110 — NPB's
// sizes. zeta is verified against NPB's reference values (relative
// tolerance 1e-10, as NPB does) and every solve's residual must be small.
// The checksum is zeta at 8 significant digits: the dot products are
// reduced in an order that depends on np, the value does not.
package main

import (
	"flag"
	"fmt"
	"math"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/testprogs/internal/progutil"
)

var class = flag.String("class", "S", "problem class: S, W, A, B or C")

// problem holds the parameters of one NPB CG class.
type problem struct {
	na      int     // matrix order
	nonzer  int     // nonzeros of each random sparse vector
	niter   int     // outer (power method) iterations
	shift   float64 // shift of the eigenvalue estimate
	zetaRef float64 // NPB's verification value of zeta
}

var problems = []problem{
	{1400, 7, 15, 10, 8.5971775078648},
	{7000, 8, 15, 12, 10.362595087124},
	{14000, 11, 15, 20, 17.130235054029},
	{75000, 13, 75, 60, 22.712745482631},
	{150000, 15, 75, 110, 28.973605592845},
}

const (
	cgIters    = 25    // CG iterations per outer iteration (NPB's cgitmax)
	rcond      = 0.1   // lower bound of the smallest eigenvalue of the generated part
	zetaTol    = 1e-10 // NPB's relative tolerance for zeta
	residTol   = 1e-10 // largest accepted ‖x − A z‖ / ‖x‖ after a solve
	zetaDigits = 8
)

func main() {
	commlib.Main(func(c *commlib.Comm) {
		ci, err := progutil.ClassIndex(*class)
		if err != nil {
			c.Abort(err)
		}
		pr := problems[ci]
		rank, np := c.Rank(), c.Size()
		if np > pr.na {
			c.Abort(fmt.Errorf("class %s has %d rows, fewer than np=%d", *class, pr.na, np))
		}
		progutil.NeedMemory(c, *class, memoryPerRank(pr, np))

		counts := make([]int, np)
		displs := make([]int, np)
		for r := range np {
			displs[r], counts[r] = block(pr.na, r, np)
		}
		lo, nloc := displs[rank], counts[rank]

		start := commlib.Wtime()
		m := makeMatrix(pr, lo, lo+nloc)

		x := make([]float64, nloc)
		z := make([]float64, nloc)
		s := newSolver(c, m, counts, displs)
		for i := range x {
			x[i] = 1
		}
		norms := make([]float64, 3) // x·z, z·z, x·x
		sums := make([]float64, 3)
		zeta := 0.0
		for it := 1; it <= pr.niter; it++ {
			rnorm := s.conjGrad(x, z)
			norms[0], norms[1], norms[2] = 0, 0, 0
			for i := range z {
				norms[0] += x[i] * z[i]
				norms[1] += z[i] * z[i]
				norms[2] += x[i] * x[i]
			}
			c.Allreduce(norms, sums, commlib.Sum)
			xnorm := math.Sqrt(sums[2])
			progutil.Verify(c, rnorm <= residTol*xnorm,
				"outer iteration %d: residual ‖x − A z‖ = %g, more than %g·‖x‖ = %g", it, rnorm, residTol, residTol*xnorm)
			scale := 1 / math.Sqrt(sums[1])
			zeta = pr.shift + 1/sums[0]
			for i := range x {
				x[i] = scale * z[i]
			}
			if it == 1 || it == pr.niter {
				progutil.Printf(c, "  iteration %3d: rnorm %.6e zeta %.13f\n", it, rnorm, zeta)
			}
		}
		elapsed := progutil.Elapsed(start)
		nonzeros := s.nonzeros() // collective: every rank calls it

		progutil.Printf(c, "cg class %s: na=%d, np=%d, nonzeros=%d, time %.3f s\n", *class, pr.na, np, nonzeros, elapsed)
		rel := math.Abs(zeta-pr.zetaRef) / pr.zetaRef
		progutil.Verify(c, rel <= zetaTol, "zeta = %.13f, NPB reference %.13f (relative error %.2e > %g)", zeta, pr.zetaRef, rel, zetaTol)
		progutil.Printf(c, "zeta matches NPB's reference (relative error %.1e)\n", rel)
		progutil.Checksum(c, "zeta="+progutil.RoundSig(zeta, zetaDigits))
	})
}

// block returns the first index and the length of rank's part of n items
// split over np ranks, the first n%np ranks getting one item more.
func block(n, rank, np int) (first, count int) {
	q, r := n/np, n%np
	count = q
	if rank < r {
		count++
	}
	first = rank*q + min(rank, r)
	return first, count
}

// memoryPerRank estimates the bytes one rank allocates: its rows of the
// matrix (with duplicates before assembly), the random vectors, and the
// vectors of the solver.
func memoryPerRank(pr problem, np int) int64 {
	na, nz := int64(pr.na), int64(pr.nonzer+1)
	entries := na * nz * nz / int64(np) // upper bound of the local entries
	return entries*(16+12) + na*nz*12 + na*8*2 + na/int64(np)*8*8
}

// solver holds one rank's part of the CG computation.
type solver struct {
	c      *commlib.Comm
	m      *matrix
	counts []int // rows of every rank
	displs []int // first row of every rank
	full   []float64
	p      []float64
	q      []float64
	r      []float64
	one    []float64
	sum    []float64
}

func newSolver(c *commlib.Comm, m *matrix, counts, displs []int) *solver {
	nloc := counts[c.Rank()]
	return &solver{
		c: c, m: m, counts: counts, displs: displs,
		full: make([]float64, m.n),
		p:    make([]float64, nloc),
		q:    make([]float64, nloc),
		r:    make([]float64, nloc),
		one:  make([]float64, 1),
		sum:  make([]float64, 1),
	}
}

// dot returns the global dot product of two distributed vectors.
func (s *solver) dot(a, b []float64) float64 {
	d := 0.0
	for i := range a {
		d += a[i] * b[i]
	}
	s.one[0] = d
	s.c.Allreduce(s.one, s.sum, commlib.Sum)
	return s.sum[0]
}

// multiply computes out = A v for the local rows, gathering the whole v first.
func (s *solver) multiply(v, out []float64) {
	s.c.Allgatherv(v, s.full, s.counts, s.displs)
	s.m.multiply(s.full, out)
}

// conjGrad runs cgIters conjugate-gradient iterations for A z = x from z = 0
// and returns the explicit residual norm ‖x − A z‖.
func (s *solver) conjGrad(x, z []float64) float64 {
	p, q, r := s.p, s.q, s.r
	for i := range x {
		z[i] = 0
		r[i] = x[i]
		p[i] = x[i]
	}
	rho := s.dot(r, r)
	for range cgIters {
		s.multiply(p, q)
		alpha := rho / s.dot(p, q)
		rho0 := rho
		for i := range z {
			z[i] += alpha * p[i]
			r[i] -= alpha * q[i]
		}
		rho = s.dot(r, r)
		beta := rho / rho0
		for i := range p {
			p[i] = r[i] + beta*p[i]
		}
	}
	s.multiply(z, r)
	for i := range r {
		r[i] = x[i] - r[i]
	}
	return math.Sqrt(s.dot(r, r))
}

// nonzeros returns the number of stored matrix entries over all ranks.
func (s *solver) nonzeros() int64 {
	local := []int64{int64(len(s.m.val))}
	total := make([]int64, 1)
	s.c.Allreduce(local, total, commlib.Sum)
	return total[0]
}
