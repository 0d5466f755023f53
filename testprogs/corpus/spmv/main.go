// Command spmv estimates the dominant eigenvalue of a random sparse matrix
// by power iteration. Row i has a seeded random number of entries: the
// diagonal, some columns near i and some anywhere, so the halo a rank needs
// is irregular: a different number of values from each other rank.
//
// Communication pattern: the rows are block-distributed. Each rank scans its
// rows once, maps every remote column to a ghost slot (a map from global to
// local index), tells every owner how many values it needs (Alltoall) and
// which (Isend/Irecv of the index lists, once). Every iteration the owners
// send the requested values (Isend/Irecv/Waitall with per-neighbour counts),
// each rank multiplies its rows, and the ranks sum x·y, y·y and x·x with
// Allreduce for the Rayleigh quotient and the normalization.
//
// Classes (n, iterations): S 2^13, 30; W 2^17, 30; A 2^20, 50; B 2^23, 50;
// C 2^25, 100. Checks: the eigenvalue lies between the smallest and largest
// row sums (Perron–Frobenius); for S and W rank 0 repeats the iteration
// sequentially and compares the eigenvalue and every vector entry (relative
// 1e-10). The checksum holds the number of nonzeros (exact) and the
// eigenvalue to 10 significant digits (the reductions' order depends on np).
package main

import (
	"flag"
	"fmt"
	"math"
	"sort"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/testprogs/internal/progutil"
)

var (
	class    = flag.String("class", "S", "problem class: S, W, A, B or C")
	itersArg = flag.Int("iters", 0, "power iterations (0: from -class)")
)

type problem struct{ n, iters int }

var problems = []problem{{1 << 13, 30}, {1 << 17, 30}, {1 << 20, 50}, {1 << 23, 50}, {1 << 25, 100}}

const (
	referenceClasses = 2
	relTol           = 1e-10
	tagIndices       = 1
	tagValues        = 2
)

func main() {
	commlib.Main(func(c *commlib.Comm) {
		ci, err := progutil.ClassIndex(*class)
		if err != nil {
			c.Abort(err)
		}
		pr := problems[ci]
		if *itersArg > 0 {
			pr.iters = *itersArg
		}
		np := c.Size()
		if np > pr.n {
			c.Abort(fmt.Errorf("class %s has %d rows, fewer than np=%d", *class, pr.n, np))
		}
		g := graph{n: pr.n, minDeg: 4, maxDeg: 20, near: 0.7, window: 64, seed: 0x5eed5eed}
		progutil.NeedMemory(c, *class, int64(pr.n/np+1)*int64(g.maxDeg+1)*16*2)

		start := commlib.Wtime()
		h := newHalo(c, g)
		lambda, x := h.power(pr.iters)
		elapsed := progutil.Elapsed(start)

		lo, hi := h.a.rowSumBounds()
		bounds := []float64{lo, -hi}
		c.Allreduce([]float64{lo, -hi}, bounds, commlib.Min)
		lo, hi = bounds[0], -bounds[1]
		progutil.Verify(c, lambda >= lo*(1-relTol) && lambda <= hi*(1+relTol),
			"eigenvalue %v outside the row-sum bounds [%v, %v]", lambda, lo, hi)

		nnz := []int64{int64(len(h.a.col))}
		c.Allreduce([]int64{nnz[0]}, nnz, commlib.Sum)

		counts := make([]int, np)
		displs := make([]int, np)
		for r := range np {
			displs[r], counts[r] = progutil.Block(pr.n, r, np)
		}
		var all []float64
		if c.Rank() == 0 {
			all = make([]float64, pr.n)
		}
		c.Gatherv(x, all, counts, displs, 0)
		if c.Rank() != 0 {
			return
		}
		progutil.Printf(c, "spmv class %s: n=%d, nnz=%d, np=%d, %d iterations, ghosts on rank 0: %d from %d ranks, time %.3f s\n",
			*class, pr.n, nnz[0], np, pr.iters, len(h.ghostIdx), len(h.recvFrom), elapsed)
		if ci < referenceClasses {
			refLambda, refX := sequentialPower(g, pr.iters)
			progutil.Verify(c, relClose(lambda, refLambda), "eigenvalue %v, sequential %v", lambda, refLambda)
			for i := range refX {
				if !relClose(all[i], refX[i]) {
					progutil.Verify(c, false, "x[%d] = %v, sequential %v", i, all[i], refX[i])
				}
			}
			progutil.Printf(c, "eigenvalue and vector match the sequential run\n")
		}
		progutil.Printf(c, "eigenvalue: %s\n", progutil.RoundSig(lambda, 12))
		progutil.Checksum(c, fmt.Sprintf("nnz=%d lambda=%s", nnz[0], progutil.RoundSig(lambda, 10)))
	})
}

func relClose(a, b float64) bool { return math.Abs(a-b) <= relTol*math.Max(math.Abs(a), math.Abs(b)) }

// neighbour is one rank this rank exchanges values with, and which.
type neighbour struct {
	rank    int
	indices []int     // global (to send: mine) indices
	buf     []float64 // values to send, or the ghost slots to receive into
}

// halo holds a rank's rows with localized columns and its exchange plan.
type halo struct {
	c            *commlib.Comm
	first, count int
	a            *csr
	ghostIdx     map[int]int // global column -> slot in x beyond count
	sendTo       []neighbour
	recvFrom     []neighbour
	x            []float64 // owned values, then ghosts
}

// newHalo builds the rank's rows, localizes their columns and agrees on the
// exchange plan with the other ranks.
func newHalo(c *commlib.Comm, g graph) *halo {
	np, rank := c.Size(), c.Rank()
	h := &halo{c: c, ghostIdx: map[int]int{}}
	h.first, h.count = progutil.Block(g.n, rank, np)
	h.a = g.rows(h.first, h.count)

	starts := make([]int, np+1)
	for r := range np {
		starts[r], _ = progutil.Block(g.n, r, np)
	}
	starts[np] = g.n
	owner := func(j int) int { return sort.SearchInts(starts, j+1) - 1 }

	need := make([][]int, np)
	for k, j := range h.a.col {
		if j >= h.first && j < h.first+h.count {
			h.a.col[k] = j - h.first
			continue
		}
		slot, ok := h.ghostIdx[j]
		if !ok {
			slot = h.count + len(h.ghostIdx)
			h.ghostIdx[j] = slot
			r := owner(j)
			need[r] = append(need[r], j)
		}
		h.a.col[k] = slot
	}
	h.x = make([]float64, h.count+len(h.ghostIdx))

	sendCounts := make([]int, np)
	for r := range np {
		sendCounts[r] = len(need[r])
	}
	recvCounts := make([]int, np)
	c.Alltoall(sendCounts, recvCounts)

	var reqs []*commlib.Request
	for r, idx := range need {
		if len(idx) == 0 {
			continue
		}
		nb := neighbour{rank: r, indices: idx}
		h.recvFrom = append(h.recvFrom, nb)
		reqs = append(reqs, c.Isend(idx, r, tagIndices))
	}
	for r, n := range recvCounts {
		if n == 0 {
			continue
		}
		nb := neighbour{rank: r, indices: make([]int, n), buf: make([]float64, n)}
		h.sendTo = append(h.sendTo, nb)
		reqs = append(reqs, c.Irecv(nb.indices, r, tagIndices))
	}
	c.Waitall(reqs)
	h.renumberGhosts()
	for _, nb := range h.sendTo {
		for _, j := range nb.indices {
			progutil.Verify(c, j >= h.first && j < h.first+h.count, "rank %d was asked for row %d, which it does not own", rank, j)
		}
	}
	return h
}

// renumberGhosts makes the ghosts of each owner a consecutive run of slots
// in the order of its index list, so the values can be received in place.
func (h *halo) renumberGhosts() {
	remap := make(map[int]int, len(h.ghostIdx)) // old slot -> new slot
	next := h.count
	for i := range h.recvFrom {
		nb := &h.recvFrom[i]
		for _, j := range nb.indices {
			remap[h.ghostIdx[j]] = next
			h.ghostIdx[j] = next
			next++
		}
		lo := next - len(nb.indices)
		nb.buf = h.x[lo:next]
	}
	for k, s := range h.a.col {
		if s >= h.count {
			h.a.col[k] = remap[s]
		}
	}
}

// exchange sends the requested owned values and receives the ghosts.
func (h *halo) exchange() {
	reqs := make([]*commlib.Request, 0, len(h.sendTo)+len(h.recvFrom))
	for _, nb := range h.recvFrom {
		reqs = append(reqs, h.c.Irecv(nb.buf, nb.rank, tagValues))
	}
	for _, nb := range h.sendTo {
		for k, j := range nb.indices {
			nb.buf[k] = h.x[j-h.first]
		}
		reqs = append(reqs, h.c.Isend(nb.buf, nb.rank, tagValues))
	}
	h.c.Waitall(reqs)
}

// power runs iters steps of the power iteration and returns the eigenvalue
// estimate and this rank's part of the final vector.
func (h *halo) power(iters int) (float64, []float64) {
	for i := range h.count {
		h.x[i] = startValue(h.first + i)
	}
	y := make([]float64, h.count)
	local := make([]float64, 3)
	global := make([]float64, 3)
	var lambda float64
	for range iters {
		h.exchange()
		h.a.mul(h.x, y)
		local[0], local[1], local[2] = 0, 0, 0
		for i, v := range y {
			local[0] += h.x[i] * v
			local[1] += v * v
			local[2] += h.x[i] * h.x[i]
		}
		h.c.Allreduce(local, global, commlib.Sum)
		lambda = global[0] / global[2]
		norm := math.Sqrt(global[1])
		for i, v := range y {
			h.x[i] = v / norm
		}
	}
	return lambda, h.x[:h.count]
}
