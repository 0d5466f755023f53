// Command hybrid solves the 1-D heat equation u_t = u_xx on (0, 1) with
// u(0) = u(1) = 0 by the explicit scheme
// u'_j = u_j + r·(u_{j−1} − 2u_j + u_{j+1}) (r = 0.4) on n interior points,
// with processes × threads (the hybrid MPI+OpenMP model). The initial
// condition is a sum of three sine modes, so the discrete solution is known
// exactly: u_j(s) = Σ a_m λ_m^s sin(mπ j h), λ_m = 1 − 4r sin²(mπh/2),
// h = 1/(n+1).
//
// Communication and threading pattern: the points are block-distributed over
// the ranks (the first n%np ranks get one more). Every step a rank exchanges
// one halo value with each neighbour by Sendrecv (ProcNull at the ends),
// then its pool of T threads (-threads, one pool per rank) updates the local
// points: T tasks claim chunks of 4096 points dynamically from a shared
// commlib.AtomicInt (Add), each returns the sum of its new values (the pool
// reduces them, WaitForAll) and merges its histogram of the new values into
// the rank's shared histogram in a critical section (commlib.Mutex). The
// ranks sum the heat Σu_j with Allreduce every step; at the end the
// histograms are summed with Allreduce and every rank checks its points
// against the exact solution in a c.Parallel region whose threads meet at a
// thread barrier before thread 0 combines their errors.
//
// Classes (n, steps): S 2^17, 100; W 2^20, 200; A 2^22, 500; B 2^25, 1000;
// C 2^27, 2000. Checks: every step's heat matches the exact sum (relative
// 1e-9), every point the exact solution (1e-9); for S and W rank 0 also
// repeats the computation sequentially and compares the gathered field and
// the histogram bit for bit. The checksum holds the final heat at 10
// significant digits (its reduction order depends on np, T and the chunk
// claims) and a hash of the histogram counts (exact: the field's values do
// not depend on np or T).
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"hash/fnv"
	"math"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/testprogs/internal/progutil"
)

var (
	class   = flag.String("class", "S", "problem class: S, W, A, B or C")
	threads = flag.Int("threads", 4, "pool threads per rank (COMMLIB_THREADS and predict's --threads override it)")
)

// problem holds the parameters of one class.
type problem struct{ n, steps int }

var problems = []problem{{1 << 17, 100}, {1 << 20, 200}, {1 << 22, 500}, {1 << 25, 1000}, {1 << 27, 2000}}

// referenceClasses is the number of classes (from S) checked against a
// sequential run on rank 0.
const referenceClasses = 2

const (
	ratio     = 0.4  // r = Δt/h², stable for r ≤ 1/2
	chunkSize = 4096 // points a task claims at a time
	bins      = 20   // histogram of the values in [binLo, binLo+bins·binWidth)
	binLo     = -0.5
	binWidth  = 0.125
	tol       = 1e-9
	heatSig   = 10

	tagToLeft  = 1
	tagToRight = 2
)

// amplitudes of the initial sine modes; their wave numbers are modeNumbers(n).
var amplitudes = []float64{1, 0.5, 0.25}

func modeNumbers(n int) []int { return []int{1, 3, n/8 + 1} }

func main() {
	commlib.Main(func(c *commlib.Comm) {
		ci, err := progutil.ClassIndex(*class)
		if err != nil {
			c.Abort(err)
		}
		pr := problems[ci]
		nt := commlib.Threads(*threads)
		rank, np := c.Rank(), c.Size()
		if nt < 1 {
			c.Abort(fmt.Errorf("-threads %d: want at least 1", nt))
		}
		if np > pr.n {
			c.Abort(fmt.Errorf("class %s has %d points, fewer than np=%d", *class, pr.n, np))
		}
		perRank := int64(2*8) * int64(pr.n/np+3)
		if ci < referenceClasses {
			perRank += int64(3*8) * int64(pr.n/np+1) // rank 0's gathered field and sequential run
		}
		progutil.NeedMemory(c, *class, perRank)

		ex := newExact(pr.n)
		first, count := block(pr.n, rank, np)
		left, right := rank-1, rank+1
		if left < 0 {
			left = commlib.ProcNull
		}
		if right >= np {
			right = commlib.ProcNull
		}
		// Local points are u[1..count] (global index first+1..first+count);
		// u[0] and u[count+1] hold the neighbours' values or the boundary 0.
		u := make([]float64, count+2)
		next := make([]float64, count+2)
		for j := 1; j <= count; j++ {
			u[j] = ex.value(first+j, 0)
		}

		pool := c.NewPool(nt)
		defer pool.Close()
		mu := c.NewMutex()
		hist := make([]int64, bins)       // this rank's histogram, all steps
		threadHist := make([][]int64, nt) // one per pool thread
		for t := range threadHist {
			threadHist[t] = make([]int64, bins)
		}
		var nextChunk commlib.AtomicInt
		nchunks := (count + chunkSize - 1) / chunkSize
		heatLocal := make([]float64, 1)
		heat := make([]float64, 1)

		start := commlib.Wtime()
		for step := 1; step <= pr.steps; step++ {
			c.Sendrecv(u[1:2], left, tagToLeft, u[count+1:count+2], right, tagToLeft)
			c.Sendrecv(u[count:count+1], right, tagToRight, u[0:1], left, tagToRight)

			nextChunk.Store(0)
			for range nt {
				pool.SetTask(func(tid int) float64 {
					h := threadHist[tid]
					sum := 0.0
					for {
						k := int(nextChunk.Add(1)) - 1
						if k >= nchunks {
							break
						}
						lo := 1 + k*chunkSize
						sum += update(u, next, lo, min(lo+chunkSize, count+1), h)
					}
					mu.Critical(func() {
						for b, v := range h {
							hist[b] += v
							h[b] = 0
						}
					})
					return sum
				})
			}
			heatLocal[0] = pool.WaitForAll()
			c.Allreduce(heatLocal, heat, commlib.Sum)
			want := ex.heat(step)
			progutil.Verify(c, math.Abs(heat[0]-want) <= tol*math.Abs(want),
				"step %d: heat %.15g, exact %.15g", step, heat[0], want)
			u, next = next, u
		}
		elapsed := progutil.Elapsed(start)

		// Pointwise check against the exact solution: each thread checks a
		// block, then thread 0 combines the threads' errors.
		errs := make([]float64, nt)
		localErr := make([]float64, 1)
		bar := c.NewBarrier(nt)
		c.Parallel(nt, func(tid int) {
			lo, cnt := block(count, tid, nt)
			e := 0.0
			for j := lo + 1; j <= lo+cnt; j++ {
				e = max(e, math.Abs(u[j]-ex.value(first+j, pr.steps)))
			}
			errs[tid] = e
			bar.Wait()
			if tid == 0 {
				for _, e := range errs {
					localErr[0] = max(localErr[0], e)
				}
			}
		})
		maxErr := make([]float64, 1)
		c.Allreduce(localErr, maxErr, commlib.Max)
		progutil.Verify(c, maxErr[0] <= tol, "largest error against the exact solution %g", maxErr[0])

		total := make([]int64, bins)
		c.Allreduce(hist, total, commlib.Sum)
		var points int64
		for _, v := range total {
			points += v
		}
		progutil.Verify(c, points == int64(pr.n)*int64(pr.steps), "histogram holds %d values, want %d", points, int64(pr.n)*int64(pr.steps))

		if ci < referenceClasses {
			checkSequential(c, pr, u[1:count+1], total)
		}
		progutil.Printf(c, "hybrid class %s: n=%d, %d steps, np=%d, threads=%d, max error %.1e, time %.3f s\n",
			*class, pr.n, pr.steps, np, nt, maxErr[0], elapsed)
		progutil.Checksum(c, fmt.Sprintf("heat=%s hist=%016x", progutil.RoundSig(heat[0], heatSig), hashCounts(total)))
	})
}

// update computes the new values of points [lo, hi) of u into next, counts
// them in hist and returns their sum.
func update(u, next []float64, lo, hi int, hist []int64) float64 {
	sum := 0.0
	for j := lo; j < hi; j++ {
		v := u[j] + ratio*(u[j-1]-2*u[j]+u[j+1])
		next[j] = v
		sum += v
		b := int((v - binLo) * (1 / binWidth)) // truncation: wrong only below binLo, clamped to 0 anyway
		hist[min(max(b, 0), bins-1)]++
	}
	return sum
}

// checkSequential gathers the field on rank 0, repeats the whole computation
// there on one thread and compares field and histogram bit for bit.
func checkSequential(c *commlib.Comm, pr problem, local []float64, hist []int64) {
	np := c.Size()
	counts := make([]int, np)
	displs := make([]int, np)
	var field []float64
	if c.Rank() == 0 {
		field = make([]float64, pr.n)
		for r := range np {
			displs[r], counts[r] = block(pr.n, r, np)
		}
	}
	c.Gatherv(local, field, counts, displs, 0)
	if c.Rank() != 0 {
		return
	}
	ex := newExact(pr.n)
	u := make([]float64, pr.n+2)
	next := make([]float64, pr.n+2)
	for j := 1; j <= pr.n; j++ {
		u[j] = ex.value(j, 0)
	}
	ref := make([]int64, bins)
	for range pr.steps {
		update(u, next, 1, pr.n+1, ref)
		u, next = next, u
	}
	for j, v := range field {
		progutil.Verify(c, math.Float64bits(v) == math.Float64bits(u[j+1]),
			"point %d: parallel %v, sequential %v", j+1, v, u[j+1])
	}
	for b := range ref {
		progutil.Verify(c, ref[b] == hist[b], "histogram bin %d: parallel %d, sequential %d", b, hist[b], ref[b])
	}
	progutil.Printf(c, "field and histogram match the sequential run bit for bit\n")
}

// exact is the exact solution of the discrete problem.
type exact struct {
	n      int
	h      float64
	modes  []int
	lambda []float64 // growth factor per step of each mode
	sums   []float64 // Σ_j sin(mπ j h) of each mode
}

func newExact(n int) *exact {
	e := &exact{n: n, h: 1 / float64(n+1), modes: modeNumbers(n)}
	for _, m := range e.modes {
		theta := float64(m) * math.Pi * e.h
		s := math.Sin(theta / 2)
		e.lambda = append(e.lambda, 1-4*ratio*s*s)
		e.sums = append(e.sums, math.Sin(float64(n)*theta/2)*math.Sin(float64(n+1)*theta/2)/s)
	}
	return e
}

// value returns u_j after step steps (j is the global point index, 1..n).
func (e *exact) value(j, step int) float64 {
	v := 0.0
	for k, m := range e.modes {
		v += amplitudes[k] * math.Pow(e.lambda[k], float64(step)) * math.Sin(float64(m)*math.Pi*float64(j)*e.h)
	}
	return v
}

// heat returns Σ_j u_j after step steps.
func (e *exact) heat(step int) float64 {
	v := 0.0
	for k := range e.modes {
		v += amplitudes[k] * math.Pow(e.lambda[k], float64(step)) * e.sums[k]
	}
	return v
}

// block returns the first index and the length of rank's part of n items
// split over np parts, the first n%np parts getting one item more.
func block(n, rank, np int) (first, count int) {
	q, r := n/np, n%np
	count = q
	if rank < r {
		count++
	}
	first = rank*q + min(rank, r)
	return first, count
}

// hashCounts returns the FNV-64a hash of the counts (8 bytes each, little endian).
func hashCounts(counts []int64) uint64 {
	buf := make([]byte, 0, 8*len(counts))
	for _, v := range counts {
		buf = binary.LittleEndian.AppendUint64(buf, uint64(v))
	}
	h := fnv.New64a()
	h.Write(buf)
	return h.Sum64()
}
