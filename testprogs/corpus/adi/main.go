// Command adi integrates the 2-D heat equation u_t = u_xx + u_yy on the unit
// square (u = 0 on the boundary) with an alternating-direction implicit
// scheme: each time step is an implicit Euler step along x, then one along
// y (the locally one-dimensional splitting), each a tridiagonal solve per
// grid line by the Thomas algorithm.
//
// Communication pattern: the rows (constant y) are distributed over the
// ranks in blocks of nb = ⌈n/np⌉ (the last ranks may hold fewer). The x
// solves run along the local rows; the y solves need whole columns, so the
// grid is transposed with Alltoall (np blocks of nb×nb values, padded),
// solved along the local columns, and transposed back with a second
// Alltoall. The solution is gathered on rank 0 with Gatherv at the end.
//
// The initial value is the sum of two discrete eigenfunctions of the
// Laplacian, sin(πx)sin(πy) + ½ sin(2πx)sin(3πy); each implicit 1-D step
// multiplies mode k by exactly 1/(1 + 4r sin²(kπh/2)) (r = Δt/h²), so the
// run checks every point against that closed form. Every line is solved the
// same way whatever the distribution, so the solution is the same bit for
// bit for every np and the checksum is its FNV-64a hash.
//
// Classes (n×n, steps): S 128², 10; W 512², 16; A 2048², 50; B 4096², 100;
// C 8192², 200.
package main

import (
	"flag"
	"fmt"
	"math"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/testprogs/internal/progutil"
)

var (
	class = flag.String("class", "S", "problem class: S, W, A, B or C")
	dt    = flag.Float64("dt", 1e-4, "time step")
	steps = flag.Int("steps", 0, "time steps (0: from -class)")
)

var (
	classN     = []int{128, 512, 2048, 4096, 8192}
	classSteps = []int{10, 16, 50, 100, 200}
)

// tolerance is the largest accepted difference from the closed form.
const tolerance = 1e-12

// mode is one eigenfunction of the initial value: amp·sin(kx·πx)·sin(ky·πy).
type mode struct {
	kx, ky int
	amp    float64
}

var modes = []mode{{1, 1, 1}, {2, 3, 0.5}}

func main() {
	commlib.Main(func(c *commlib.Comm) {
		ci, err := progutil.ClassIndex(*class)
		if err != nil {
			c.Abort(err)
		}
		n := classN[ci]
		nsteps := classSteps[ci]
		if *steps > 0 {
			nsteps = *steps
		}
		if *dt <= 0 {
			c.Abort(fmt.Errorf("-dt %g: want a positive time step", *dt))
		}
		np := c.Size()
		nb := (n + np - 1) / np
		if (np-1)*nb >= n {
			c.Abort(fmt.Errorf("class %s: %d rows in blocks of %d leave rank %d without rows at np=%d; use another np", *class, n, nb, np-1, np))
		}
		progutil.NeedMemory(c, *class, int64(8*4)*int64(nb)*int64(np*nb)+int64(8*n*n/np))

		h := 1 / float64(n+1)
		r := *dt / (h * h)
		d := newDomain(c, n, nb)
		d.fill(func(x, y float64) float64 {
			v := 0.0
			for _, m := range modes {
				v += m.amp * math.Sin(float64(m.kx)*math.Pi*x) * math.Sin(float64(m.ky)*math.Pi*y)
			}
			return v
		})

		start := commlib.Wtime()
		for range nsteps {
			d.solveRows(r)
			d.transpose(d.rows, d.cols)
			d.solveCols(r)
			d.transpose(d.cols, d.rows)
		}
		elapsed := progutil.Elapsed(start)

		// Each 1-D implicit step multiplies mode k by 1/(1 + 4r sin²(kπh/2)).
		factor := func(k int) float64 {
			s := math.Sin(float64(k) * math.Pi * h / 2)
			return 1 / (1 + 4*r*s*s)
		}
		worst := d.maxError(func(x, y float64) float64 {
			v := 0.0
			for _, m := range modes {
				g := math.Pow(factor(m.kx)*factor(m.ky), float64(nsteps))
				v += g * m.amp * math.Sin(float64(m.kx)*math.Pi*x) * math.Sin(float64(m.ky)*math.Pi*y)
			}
			return v
		})
		progutil.Verify(c, worst < tolerance, "largest difference from the closed form %g, more than %g", worst, tolerance)
		solution := d.gather()

		progutil.Printf(c, "adi class %s: n=%d, np=%d, %d steps, time %.3f s\n", *class, n, np, nsteps, elapsed)
		progutil.Printf(c, "largest difference from the closed form: %.2e\n", worst)
		progutil.Checksum(c, fmt.Sprintf("steps=%d fnv=%016x", nsteps, progutil.HashFloats(solution)))
	})
}
