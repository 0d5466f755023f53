// Command heat3d diffuses heat in a box of n×n×nz cells with an explicit
// 7-point (or 27-point) stencil, the way it is often written in Go: the
// stencil is a value behind an interface chosen by a flag, and each step
// overlaps the halo exchange with the interior's update.
//
// Communication pattern: the planes are block-distributed over the ranks
// (slabs). Each step a rank posts Irecv for the ghost planes of its two
// neighbours and Isend of its own boundary planes (ProcNull at the box's
// ends), updates its interior planes, waits for all four requests
// (Waitall), then updates its two boundary planes. Every -check steps the
// ranks sum the change with Allreduce. The final heat is summed with a
// position weight (Allreduce).
//
// Classes (n, nz, steps): S 32, 64, 10; W 96, 256, 20; A 192, 512, 40;
// B 384, 1024, 60; C 768, 2048, 80. The update reads only neighbours, so
// the cells are the same at every np; the checksum is the weighted heat to
// 10 significant digits (its sum's order changes with np).
package main

import (
	"flag"
	"fmt"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/testprogs/internal/progutil"
)

var (
	class   = flag.String("class", "S", "problem class: S, W, A, B or C")
	stencil = flag.String("stencil", "7", "the stencil: 7 or 27 points")
	check   = flag.Int("check", 5, "sum the change every check steps")
)

var (
	classN     = []int{32, 96, 192, 384, 768}
	classNZ    = []int{64, 256, 512, 1024, 2048}
	classSteps = []int{10, 20, 40, 60, 80}
)

// kernel updates planes [lo, hi) of dst from src (planes of n×n cells,
// with a ghost plane at each end) and returns the sum of |change|.
type kernel interface {
	apply(dst, src []float64, n, lo, hi int) float64
}

// point7 is the 7-point stencil: a cell and its six face neighbours.
type point7 struct{ alpha float64 }

func (k point7) apply(dst, src []float64, n, lo, hi int) float64 {
	plane := n * n
	change := 0.0
	for z := lo; z < hi; z++ {
		for y := 1; y < n-1; y++ {
			for x := 1; x < n-1; x++ {
				i := z*plane + y*n + x
				lap := src[i-1] + src[i+1] + src[i-n] + src[i+n] + src[i-plane] + src[i+plane] - 6*src[i]
				dst[i] = src[i] + k.alpha*lap
				change += abs(dst[i] - src[i])
			}
		}
	}
	return change
}

// point27 is the 27-point stencil: a cell and its whole 3×3×3 block.
type point27 struct{ alpha float64 }

func (k point27) apply(dst, src []float64, n, lo, hi int) float64 {
	plane := n * n
	change := 0.0
	for z := lo; z < hi; z++ {
		for y := 1; y < n-1; y++ {
			for x := 1; x < n-1; x++ {
				i := z*plane + y*n + x
				sum := 0.0
				for dz := -plane; dz <= plane; dz += plane {
					for dy := -n; dy <= n; dy += n {
						sum += src[i+dz+dy-1] + src[i+dz+dy] + src[i+dz+dy+1]
					}
				}
				dst[i] = src[i] + k.alpha*(sum-27*src[i])
				change += abs(dst[i] - src[i])
			}
		}
	}
	return change
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func main() {
	commlib.Main(func(c *commlib.Comm) {
		ci, err := progutil.ClassIndex(*class)
		if err != nil {
			c.Abort(err)
		}
		var k kernel
		switch *stencil {
		case "7":
			k = point7{alpha: 0.1}
		case "27":
			k = point27{alpha: 0.02}
		default:
			c.Abort(fmt.Errorf("-stencil %q: want 7 or 27", *stencil))
		}
		if *check < 1 {
			c.Abort(fmt.Errorf("-check %d: want at least 1", *check))
		}
		n, nz, steps := classN[ci], classNZ[ci], classSteps[ci]
		rank, np := c.Rank(), c.Size()
		if np > nz {
			c.Abort(fmt.Errorf("np=%d: want at most %d ranks (a plane each)", np, nz))
		}
		first, count := progutil.Block(nz, rank, np)
		plane := n * n
		progutil.NeedMemory(c, *class, int64(2*(count+2)*plane*8))
		// Planes 1..count are the rank's, 0 and count+1 its ghosts.
		cur := make([]float64, (count+2)*plane)
		next := make([]float64, (count+2)*plane)
		for z := 1; z <= count; z++ {
			g := first + z - 1
			for y := 1; y < n-1; y++ {
				for x := 1; x < n-1; x++ {
					cur[z*plane+y*n+x] = float64((g*7+y*3+x)%11) / 10
				}
			}
		}
		up, down := rank-1, rank+1
		if up < 0 {
			up = commlib.ProcNull
		}
		if down >= np {
			down = commlib.ProcNull
		}
		start := commlib.Wtime()
		total := []float64{0}
		for step := 1; step <= steps; step++ {
			reqs := []*commlib.Request{
				c.Irecv(cur[:plane], up, 0),
				c.Irecv(cur[(count+1)*plane:], down, 1),
				c.Isend(cur[plane:2*plane], up, 1),
				c.Isend(cur[count*plane:(count+1)*plane], down, 0),
			}
			change := 0.0
			if count > 2 {
				change += k.apply(next, cur, n, 2, count)
			}
			c.Waitall(reqs)
			change += k.apply(next, cur, n, 1, min(2, count+1))
			if count > 1 {
				change += k.apply(next, cur, n, count, count+1)
			}
			if step%*check == 0 || step == steps {
				c.Allreduce([]float64{change}, total, commlib.Sum)
			}
			cur, next = next, cur
		}
		elapsed := progutil.Elapsed(start)

		weighted := 0.0
		for z := 1; z <= count; z++ {
			g := first + z - 1
			for j, v := range cur[z*plane : (z+1)*plane] {
				weighted += v * float64((g*plane+j)%5+1)
			}
		}
		sum := []float64{0}
		c.Allreduce([]float64{weighted}, sum, commlib.Sum)
		progutil.Printf(c, "heat3d class %s: %d×%d×%d cells, %s-point stencil, np=%d, %d steps, last change %.6g, time %.3f s\n",
			*class, n, n, nz, *stencil, np, steps, total[0], elapsed)
		progutil.Checksum(c, progutil.RoundSig(sum[0], 10))
	})
}
