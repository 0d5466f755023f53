// Messages exchanges a halo of neighbour structs whose buf is received
// into while their indices are computed: a struct copied whole (a
// composite literal assigned, a struct appended to a slice) keeps its
// fields' contents apart, so receiving into one field leaves the other
// computed. Point-to-point messages carry the bulk data's taint.
package main

import (
	"flag"

	"github.com/predict-tools/predict/commlib"
)

var size = flag.Int("n", 1<<20, "problem size")

type neighbour struct {
	rank    int
	indices []int
	buf     []float64
}

func main() {
	commlib.Main(func(c *commlib.Comm) {
		np, rank := c.Size(), c.Rank()
		x := make([]float64, *size/np) // want shape:"make([]float64, (*size / np))"
		for i := range x {             // want collapse:"counted" sealed trips:"max(0, len(x))"
			x[i] = float64(i)
		}
		var nbs []neighbour
		for r := range np { // want iterate:"a value it computes is used after it" trips:"1 + max(0, np - 1)"
			if r == rank { // want computed
				continue
			}
			nb := neighbour{rank: r, indices: []int{r, 7}, buf: make([]float64, 4)}
			nbs = append(nbs, nb)
		}
		for _, nb := range nbs { // want iterate:"it calls Comm.Sendrecv" trips:"max(0, len(nbs))"
			c.Sendrecv(x[:4], nb.rank, 0, nb.buf, nb.rank, 0)
		}
		for _, nb := range nbs { // want iterate:"it calls Comm.Barrier" trips:"max(0, len(nbs))"
			if nb.indices[1] > 1 { // want computed
				c.Barrier()
			}
			if nb.buf[0] > 0 { // want opaque:"communicated"
				c.Barrier()
			}
		}
	})
}
