// Command is is an integer sort in the manner of the NAS Parallel
// Benchmarks' IS kernel: n keys in [0, maxKey), each the scaled sum of four
// uniform 16-bit numbers (so the keys bunch around maxKey/2, as NPB's do),
// are ranked iters times; before each ranking two keys change (key it
// becomes it, key it+iters becomes maxKey-it, as in NPB). After the last
// ranking the keys are fully sorted and the global order is verified.
//
// Communication pattern: the keys are block-distributed over the ranks. A
// ranking counts the local keys per bucket (1024 buckets of equal key
// ranges), sums the counts over the ranks with Allreduce, gives every rank
// a contiguous run of buckets holding about n/np keys, exchanges the number
// of keys each rank sends each other rank with Alltoall and the keys
// themselves with Alltoallv; every rank then counting-sorts the keys of its
// buckets. The verification sends each rank's largest key to its right
// neighbour with Sendrecv, and sums the invariants (count, Σ key, Σ key²
// and the position-weighted checksum) with Allreduce; the global positions
// come from an Exscan of the counts.
//
// Classes (n, maxKey, iters): S 2^16, 2^11, 10; W 2^21, 2^16, 10; A 2^23,
// 2^19, 10; B 2^25, 2^21, 10; C 2^27, 2^23, 10 — NPB's sizes, but W's n
// doubled so that it runs 0.2 s here. The sorted sequence does not depend
// on np, so neither does the checksum: Σ (p+1)·key_p over the global
// positions p, modulo 2^64.
package main

import (
	"flag"
	"fmt"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/testprogs/internal/progutil"
)

var (
	class = flag.String("class", "S", "problem class: S, W, A, B or C")
	iters = flag.Int("iters", 10, "rankings")
	seed  = flag.Uint64("seed", 314159265, "seed of the key generator")
)

// problem holds the sizes of one class.
type problem struct {
	logKeys, logMaxKey int
}

var problems = []problem{{16, 11}, {21, 16}, {23, 19}, {25, 21}, {27, 23}}

// logBuckets is the log2 of the number of buckets (NPB's 2^10).
const logBuckets = 10

func main() {
	commlib.Main(func(c *commlib.Comm) {
		ci, err := progutil.ClassIndex(*class)
		if err != nil {
			c.Abort(err)
		}
		pr := problems[ci]
		n, maxKey := 1<<pr.logKeys, int32(1)<<pr.logMaxKey
		if *iters < 1 || 2**iters >= n {
			c.Abort(fmt.Errorf("-iters %d: want 1 to %d", *iters, n/2-1))
		}
		rank, np := c.Rank(), c.Size()
		if np > 1<<logBuckets {
			c.Abort(fmt.Errorf("is distributes %d buckets: np=%d is too many", 1<<logBuckets, np))
		}
		// keys, the send buffer, the received keys (up to twice the average) and the key counts.
		progutil.NeedMemory(c, *class, int64(4*4*n/np)+int64(4*maxKey))

		first, count := progutil.Block(n, rank, np)
		keys := make([]int32, count)
		generate(keys, first, *seed, maxKey)
		before := invariants(c, keys)

		s := newSorter(c, pr.logMaxKey, n)
		start := commlib.Wtime()
		var sorted []int32
		for it := 1; it <= *iters; it++ {
			setKey(keys, first, it, int32(it))
			setKey(keys, first, it+*iters, maxKey-int32(it))
			sorted = s.rank(keys)
		}
		elapsed := progutil.Elapsed(start)

		s.verifyOrder(sorted)
		after := invariants(c, sorted)
		for it := 1; it <= *iters; it++ {
			before.add(int32(it), int32(it)-originalKey(it, *seed, maxKey))
			before.add(maxKey-int32(it), maxKey-int32(it)-originalKey(it+*iters, *seed, maxKey))
		}
		progutil.Verify(c, after.count == before.count && after.sum == before.sum && after.squares == before.squares,
			"the sorted keys are not a permutation of the keys: count %d, Σ %d, Σ² %d; want %d, %d, %d",
			after.count, after.sum, after.squares, before.count, before.sum, before.squares)
		weighted := s.weightedSum(sorted)

		progutil.Printf(c, "is class %s: n=%d, maxKey=%d, np=%d, %d rankings, time %.3f s\n", *class, n, maxKey, np, *iters, elapsed)
		progutil.Printf(c, "keys sorted: global order verified, a permutation of the input\n")
		progutil.Checksum(c, fmt.Sprintf("n=%d sum=%d weighted=%016x", after.count, after.sum, weighted))
	})
}

// setKey sets the key of global index i when this rank holds it.
func setKey(keys []int32, first, i int, v int32) {
	if i >= first && i < first+len(keys) {
		keys[i-first] = v
	}
}

// sums are the order-independent invariants of a set of keys.
type sums struct {
	count, sum, squares int64
}

// add accounts for changing one key by delta to the value v (the count is
// unchanged): Σ changes by delta and Σ² by v² - (v-delta)².
func (s *sums) add(v, delta int32) {
	old := int64(v - delta)
	s.sum += int64(delta)
	s.squares += int64(v)*int64(v) - old*old
}

// invariants returns the global count, sum and sum of squares of keys.
func invariants(c *commlib.Comm, keys []int32) sums {
	local := make([]int64, 3)
	local[0] = int64(len(keys))
	for _, k := range keys {
		local[1] += int64(k)
		local[2] += int64(k) * int64(k)
	}
	global := make([]int64, 3)
	c.Allreduce(local, global, commlib.Sum)
	return sums{global[0], global[1], global[2]}
}
