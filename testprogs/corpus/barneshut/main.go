// Command barneshut runs a 2-D gravitational N-body simulation with the
// Barnes-Hut method, the way it is usually written: a quadtree of pointers
// built by recursive insertion every step, its centres of mass summed by
// a recursive walk, and each body's force found by a recursive traversal
// that opens a cell when it is too close (size/distance ≥ theta).
//
// Communication pattern: every rank holds all bodies' positions and
// masses and builds the whole tree (the build is replicated); it computes
// the forces on its block of bodies and moves them, and the ranks then
// share the new positions with Allgatherv (blocks of uneven size). The
// kinetic energy is summed with Allreduce at the end.
//
// Classes (bodies, steps): S 2^10, 4; W 2^14, 6; A 2^16, 8; B 2^18, 8;
// C 2^20, 8. The bodies are placed by a hash of their index, so the run
// is the same at every np; the checksum is the energy and a position
// hash, to 9 significant digits.
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
	theta = flag.Float64("theta", 0.5, "opening criterion: a cell of size s at distance d is opened when s/d ≥ theta")
)

var (
	classN     = []int{1 << 10, 1 << 14, 1 << 16, 1 << 18, 1 << 20}
	classSteps = []int{4, 6, 8, 8, 8}
)

const (
	dt  = 1e-3
	eps = 1e-3 // softening
)

// cell is a square of the quadtree: a leaf holds at most one body.
type cell struct {
	x, y, size float64 // lower-left corner and side
	mass       float64
	cx, cy     float64 // centre of mass
	body       int     // the body of a leaf, -1 for none
	kids       *[4]*cell
}

// insert adds body b at (px, py) of mass m to the subtree c.
func (c *cell) insert(b int, px, py, m float64, xs, ys, ms []float64) {
	if c.kids == nil && c.body < 0 && c.mass == 0 {
		c.body, c.mass = b, m
		return
	}
	if c.kids == nil {
		c.kids = &[4]*cell{}
		old := c.body
		c.body = -1
		if old >= 0 && c.size > 1e-12 {
			c.child(xs[old], ys[old]).insert(old, xs[old], ys[old], ms[old], xs, ys, ms)
		}
	}
	if c.size > 1e-12 {
		c.child(px, py).insert(b, px, py, m, xs, ys, ms)
	}
}

// child returns the quadrant of c that holds (px, py), made when missing.
func (c *cell) child(px, py float64) *cell {
	h := c.size / 2
	q := 0
	if px >= c.x+h {
		q++
	}
	if py >= c.y+h {
		q += 2
	}
	if c.kids[q] == nil {
		c.kids[q] = &cell{x: c.x + float64(q%2)*h, y: c.y + float64(q/2)*h, size: h, body: -1}
	}
	return c.kids[q]
}

// summarize sets the mass and centre of mass of every cell of c.
func (c *cell) summarize(xs, ys, ms []float64) {
	if c.kids == nil {
		if c.body >= 0 {
			c.mass, c.cx, c.cy = ms[c.body], xs[c.body], ys[c.body]
		}
		return
	}
	c.mass, c.cx, c.cy = 0, 0, 0
	for _, k := range c.kids {
		if k == nil {
			continue
		}
		k.summarize(xs, ys, ms)
		c.mass += k.mass
		c.cx += k.mass * k.cx
		c.cy += k.mass * k.cy
	}
	if c.mass > 0 {
		c.cx /= c.mass
		c.cy /= c.mass
	}
}

// force adds to (fx, fy) the pull of the subtree c on body b at (px, py).
func (c *cell) force(b int, px, py float64, fx, fy *float64) {
	if c.mass == 0 || c.body == b {
		return
	}
	dx, dy := c.cx-px, c.cy-py
	d2 := dx*dx + dy*dy + eps*eps
	if c.kids == nil || c.size*c.size < *theta**theta*d2 {
		f := c.mass / (d2 * math.Sqrt(d2))
		*fx += f * dx
		*fy += f * dy
		return
	}
	for _, k := range c.kids {
		if k != nil {
			k.force(b, px, py, fx, fy)
		}
	}
}

// place is body i's starting position in the unit square, from a hash.
func place(i int) (float64, float64) {
	z := uint64(i)*0x9e3779b97f4a7c15 + 0x7f4a7c159e3779b9
	z = (z ^ (z >> 31)) * 0xbf58476d1ce4e5b9
	z ^= z >> 29
	return float64(z&0xffffffff) / (1 << 32), float64(z>>32) / (1 << 32)
}

func main() {
	commlib.Main(func(c *commlib.Comm) {
		ci, err := progutil.ClassIndex(*class)
		if err != nil {
			c.Abort(err)
		}
		if !(*theta > 0) {
			c.Abort(fmt.Errorf("-theta %g: want a positive opening angle", *theta))
		}
		n, steps := classN[ci], classSteps[ci]
		rank, np := c.Rank(), c.Size()
		if np > n {
			c.Abort(fmt.Errorf("np=%d: want at most %d ranks (a body each)", np, n))
		}
		xs, ys, ms := make([]float64, n), make([]float64, n), make([]float64, n)
		vx, vy := make([]float64, n), make([]float64, n)
		for i := range n {
			xs[i], ys[i] = place(i)
			ms[i] = 1 / float64(n)
		}
		counts, displs := make([]int, np), make([]int, np)
		for r := range np {
			displs[r], counts[r] = progutil.Block(n, r, np)
		}
		first, count := displs[rank], counts[rank]
		start := commlib.Wtime()
		for range steps {
			root := &cell{x: -1, y: -1, size: 3, body: -1}
			for i := range n {
				root.insert(i, xs[i], ys[i], ms[i], xs, ys, ms)
			}
			root.summarize(xs, ys, ms)
			newX, newY := make([]float64, count), make([]float64, count)
			for i := first; i < first+count; i++ {
				var fx, fy float64
				root.force(i, xs[i], ys[i], &fx, &fy)
				vx[i] += dt * fx
				vy[i] += dt * fy
				newX[i-first] = math.Min(math.Max(xs[i]+dt*vx[i], -0.9), 1.9)
				newY[i-first] = math.Min(math.Max(ys[i]+dt*vy[i], -0.9), 1.9)
			}
			c.Allgatherv(newX, xs, counts, displs)
			c.Allgatherv(newY, ys, counts, displs)
		}
		elapsed := progutil.Elapsed(start)

		kinetic := 0.0
		for i := first; i < first+count; i++ {
			kinetic += ms[i] * (vx[i]*vx[i] + vy[i]*vy[i]) / 2
		}
		total := []float64{0}
		c.Allreduce([]float64{kinetic}, total, commlib.Sum)
		progutil.Printf(c, "barneshut class %s: %d bodies, np=%d, %d steps, kinetic energy %.6g, time %.3f s\n", *class, n, np, steps, total[0], elapsed)
		progutil.Checksum(c, fmt.Sprintf("energy=%s x=%x", progutil.RoundSig(total[0], 9), progutil.HashFloats(xs)))
	})
}
