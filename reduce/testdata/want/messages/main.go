// Messages exchanges a halo of neighbour structs whose buf is received
// into while their indices are computed: a struct copied whole (a
// composite literal assigned, a struct appended to a slice) keeps its
// fields' contents apart, so receiving into one field leaves the other
// computed. Point-to-point messages carry the bulk data's taint; a
// collective's members receive only what its own calls send, so counts
// exchanged by Alltoall stay computed. A binary search over the bulk data
// leaves with an index its opaque decisions selected: what it decides is
// opaque too.
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
		counts, got := make([]int, np), make([]int, np)
		for r := range np { // want iterate:"effects the model keeps" trips:"1 + max(0, np - 1)"
			counts[r] = r + 1
		}
		c.Alltoall(counts, got)
		for r := range np { // want iterate:"it calls Comm.Barrier" trips:"1 + max(0, np - 1)"
			if got[r] > 2 { // want computed
				c.Barrier()
			}
		}
		k := upper(x, 3.5)
		c.Bcast(make([]float64, k), 0) // want opaque:"how the opaque decision at"
	})
}

// upper returns the number of elements of sorted a that are at most v.
func upper(a []float64, v float64) int {
	lo, hi := 0, len(a)
	for lo < hi { // want collapse:"replayed" opaque:"how the opaque decision at"
		m := (lo + hi) / 2
		if a[m] <= v { // want opaque:"the contents of make"
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}
