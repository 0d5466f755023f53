// Command qsort sorts n 64-bit keys the way a first parallel sort is often
// written: each rank sorts its block with a quicksort of its own
// (recursive, median-of-three pivot, insertion sort for short runs), then
// the sorted blocks are merged up a binary tree to rank 0: at step s =
// 1, 2, 4, … a rank whose number is an odd multiple of s sends its run to
// the rank s below and is done; that rank merges the two runs.
//
// Communication pattern: log2(np) rounds of Send/Recv of growing runs
// (the receiver computes their lengths from the blocks), so rank 0
// receives and merges n·(1 − 1/np) keys; the check sums the sorted keys
// weighted by position on rank 0 and broadcasts the result (Bcast).
//
// Classes (n): S 2^16, W 2^21, A 2^23, B 2^25, C 2^27. The keys are a hash
// of their global index, so the data and the sorted sequence do not
// depend on np; the checksum is Σ (p+1)·key_p over the sorted positions p,
// modulo 2^64, and whether the sequence is sorted.
package main

import (
	"flag"
	"fmt"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/testprogs/internal/progutil"
)

var class = flag.String("class", "S", "problem class: S, W, A, B or C")

var classN = []int{1 << 16, 1 << 21, 1 << 23, 1 << 25, 1 << 27}

// shortRun is the length below which quick sorts by insertion.
const shortRun = 16

// key is the key of global index i (a 64-bit finalizer of i).
func key(i uint64) uint64 {
	z := i*0xd6e8feb86659fd93 + 0x2545f4914f6cdd1d
	z ^= z >> 32
	z *= 0xd6e8feb86659fd93
	z ^= z >> 32
	return z
}

// quick sorts a in place.
func quick(a []uint64) {
	for len(a) > shortRun {
		m := len(a) / 2
		// Median of three to a[m].
		if a[m] < a[0] {
			a[m], a[0] = a[0], a[m]
		}
		if a[len(a)-1] < a[m] {
			a[len(a)-1], a[m] = a[m], a[len(a)-1]
			if a[m] < a[0] {
				a[m], a[0] = a[0], a[m]
			}
		}
		p := a[m]
		i, j := 0, len(a)-1
		for i <= j {
			for a[i] < p {
				i++
			}
			for a[j] > p {
				j--
			}
			if i <= j {
				a[i], a[j] = a[j], a[i]
				i++
				j--
			}
		}
		// Recurse into the shorter part, loop on the longer one.
		if j+1 < len(a)-i {
			quick(a[:j+1])
			a = a[i:]
		} else {
			quick(a[i:])
			a = a[:j+1]
		}
	}
	for i := 1; i < len(a); i++ {
		x := a[i]
		j := i - 1
		for j >= 0 && a[j] > x {
			a[j+1] = a[j]
			j--
		}
		a[j+1] = x
	}
}

// merge writes the merge of sorted x and y to out (len(x)+len(y) long).
func merge(out, x, y []uint64) {
	i, j := 0, 0
	for k := range out {
		if j >= len(y) || i < len(x) && x[i] <= y[j] {
			out[k] = x[i]
			i++
		} else {
			out[k] = y[j]
			j++
		}
	}
}

// span is the number of keys of the blocks of ranks [lo, hi) of np.
func span(n, lo, hi, np int) int {
	first, _ := progutil.Block(n, lo, np)
	last, count := progutil.Block(n, hi-1, np)
	return last + count - first
}

func main() {
	commlib.Main(func(c *commlib.Comm) {
		ci, err := progutil.ClassIndex(*class)
		if err != nil {
			c.Abort(err)
		}
		n := classN[ci]
		rank, np := c.Rank(), c.Size()
		if np > n {
			c.Abort(fmt.Errorf("np=%d: want at most n=%d ranks", np, n))
		}
		progutil.NeedMemory(c, *class, int64(n/np)*8*3)
		first, count := progutil.Block(n, rank, np)
		run := make([]uint64, count)
		for i := range run {
			run[i] = key(uint64(first + i))
		}
		start := commlib.Wtime()

		quick(run)
		for s := 1; s < np; s *= 2 {
			if rank%(2*s) != 0 {
				c.Send(run, rank-s, s)
				break
			}
			if rank+s >= np {
				continue
			}
			other := make([]uint64, span(n, rank+s, min(rank+2*s, np), np))
			c.Recv(other, rank+s, s)
			merged := make([]uint64, len(run)+len(other))
			merge(merged, run, other)
			run = merged
		}
		elapsed := progutil.Elapsed(start)

		// The check, on rank 0: sorted, and the position-weighted sum.
		res := []uint64{0, 1}
		if rank == 0 {
			for p, k := range run {
				res[0] += uint64(p+1) * k
				if p > 0 && run[p-1] > k {
					res[1] = 0
				}
			}
		}
		c.Bcast(res, 0)
		progutil.Printf(c, "qsort class %s: n=%d, np=%d, time %.3f s\n", *class, n, np, elapsed)
		progutil.Checksum(c, fmt.Sprintf("sum=%016x sorted=%v", res[0], res[1] == 1))
	})
}
