// Command kmeans clusters points in the plane with Lloyd's algorithm, in
// idiomatic Go inside each rank: plain goroutines joined by a
// sync.WaitGroup, partial sums merged under a sync.Mutex, counts collected
// from a channel with a select (an error channel beside it), the
// centroids read under a sync.RWMutex, a table built once with sync.Once,
// a map of cluster sizes, and a recursive pairwise sum.
//
// Threading and communication pattern: the points are block-distributed
// over the ranks. Every iteration each rank starts -threads goroutines
// (COMMLIB_THREADS and predict's --threads override it), one per chunk of
// its block; each assigns its points to the nearest centroid and adds them
// to private per-cluster sums, then merges those into the rank's sums under
// a mutex. The ranks add their sums with Allreduce and every rank moves
// the centroids to their clusters' means. At the end each rank computes
// its points' squared distances to their centroids, sums them with a
// recursive pairwise sum, and the ranks add the sums with Allreduce.
//
// Coordinates are integers and every sum is an exact int64, so the
// clustering and the checksum (the final centroids and the total squared
// distance) are the same for every np and every thread count.
//
// Classes (points, iterations): S 2^14, 10; W 2^19, 20; A 2^22, 20;
// B 2^24, 30; C 2^26, 30. k = 16 clusters.
package main

import (
	"flag"
	"fmt"
	"hash/fnv"
	"sync"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/testprogs/internal/progutil"
)

var (
	class   = flag.String("class", "S", "problem class: S, W, A, B or C")
	threads = flag.Int("threads", 4, "goroutines per rank (COMMLIB_THREADS and predict's --threads override it)")
)

var (
	classN     = []int{1 << 14, 1 << 19, 1 << 22, 1 << 24, 1 << 26}
	classIters = []int{10, 20, 20, 30, 30}
)

const (
	k        = 16
	coordMax = 1 << 20
	leafSum  = 64 // the pairwise sum adds up to this many values directly
)

// point returns the coordinates of global point i: clustered around k
// hidden centres, from an index-only hash.
func point(i int) (int64, int64) {
	h := uint64(i)*0x9e3779b97f4a7c15 + 0x632be59bd9b4e019
	h ^= h >> 29
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 32
	centre := int64(h % k)
	cx, cy := (centre*7919)%coordMax, (centre*104729)%coordMax
	dx, dy := int64((h>>8)%(coordMax/8)), int64((h>>24)%(coordMax/8))
	return (cx + dx) % coordMax, (cy + dy) % coordMax
}

// rank is one rank's share of the points and the shared centroids.
type rank struct {
	xs, ys  []int64
	labels  []int
	centMu  sync.RWMutex
	cx, cy  [k]int64
	sumMu   sync.Mutex
	sx, sy  [k]int64
	count   [k]int64
	weights []int64
	once    sync.Once
}

// nearest returns the cluster whose centroid is closest to (x, y).
func nearest(cx, cy *[k]int64, x, y int64) int {
	best, bestD := 0, int64(-1)
	for c := range k {
		dx, dy := x-cx[c], y-cy[c]
		if d := dx*dx + dy*dy; bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// assign labels the points lo..hi-1, adds them to the rank's sums and
// returns how many changed cluster.
func (r *rank) assign(lo, hi int) (int64, error) {
	r.once.Do(func() {
		// Per-cluster weights, built by the first goroutine that needs them.
		r.weights = make([]int64, k)
		for c := range r.weights {
			r.weights[c] = int64(c + 1)
		}
	})
	r.centMu.RLock()
	cx, cy := r.cx, r.cy
	r.centMu.RUnlock()
	var sx, sy, n [k]int64
	moved := int64(0)
	for i := lo; i < hi; i++ {
		c := nearest(&cx, &cy, r.xs[i], r.ys[i])
		if r.labels[i] != c {
			moved++
		}
		r.labels[i] = c
		sx[c] += r.xs[i]
		sy[c] += r.ys[i]
		n[c]++
	}
	if lo < hi && r.weights[r.labels[lo]] < 1 {
		return 0, fmt.Errorf("point %d: cluster %d has no weight", lo, r.labels[lo])
	}
	r.sumMu.Lock()
	defer r.sumMu.Unlock()
	for c := range k {
		r.sx[c] += sx[c]
		r.sy[c] += sy[c]
		r.count[c] += n[c]
	}
	return moved, nil
}

// iterate assigns every point with nt goroutines, which send how many
// points changed cluster on a channel (closed once the WaitGroup says all
// are done) or an error on another, and moves the centroids. It returns
// how many points of every rank changed cluster.
func (r *rank) iterate(c *commlib.Comm, nt int) int64 {
	r.sx, r.sy, r.count = [k]int64{}, [k]int64{}, [k]int64{}
	var wg sync.WaitGroup
	moved := make(chan int64, nt)
	errs := make(chan error, 1)
	for t := range nt {
		lo, n := progutil.Block(len(r.xs), t, nt)
		wg.Add(1)
		go func() {
			defer wg.Done()
			m, err := r.assign(lo, lo+n)
			if err != nil {
				select {
				case errs <- err:
				default: // one error is enough
				}
				return
			}
			moved <- m
		}()
	}
	go func() {
		wg.Wait()
		close(moved)
	}()
	changed := int64(0)
collect:
	for {
		select {
		case m, ok := <-moved:
			if !ok {
				break collect
			}
			changed += m
		case err := <-errs:
			c.Abort(err)
		}
	}
	local := make([]int64, 0, 3*k+1)
	local = append(append(append(local, r.sx[:]...), r.sy[:]...), r.count[:]...)
	local = append(local, changed)
	global := make([]int64, 3*k+1)
	c.Allreduce(local, global, commlib.Sum)
	r.centMu.Lock()
	for cl := range k {
		if n := global[2*k+cl]; n > 0 {
			r.cx[cl], r.cy[cl] = global[cl]/n, global[k+cl]/n
		}
	}
	r.centMu.Unlock()
	return global[3*k]
}

// pairwiseSum adds v by halves down to leafSum values.
func pairwiseSum(v []int64) int64 {
	if len(v) <= leafSum {
		s := int64(0)
		for _, x := range v {
			s += x
		}
		return s
	}
	h := len(v) / 2
	return pairwiseSum(v[:h]) + pairwiseSum(v[h:])
}

func main() {
	commlib.Main(func(c *commlib.Comm) {
		ci, err := progutil.ClassIndex(*class)
		if err != nil {
			c.Abort(err)
		}
		n, iters := classN[ci], classIters[ci]
		np, me := c.Size(), c.Rank()
		nt := commlib.Threads(*threads)
		if nt < 1 {
			c.Abort(fmt.Errorf("-threads %d: want at least 1", nt))
		}
		first, count := progutil.Block(n, me, np)
		progutil.NeedMemory(c, *class, int64(count)*24)

		r := &rank{xs: make([]int64, count), ys: make([]int64, count), labels: make([]int, count)}
		for i := range count {
			r.xs[i], r.ys[i] = point(first + i)
		}
		for cl := range k {
			r.cx[cl], r.cy[cl] = point(cl * (n / k))
		}

		start := commlib.Wtime()
		changed := int64(0)
		for range iters {
			changed += r.iterate(c, nt)
		}
		d := make([]int64, count)
		for i := range count {
			dx, dy := r.xs[i]-r.cx[r.labels[i]], r.ys[i]-r.cy[r.labels[i]]
			d[i] = (dx*dx + dy*dy) >> 10
		}
		total := []int64{0}
		c.Allreduce([]int64{pairwiseSum(d)}, total, commlib.Sum)
		elapsed := progutil.Elapsed(start)

		sizes := map[int]int{}
		for _, l := range r.labels {
			sizes[l]++
		}
		progutil.Printf(c, "kmeans class %s: n=%d, k=%d, np=%d, %d goroutines per rank, %d iterations, time %.3f s\n",
			*class, n, k, np, nt, iters, elapsed)
		progutil.Printf(c, "rank 0 holds points of %d clusters; %d label changes; total squared distance/1024 %d\n", len(sizes), changed, total[0])
		progutil.Verify(c, total[0] > 0, "total squared distance %d, want > 0", total[0])
		h := fnv.New64a()
		for cl := range k {
			fmt.Fprintf(h, "%d,%d;", r.cx[cl], r.cy[cl])
		}
		progutil.Checksum(c, fmt.Sprintf("total=%d changed=%d centroids=%016x", total[0], changed, h.Sum64()))
	})
}
