// Command swapgrid solves 1-D heat equations (-fields of them, each with
// its own diffusivity) by explicit time steps, each field a grid held in
// a struct with two buffers that are swapped after each step (g.cur,
// g.next = g.next, g.cur); the fields are a slice of such structs. Each
// step sends the halos from slices of the current buffer with Sendrecv.
// It is the interpreter's test of buffers reached through the fields of
// a slice's elements that are swapped: the model must hold those fields
// (before, the slice of structs was kept as a shape and its halos were
// slices of a value the model did not hold).
//
// Rank 0 checks that each field's total heat, summed with Allreduce, is
// the same as a sequential run's.
package main

import (
	"flag"
	"fmt"
	"math"

	"github.com/predict-tools/predict/commlib"
)

var (
	n       = flag.Int("n", 1<<14, "points per rank")
	steps   = flag.Int("steps", 50, "time steps")
	nfields = flag.Int("fields", 2, "fields, each with its own grid")
)

// grid is a rank's points of one field with one halo point each side, in
// two buffers, and the field's diffusivity.
type grid struct {
	cur, next []float64
	n         int
	alpha     float64
}

func newGrid(n int, alpha float64) grid {
	return grid{cur: make([]float64, n+2), next: make([]float64, n+2), n: n, alpha: alpha}
}

// step advances one time step: halos, then the update into next, then
// the swap.
func (g *grid) step(c *commlib.Comm) {
	left, right := c.Rank()-1, c.Rank()+1
	if left < 0 {
		left = commlib.ProcNull
	}
	if right >= c.Size() {
		right = commlib.ProcNull
	}
	c.Sendrecv(g.cur[1:2], left, 1, g.cur[g.n+1:g.n+2], right, 1)
	c.Sendrecv(g.cur[g.n:g.n+1], right, 2, g.cur[0:1], left, 2)
	for i := 1; i <= g.n; i++ {
		g.next[i] = g.cur[i] + g.alpha*(g.cur[i-1]-2*g.cur[i]+g.cur[i+1])
	}
	g.cur, g.next = g.next, g.cur
}

func main() {
	commlib.Main(func(c *commlib.Comm) {
		fields := make([]grid, *nfields)
		for k := range fields {
			fields[k] = newGrid(*n, alpha(k))
			// A hot spot in the middle of each rank's points.
			fields[k].cur[*n/2] = 1
		}
		for range *steps {
			for k := range fields {
				fields[k].step(c)
			}
		}
		for k := range fields {
			g := &fields[k]
			var heat float64
			for _, v := range g.cur[1 : g.n+1] {
				heat += v
			}
			total := []float64{0}
			c.Allreduce([]float64{heat}, total, commlib.Sum)
			if c.Rank() == 0 {
				want := sequentialHeat(*n*c.Size(), *n, *steps, alpha(k))
				if math.Abs(total[0]-want) > 1e-9*want {
					c.Abort(fmt.Errorf("field %d: total heat %.12g, sequential run %.12g", k, total[0], want))
				}
				fmt.Printf("field %d: total heat %.6f after %d steps, as the sequential run's\n", k, total[0], *steps)
			}
		}
	})
}

// alpha is field k's diffusivity (stable: at most 1/2).
func alpha(k int) float64 { return 0.1 + 0.3/float64(k+1) }

// sequentialHeat runs the same steps on the whole grid and returns the
// total heat.
func sequentialHeat(total, perRank, steps int, alpha float64) float64 {
	u := make([]float64, total+2)
	v := make([]float64, total+2)
	for r := 0; r < total/perRank; r++ {
		u[1+r*perRank+perRank/2-1] = 1
	}
	for range steps {
		for i := 1; i <= total; i++ {
			v[i] = u[i] + alpha*(u[i-1]-2*u[i]+u[i+1])
		}
		u, v = v, u
	}
	var heat float64
	for _, x := range u[1 : total+1] {
		heat += x
	}
	return heat
}
