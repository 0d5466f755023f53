// Command mergesort sorts each rank's block of pseudo-random keys with a
// recursive merge sort, then checks with an Allreduce that every rank's
// block is sorted, each time, and that no key was lost. Its work is in a recursive
// function that does not communicate: the interpreter's test of the
// warning that recursive calls' time is not modeled.
package main

import (
	"flag"
	"fmt"

	"github.com/predict-tools/predict/commlib"
)

var (
	n    = flag.Int("n", 1<<16, "keys per rank")
	reps = flag.Int("reps", 4, "sorts")
)

func main() {
	commlib.Main(func(c *commlib.Comm) {
		keys := make([]uint64, *n)
		tmp := make([]uint64, *n)
		for rep := range *reps {
			x := uint64(c.Rank()*7919+rep) | 1
			bad := 0
			var sum uint64
			for i := range keys {
				x ^= x << 13
				x ^= x >> 7
				x ^= x << 17
				keys[i] = x % 1000003
				sum += keys[i]
			}
			mergeSort(keys, tmp)
			for i := 1; i < len(keys); i++ {
				if keys[i-1] > keys[i] {
					bad++
				}
			}
			for _, k := range keys {
				sum -= k
			}
			if sum != 0 {
				bad++
			}
			total := []int64{0}
			c.Allreduce([]int64{int64(bad)}, total, commlib.Sum)
			if total[0] != 0 {
				c.Abort(fmt.Errorf("sort %d: %d keys out of order or lost", rep, total[0]))
			}
		}
		if c.Rank() == 0 {
			fmt.Printf("sorted %d keys %d times on each of %d ranks\n", *n, *reps, c.Size())
		}
	})
}

// mergeSort sorts a, using tmp (as long as a) for merging.
func mergeSort(a, tmp []uint64) {
	if len(a) < 2 {
		return
	}
	m := len(a) / 2
	mergeSort(a[:m], tmp[:m])
	mergeSort(a[m:], tmp[m:])
	i, j := 0, m
	for k := range a {
		if j >= len(a) || (i < m && a[i] <= a[j]) {
			tmp[k] = a[i]
			i++
		} else {
			tmp[k] = a[j]
			j++
		}
	}
	copy(a, tmp)
}
