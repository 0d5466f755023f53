// Messages receives data of two kinds: an Alltoall of counts the model
// computes, beside point-to-point messages of bulk data (the counts stay
// computed: a collective's members receive what that collective sends),
// and a halo of neighbour structs whose buf is received into while their
// indices are computed (a struct copied whole keeps its fields apart).
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
		n := *size
		x := make([]float64, n/np) // want shape:"make([]float64, (n / np))"
		for i := range x {         // want collapse:"counted" sealed trips:"max(0, len(x))"
			x[i] = float64(i)
		}
		sendCounts, recvCounts := make([]int, np), make([]int, np)
		for r := range np { // want iterate:"it has effects the model keeps" trips:"1 + max(0, np - 1)"
			sendCounts[r] = (r + rank) % 3
		}
		c.Alltoall(sendCounts, recvCounts)
		var nbs []neighbour
		for r, k := range recvCounts { // want iterate:"a value it computes is used after it" trips:"max(0, len(recvCounts))"
			if k == 0 { // want computed
				continue
			}
			nb := neighbour{rank: r, indices: []int{r, k}, buf: make([]float64, 4)}
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
