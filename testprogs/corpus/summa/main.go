// Command summa multiplies two dense n×n matrices with SUMMA (van de Geijn
// and Watts), as a numerical programmer writes it in Go: the ranks form a
// pr×pc grid (commlib.DimsCreate), split into a communicator per grid row
// and per grid column (Comm.Split); each rank owns a block of A, B and C
// (progutil.Block, uneven when the grid does not divide n). For every
// panel of at most nb columns of A (rows of B, cut where the owners
// change), the ranks of the grid column that own it broadcast their part
// of the A panel along their grid row, the ranks of the grid row that own
// the B panel broadcast theirs down their grid column, and every rank
// adds the product of the two panels to its block of C with a
// cache-blocked triple loop. At the end the ranks sum
// their blocks of C and of C's diagonal-weighted checksum with Allreduce.
//
// A and B hold small integers, so every product and sum is exact in
// float64 and the checksum is the same for every np.
//
// Classes (n, nb): S 256, 32; W 1024, 64; A 2048, 128; B 4096, 128; C 8192, 256.
package main

import (
	"flag"
	"fmt"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/testprogs/internal/progutil"
)

var class = flag.String("class", "S", "problem class: S, W, A, B or C")

var (
	classN  = []int{256, 1024, 2048, 4096, 8192}
	classNB = []int{32, 64, 128, 128, 256}
)

const tile = 32 // the triple loop's blocking of the inner dimension

func a(i, j int) float64 { return float64((i*7+j*3+i*j)%11 - 4) }
func b(i, j int) float64 { return float64((i*5+j*13+i*j%5)%9 - 3) }

// grid is this rank's place in the process grid and its blocks' ranges.
type grid struct {
	rows, cols     *commlib.Comm // this rank's grid row and grid column
	myRow, myCol   int
	pr, pc         int
	r0, nr, c0, nc int // the rows and columns of C (and of A's rows, B's columns) it owns
}

// owner returns which part of a dimension of n split into parts holds
// index k, and where that part starts.
func owner(k, n, parts int) (part, first int) {
	for p := range parts {
		f, cnt := progutil.Block(n, p, parts)
		if k < f+cnt {
			return p, f
		}
	}
	return parts - 1, n
}

// panelStep multiplies the panel of columns [k0, k0+kb) of A by the same
// rows of B into c: c[i][j] += Σ_k ap[i][k]·bp[k][j], blocked over k.
func panelStep(c, ap, bp []float64, nr, nc, kb int) {
	for kk := 0; kk < kb; kk += tile {
		kend := min(kk+tile, kb)
		for i := range nr {
			ci := c[i*nc : (i+1)*nc]
			for k := kk; k < kend; k++ {
				aik := ap[i*kb+k]
				bk := bp[k*nc : (k+1)*nc]
				for j := range ci {
					ci[j] += aik * bk[j]
				}
			}
		}
	}
}

func main() {
	commlib.Main(func(c *commlib.Comm) {
		ci, err := progutil.ClassIndex(*class)
		if err != nil {
			c.Abort(err)
		}
		n, nb := classN[ci], classNB[ci]
		np := c.Size()
		dims := commlib.DimsCreate(np, []int{0, 0})
		if dims[0] > n || dims[1] > n {
			c.Abort(fmt.Errorf("class %s has n=%d, fewer rows than the %d×%d grid of np=%d", *class, n, dims[0], dims[1], np))
		}
		g := grid{pr: dims[0], pc: dims[1], myRow: c.Rank() / dims[1], myCol: c.Rank() % dims[1]}
		g.rows = c.Split(g.myRow, g.myCol)
		g.cols = c.Split(g.myCol, g.myRow)
		g.r0, g.nr = progutil.Block(n, g.myRow, g.pr)
		g.c0, g.nc = progutil.Block(n, g.myCol, g.pc)
		progutil.NeedMemory(c, *class, int64(3*g.nr*g.nc+nb*(g.nr+g.nc))*8)
		if g.pr > 1 && g.pc > 1 && n/g.pr < 1 {
			c.Abort(fmt.Errorf("n=%d is too small for the %d×%d grid", n, g.pr, g.pc))
		}
		start := commlib.Wtime()

		// This rank's blocks of A, B and C: rows r0.., columns c0..
		aBlock := make([]float64, g.nr*g.nc)
		bBlock := make([]float64, g.nr*g.nc)
		for i := range g.nr {
			for j := range g.nc {
				aBlock[i*g.nc+j] = a(g.r0+i, g.c0+j)
				bBlock[i*g.nc+j] = b(g.r0+i, g.c0+j)
			}
		}
		cBlock := make([]float64, g.nr*g.nc)
		ap := make([]float64, g.nr*nb)
		bp := make([]float64, nb*g.nc)

		for k0 := 0; k0 < n; {
			// The panel's columns of A belong to one grid column, its
			// rows of B to one grid row: it ends at the first boundary.
			rootCol, colFirst := owner(k0, n, g.pc)
			_, colCount := progutil.Block(n, rootCol, g.pc)
			rootRow, rowFirst := owner(k0, n, g.pr)
			_, rowCount := progutil.Block(n, rootRow, g.pr)
			kb := min(nb, colFirst+colCount-k0, rowFirst+rowCount-k0)
			if g.myCol == rootCol {
				for i := range g.nr {
					copy(ap[i*kb:(i+1)*kb], aBlock[i*g.nc+k0-colFirst:i*g.nc+k0-colFirst+kb])
				}
			}
			g.rows.Bcast(ap[:g.nr*kb], rootCol)
			if g.myRow == rootRow {
				copy(bp[:kb*g.nc], bBlock[(k0-rowFirst)*g.nc:(k0-rowFirst+kb)*g.nc])
			}
			g.cols.Bcast(bp[:kb*g.nc], rootRow)
			panelStep(cBlock, ap, bp, g.nr, g.nc, kb)
			k0 += kb
		}

		// The sum of C and a weighted sum (exact integers in float64).
		var sum, weighted float64
		for i := range g.nr {
			for j := range g.nc {
				v := cBlock[i*g.nc+j]
				sum += v
				weighted += v * float64((g.r0+i+2*(g.c0+j))%7)
			}
		}
		local := []float64{sum, weighted}
		total := make([]float64, 2)
		c.Allreduce(local, total, commlib.Sum)
		elapsed := progutil.Elapsed(start)

		// A spot check: C[0][0] and C[n-1][n-1], computed directly by
		// their owners, against the block.
		for _, at := range [][2]int{{0, 0}, {n - 1, n - 1}} {
			i, j := at[0]-g.r0, at[1]-g.c0
			if i < 0 || i >= g.nr || j < 0 || j >= g.nc {
				continue
			}
			var want float64
			for k := range n {
				want += a(at[0], k) * b(k, at[1])
			}
			progutil.Verify(c, cBlock[i*g.nc+j] == want, "C[%d][%d] is %v, want %v", at[0], at[1], cBlock[i*g.nc+j], want)
		}
		progutil.Printf(c, "summa class %s: n=%d, nb=%d, np=%d on a %d×%d grid, time %.3f s\n", *class, n, nb, np, g.pr, g.pc, elapsed)
		progutil.Checksum(c, fmt.Sprintf("sum=%s weighted=%s", progutil.RoundSig(total[0], 15), progutil.RoundSig(total[1], 15)))
	})
}
