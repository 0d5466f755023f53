// This file defines the measurement of the probes' own cost.

package probe

import (
	"slices"
	"sync"
)

var (
	overheadOnce                     sync.Once
	segNS, iterNS, counterNS, pairNS float64
)

// Calibration sizes: 9 rounds of each measurement, a few milliseconds in
// all.
const (
	calRounds   = 9
	calSegReps  = 4000
	calIterReps = 4000
	calLoopReps = 1 << 14
)

// Overhead returns the probes' costs in nanoseconds, measured once (the
// medians of calRounds rounds): seg, what an empty fragment measures (the
// time from the clock reading of Now to that of Seg in
// `t := Now(); Seg(id, t)`); iter, what an Iter call adds to the iteration
// it starts; loopCounter, what the per-iteration counter the instrumenter
// inserts (`n++; if n <= IterSamples+1 {...}`, the test failing) adds to
// an iteration of a small body.
func Overhead() (seg, iter, loopCounter float64) {
	overheadOnce.Do(calibrate)
	return segNS, iterNS, counterNS
}

func calibrate() {
	cal := tab.Load().frags[0]
	arr := make([]int64, 64)
	for i := range arr {
		arr[i] = int64(i) * 7
	}
	var segs, pairs, iters, counters []float64
	for r := range calRounds + 1 {
		cal.reset()
		t0 := Now()
		segPairs(calSegReps)
		pair := float64(Now()-t0) / calSegReps
		n, sum := cal.moments()

		t0 = Now()
		emptyLoop(calIterReps)
		empty := Now() - t0
		t0 = Now()
		iterLoop(calIterReps)
		iter := float64(Now()-t0-empty) / calIterReps

		t0 = Now()
		calSink += plainLoop(arr, calLoopReps)
		plain := Now() - t0
		t0 = Now()
		calSink += counterLoop(arr, calLoopReps)
		counted := Now() - t0

		if r == 0 {
			continue // warming up
		}
		segs = append(segs, float64(sum)/float64(n))
		pairs = append(pairs, pair)
		iters = append(iters, iter)
		counters = append(counters, float64(counted-plain)/calLoopReps)
	}
	cal.reset()
	segNS, pairNS = max(0, median(segs)), median(pairs)
	iterNS, counterNS = max(0, median(iters)), max(0, median(counters))
}

// reset clears the calibration fragment, leaving its reservoir full so
// that Iter takes the path it takes in a long run.
func (f *frag) reset() {
	for i := range f.cells {
		c := &f.cells[i]
		c.mu.Lock()
		c.n, c.sum, c.sqHi, c.sqLo, c.min, c.max = 0, 0, 0, 0, 0, 0
		c.mu.Unlock()
	}
	f.mu.Lock()
	if cap(f.samples) < maxSamples {
		f.samples = make([]int64, maxSamples)
	}
	f.samples = f.samples[:maxSamples]
	f.seen = maxSamples
	f.mu.Unlock()
}

// moments returns the executions and the total time recorded.
func (f *frag) moments() (n, sum int64) {
	for i := range f.cells {
		c := &f.cells[i]
		c.mu.Lock()
		n += c.n
		sum += c.sum
		c.mu.Unlock()
	}
	return n, sum
}

// calSink keeps the calibration loops from being optimized away;
// calCounter starts the counter past the sampled iterations.
var (
	calSink    int64
	calCounter int64 = IterSamples + 2
)

//go:noinline
func segPairs(n int) {
	for range n {
		t := Now()
		Seg(calibrationID, t)
	}
}

//go:noinline
func iterLoop(n int) {
	var last int64
	for range n {
		last = Iter(calibrationID, last)
	}
	calSink += last
}

//go:noinline
func emptyLoop(n int) {
	var last int64
	for i := range n {
		last += int64(i)
	}
	calSink += last
}

// plainLoop and counterLoop are a small loop body without and with the
// counter the instrumenter adds to the iterations of a loop fragment.
//
//go:noinline
func plainLoop(a []int64, n int64) int64 {
	var s int64
	for i := range n {
		s += a[i&63] ^ i
	}
	return s
}

//go:noinline
func counterLoop(a []int64, n int64) int64 {
	var s, it int64
	k := calCounter
	for i := range n {
		k++
		if k <= IterSamples+1 {
			it = Iter(calibrationID, it)
		}
		s += a[i&63] ^ i
	}
	return s + k + it
}

func median(xs []float64) float64 {
	xs = slices.Clone(xs)
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}
