// Command pool iterates a hash map on every element of a large array with
// a pool of threads per rank, more threads than this machine has cores by
// default on a small node: -threads 4 (COMMLIB_THREADS and predict's
// --threads override it).
//
// Threading and communication pattern: the elements are block-distributed
// over the ranks. Every step the rank's commlib pool runs one task per
// chunk of the rank's block (several chunks per thread); each task advances
// its elements by a few mixing rounds and returns the sum of their top 24
// bits, which WaitForAll adds up; the ranks add their sums with Allreduce.
// Every -hist-every steps plain goroutines (one per thread, sync.WaitGroup)
// build private histograms of the values' top bits and merge them under a
// sync.Mutex, and the ranks add the histograms with Allreduce. At the end
// the threads of a c.Parallel region recompute sampled elements from
// scratch.
//
// Classes (elements, steps): S 2^16, 20; W 2^20, 48; A 2^23, 50;
// B 2^26, 100; C 2^29, 100. Checks: every sampled element (one in 61)
// matches its value recomputed alone, every histogram counts every element
// once, and for S rank 0 recomputes the per-step sums sequentially. The sums
// are exact integers, so the checksum (a hash of every step's sum and of the
// histograms) is the same for every np and every thread count.
package main

import (
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"sync"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/testprogs/internal/progutil"
)

var (
	class     = flag.String("class", "S", "problem class: S, W, A, B or C")
	threads   = flag.Int("threads", 4, "pool threads per rank (COMMLIB_THREADS and predict's --threads override it)")
	histEvery = flag.Int("hist-every", 4, "steps between histograms")
)

type problem struct{ n, steps int }

var problems = []problem{{1 << 16, 20}, {1 << 20, 48}, {1 << 23, 50}, {1 << 26, 100}, {1 << 29, 100}}

const (
	referenceClasses = 1
	rounds           = 6  // mixing rounds per element and step
	chunksPerThread  = 4  // pool tasks per thread and step
	bins             = 16 // histogram of the top 4 bits
	sampleStride     = 61 // one element in sampleStride is recomputed
	seed             = 0x9001
)

// initial is element i's value at step 0.
func initial(i int) uint32 { return uint32(mix(uint64(i) ^ seed)) }

// advance applies one step's mixing rounds to v.
func advance(v uint32) uint32 {
	for range rounds {
		v ^= v << 13
		v ^= v >> 17
		v ^= v << 5
		v = v*0x9e3779b1 + 0x7f4a7c15
	}
	return v
}

// mix is SplitMix64's output function.
func mix(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// chunk is a task's share of the block: elements [lo, hi).
type chunk struct{ lo, hi int }

func chunks(n, parts int) []chunk {
	cs := make([]chunk, 0, parts)
	for p := range parts {
		lo, k := progutil.Block(n, p, parts)
		if k > 0 {
			cs = append(cs, chunk{lo, lo + k})
		}
	}
	return cs
}

func main() {
	commlib.Main(func(c *commlib.Comm) {
		ci, err := progutil.ClassIndex(*class)
		if err != nil {
			c.Abort(err)
		}
		pr := problems[ci]
		nt := commlib.Threads(*threads)
		if nt < 1 {
			c.Abort(fmt.Errorf("-threads %d: want at least 1", nt))
		}
		if *histEvery < 1 {
			c.Abort(fmt.Errorf("-hist-every %d: want at least 1", *histEvery))
		}
		rank, np := c.Rank(), c.Size()
		if np > pr.n {
			c.Abort(fmt.Errorf("class %s has %d elements, fewer than np=%d", *class, pr.n, np))
		}
		progutil.NeedMemory(c, *class, 4*int64(pr.n/np+1))
		first, count := progutil.Block(pr.n, rank, np)
		x := make([]uint32, count)
		for i := range x {
			x[i] = initial(first + i)
		}

		pool := c.NewPool(nt)
		defer pool.Close()
		work := chunks(count, nt*chunksPerThread)

		start := commlib.Wtime()
		sums := make([]int64, pr.steps)
		var hists []int64
		global := []int64{0}
		for s := range pr.steps {
			for _, ch := range work {
				pool.SetTask(func(int) float64 {
					var sum int64
					for i := ch.lo; i < ch.hi; i++ {
						x[i] = advance(x[i])
						sum += int64(x[i] >> 8)
					}
					return float64(sum) // exact: below 2^53
				})
			}
			local := int64(pool.WaitForAll())
			c.Allreduce([]int64{local}, global, commlib.Sum)
			sums[s] = global[0]
			if (s+1)%*histEvery == 0 {
				h := histogram(x, nt)
				total := make([]int64, bins)
				c.Allreduce(h, total, commlib.Sum)
				var counted int64
				for _, v := range total {
					counted += v
				}
				progutil.Verify(c, counted == int64(pr.n), "step %d: the histogram counts %d elements, want %d", s, counted, pr.n)
				hists = append(hists, total...)
			}
		}
		if err := verifySamples(c, x, first, pr.steps, nt); err != nil {
			c.Abort(err)
		}
		elapsed := progutil.Elapsed(start)

		if ci < referenceClasses && rank == 0 {
			ref := sequentialSums(pr.n, pr.steps)
			for s := range ref {
				progutil.Verify(c, ref[s] == sums[s], "step %d: sum %d, sequential %d", s, sums[s], ref[s])
			}
			progutil.Printf(c, "every step's sum matches the sequential run\n")
		}
		progutil.Printf(c, "pool class %s: n=%d, np=%d, %d threads per rank, %d tasks per step, %d steps, time %.3f s\n",
			*class, pr.n, np, nt, len(work), pr.steps, elapsed)
		h := fnv.New64a()
		for _, v := range append(sums, hists...) {
			fmt.Fprintf(h, "%d,", v)
		}
		progutil.Checksum(c, fmt.Sprintf("last=%d hash=%016x", sums[len(sums)-1], h.Sum64()))
	})
}

// histogram counts the top 4 bits of x with nt goroutines, each over a
// share of x into a private histogram, merged under a mutex.
func histogram(x []uint32, nt int) []int64 {
	total := make([]int64, bins)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, ch := range chunks(len(x), nt) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine [bins]int64
			for _, v := range x[ch.lo:ch.hi] {
				mine[v>>28]++
			}
			mu.Lock()
			for b, n := range mine {
				total[b] += n
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	return total
}

// verifySamples recomputes every sampleStride-th global element from its
// initial value in a c.Parallel region and compares it with x.
func verifySamples(c *commlib.Comm, x []uint32, first, steps, nt int) error {
	errs := make([]error, nt)
	c.Parallel(nt, func(tid int) {
		// the first global sample index at or after first, then every nt-th sample
		g := (first + sampleStride - 1) / sampleStride * sampleStride
		for g += tid * sampleStride; g < first+len(x); g += nt * sampleStride {
			v := initial(g)
			for range steps {
				v = advance(v)
			}
			if v != x[g-first] {
				errs[tid] = fmt.Errorf("verification failed: element %d is %#x, recomputed %#x", g, x[g-first], v)
				return
			}
		}
	})
	return errors.Join(errs...)
}

// sequentialSums recomputes every step's sum over all n elements.
func sequentialSums(n, steps int) []int64 {
	x := make([]uint32, n)
	for i := range x {
		x[i] = initial(i)
	}
	sums := make([]int64, steps)
	for s := range sums {
		for i := range x {
			x[i] = advance(x[i])
			sums[s] += int64(x[i] >> 8)
		}
	}
	return sums
}
