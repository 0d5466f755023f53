// Command psort is a sample sort with a parallel merge sort inside each
// rank, in idiomatic Go: a recursive merge sort that sorts one half in a
// goroutine of its own (sync.WaitGroup) while the recursion is shallower
// than log2 of -threads, and both halves itself below; and an
// errgroup.Group, limited to -threads goroutines, that merges the runs
// each rank receives.
//
// Communication pattern: n keys are block-distributed over the ranks. Each
// rank sorts its block, picks np-1 samples at even intervals, and the
// ranks gather every rank's samples (Allgather); the np-1 splitters are
// the samples at even intervals of the sorted gathered samples. Each rank
// counts how many of its keys go to each rank (a binary search per
// splitter), exchanges the counts (Alltoall) and the keys (Alltoallv),
// and merges the np sorted runs it receives pairwise, the merges of a
// round in parallel. The verification checks that each rank's keys are
// sorted and that its smallest key is not below its left neighbour's
// largest (Sendrecv), and sums the position-weighted checksum with an
// Exscan of the counts and an Allreduce.
//
// Keys are 64-bit values of an index-only hash, so the sorted sequence
// and the checksum (Σ (p+1)·key_p over the global positions p, modulo
// 2^64) do not depend on np or on the number of goroutines.
//
// Classes (keys): S 2^16, W 2^22, A 2^23, B 2^25, C 2^27. Leaves of the
// merge sort are insertion-sorted runs of up to 32 keys.
package main

import (
	"flag"
	"fmt"
	"sync"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/testprogs/internal/progutil"
)

var (
	class   = flag.String("class", "S", "problem class: S, W, A, B or C")
	threads = flag.Int("threads", 4, "goroutines per rank, a power of two (COMMLIB_THREADS and predict's --threads override it)")
)

var classLog = []int{16, 22, 23, 25, 27}

// leaf is the length under which the merge sort insertion-sorts.
const leaf = 32

// key returns global key i: a 64-bit mix of i.
func key(i int) uint64 {
	z := uint64(i)*0x9e3779b97f4a7c15 + 0x632be59bd9b4e019
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
		n := 1 << classLog[ci]
		np, me := c.Size(), c.Rank()
		nt := commlib.Threads(*threads)
		if nt < 1 || nt&(nt-1) != 0 {
			c.Abort(fmt.Errorf("-threads %d: want a power of two", nt))
		}
		if np > n/leaf {
			c.Abort(fmt.Errorf("psort of %d keys: np=%d is too many (at most %d)", n, np, n/leaf))
		}
		first, count := progutil.Block(n, me, np)
		// keys, their scratch, the received keys and theirs (up to four
		// times the average).
		progutil.NeedMemory(c, *class, int64(count)*8*6)

		keys := make([]uint64, count)
		for i := range keys {
			keys[i] = key(first + i)
		}
		start := commlib.Wtime()
		depth := 0
		for 1<<depth < nt {
			depth++
		}
		msort(keys, make([]uint64, count), depth)
		mine := exchange(c, keys, splitters(c, keys))
		sorted, err := mergeRuns(mine, nt)
		if err != nil {
			c.Abort(err)
		}
		elapsed := progutil.Elapsed(start)

		sum := verify(c, sorted)
		progutil.Printf(c, "psort class %s: n=%d, np=%d, %d goroutines per rank, time %.3f s\n", *class, n, np, nt, elapsed)
		progutil.Printf(c, "rank 0 holds %d keys after the exchange\n", len(sorted))
		progutil.Checksum(c, fmt.Sprintf("checksum=%016x", sum))
	})
}

// msort sorts a (tmp is scratch of its length): one half in a goroutine
// of its own while depth > 0, then the merge.
func msort(a, tmp []uint64, depth int) {
	if len(a) <= leaf {
		insertion(a)
		return
	}
	h := len(a) / 2
	if depth > 0 {
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			msort(a[:h], tmp[:h], depth-1)
		}()
		msort(a[h:], tmp[h:], depth-1)
		wg.Wait()
	} else {
		msort(a[:h], tmp[:h], 0)
		msort(a[h:], tmp[h:], 0)
	}
	merge(tmp, a[:h], a[h:])
	copy(a, tmp)
}

// insertion sorts a short run in place.
func insertion(a []uint64) {
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

// merge writes the merge of sorted x and y to dst (len(x)+len(y) long).
func merge(dst, x, y []uint64) {
	i, j, k := 0, 0, 0
	for i < len(x) && j < len(y) {
		if y[j] < x[i] {
			dst[k] = y[j]
			j++
		} else {
			dst[k] = x[i]
			i++
		}
		k++
	}
	k += copy(dst[k:], x[i:])
	copy(dst[k:], y[j:])
}
