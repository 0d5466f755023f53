// Command bitonic sorts n 64-bit keys with a bitonic sort across the ranks,
// the way the algorithm is taught for a hypercube: each rank sorts its
// block with the standard library (slices.Sort), then for k = 2, 4, …, np
// and j = k/2, …, 1 it swaps its whole block with the rank whose number
// differs in bit j and keeps the lower or the upper half of the two
// (compare-split: a merge that stops half-way), so that after log²(np)
// stages the blocks are sorted across the ranks.
//
// Communication pattern: a Sendrecv of the whole block with partner
// rank XOR j at each of the log2(P)·(log2(P)+1)/2 stages, P the largest
// power of two of ranks (the others hold no keys and wait: a cube of 2 at
// np = 3); the check passes each rank's largest key to its right
// neighbour (Sendrecv) and sums the position-weighted checksum with
// Allreduce.
//
// Classes (n): S 2^16, W 2^22, A 2^24, B 2^26, C 2^28. The keys are a hash
// of their global index (splitmix64), so the data and the sorted sequence
// do not depend on np; the checksum is Σ (p+1)·key_p over the global
// positions p, modulo 2^64.
package main

import (
	"flag"
	"fmt"
	"slices"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/testprogs/internal/progutil"
)

var class = flag.String("class", "S", "problem class: S, W, A, B or C")

var classN = []int{1 << 16, 1 << 22, 1 << 24, 1 << 26, 1 << 28}

// splitmix64 is the key of global index i.
func splitmix64(i uint64) uint64 {
	z := i + 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
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
		// The hypercube: the largest power of two of ranks; the others
		// hold no keys and wait.
		cube := 1
		for cube*2 <= np {
			cube *= 2
		}
		active := rank < cube
		m := n / cube
		progutil.NeedMemory(c, *class, int64(m)*8*3)
		var keys []uint64
		if active {
			keys = make([]uint64, m)
			for i := range keys {
				keys[i] = splitmix64(uint64(rank*m + i))
			}
		}
		start := commlib.Wtime()

		stages := 0
		if active {
			slices.Sort(keys)
			other := make([]uint64, m)
			merged := make([]uint64, m)
			for k := 2; k <= cube; k *= 2 {
				for j := k / 2; j >= 1; j /= 2 {
					partner := rank ^ j
					c.Sendrecv(keys, partner, k+j, other, partner, k+j)
					ascending := rank&k == 0
					if (rank < partner) == ascending {
						lower(keys, other, merged)
					} else {
						upper(keys, other, merged)
					}
					keys, merged = merged, keys
					stages++
				}
			}
		}
		elapsed := progutil.Elapsed(start)

		// The check: sorted within, and across the ranks of the cube.
		last, left := []uint64{0}, []uint64{0}
		dest, source := rank+1, rank-1
		if active {
			progutil.Verify(c, slices.IsSorted(keys), "rank %d's keys are not sorted", rank)
			last[0] = keys[m-1]
		}
		if !active || dest >= cube {
			dest = commlib.ProcNull
		}
		if !active || rank == 0 {
			source = commlib.ProcNull
		}
		c.Sendrecv(last, dest, 0, left, source, 0)
		progutil.Verify(c, source == commlib.ProcNull || left[0] <= keys[0], "rank %d starts below rank %d's last key", rank, rank-1)
		var sum uint64
		for i, key := range keys {
			sum += uint64(rank*m+i+1) * key
		}
		total := []uint64{0}
		c.Allreduce([]uint64{sum}, total, commlib.Sum)
		progutil.Printf(c, "bitonic class %s: %d keys, np=%d (%d sorting), %d stages, time %.3f s\n", *class, n, np, cube, stages, elapsed)
		progutil.Checksum(c, fmt.Sprint(total[0]))
	})
}

// lower sets out to the len(out) smallest keys of the sorted a and b.
func lower(a, b, out []uint64) {
	i, j := 0, 0
	for k := range out {
		if j >= len(b) || i < len(a) && a[i] <= b[j] {
			out[k] = a[i]
			i++
		} else {
			out[k] = b[j]
			j++
		}
	}
}

// upper sets out to the len(out) largest keys of the sorted a and b.
func upper(a, b, out []uint64) {
	i, j := len(a)-1, len(b)-1
	for k := len(out) - 1; k >= 0; k-- {
		if j < 0 || i >= 0 && a[i] > b[j] {
			out[k] = a[i]
			i--
		} else {
			out[k] = b[j]
			j--
		}
	}
}
