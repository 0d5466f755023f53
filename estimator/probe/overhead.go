// This file defines the measurement of the probes' own cost.

package probe

import (
	"runtime"
	"slices"
	"sync"
)

var (
	overheadOnce sync.Once
	overheadMu   sync.Mutex // guards overhead's costs of probes that find their rank, measured again by rankStart
	overhead     RawOverhead
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
// medians of calRounds rounds): see RawOverhead.
func Overhead() RawOverhead {
	overheadOnce.Do(calibrate)
	overheadMu.Lock()
	defer overheadMu.Unlock()
	return overhead
}

func calibrate() {
	if threadClock {
		// The outer readings below are of the thread's clock too.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
	}
	cal := tab.Load().frags[0]
	arr := make([]int64, 64)
	for i := range arr {
		arr[i] = int64(i) * 7
	}
	var segs, pairs, iters, counters, tests, sampleds []float64
	for r := range calRounds + 1 {
		cal.reset()
		t0 := clock()
		segPairs(calSegReps)
		pair := float64(clock()-t0) / calSegReps
		n, sum := cal.moments()

		t0 = clock()
		emptyLoop(calIterReps)
		empty := clock() - t0
		t0 = clock()
		iterLoop(calIterReps)
		iter := float64(clock()-t0-empty) / calIterReps

		t0 = clock()
		sampledCalls(calIterReps)
		sampled := float64(clock()-t0-empty) / calIterReps

		t0 = clock()
		calSink += plainLoop(arr, calLoopReps)
		plain := clock() - t0
		t0 = clock()
		calSink += counterLoop(arr, calLoopReps)
		counted := clock() - t0
		t0 = clock()
		calSink += testLoop(arr, calLoopReps)
		tested := clock() - t0

		if r == 0 {
			continue // warming up
		}
		segs = append(segs, float64(sum)/float64(n))
		pairs = append(pairs, pair)
		iters = append(iters, iter)
		sampleds = append(sampleds, sampled)
		counters = append(counters, float64(counted-plain)/calLoopReps)
		tests = append(tests, float64(tested-plain)/calLoopReps)
	}
	cal.reset()
	overhead = RawOverhead{
		SegNS:     max(0, median(segs)),
		IterNS:    max(0, median(iters)),
		CounterNS: max(0, median(counters)),
		TestNS:    max(0, median(tests)),
		SampledNS: max(0, median(sampleds)),
		PairNS:    median(pairs),
	}
	pairOutNS.Store(int64(max(0, overhead.PairNS-overhead.SegNS)))
	calibrateRanked()
}

// calibrateRanked measures the costs of the probes that find their rank
// (regions, decisions), which depend on how they find it: at start-up,
// and again in the first rank of a run of several (rankStart), where the
// rank is found by its label.
func calibrateRanked() {
	branch := calibrateBranch()
	in, out := calibrateRegions()
	overheadMu.Lock()
	overhead.BranchNS, overhead.RegionInNS, overhead.RegionOutNS = branch, in, out
	overheadMu.Unlock()
	regionOutNS.Store(int64(out))
}

// reset clears the calibration fragment, leaving its reservoirs full so
// that Iter takes the path it takes in a long run.
func (f *frag) reset() {
	for i := range f.cells {
		c := &f.cells[i]
		c.mu.Lock()
		c.n, c.sum, c.sqHi, c.sqLo, c.min, c.max = 0, 0, 0, 0, 0, 0
		c.mu.Unlock()
	}
	f.mu.Lock()
	for i := range f.samples {
		if cap(f.samples[i]) < samplesPerIndex {
			f.samples[i] = make([]int64, samplesPerIndex)
		}
		f.samples[i] = f.samples[i][:samplesPerIndex]
		f.seen[i] = samplesPerIndex
	}
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
	if threadClock {
		for range n {
			t := NowThread()
			Seg(calibrationID, t)
		}
		return
	}
	for range n {
		t := Now()
		Seg(calibrationID, t)
	}
}

// calibrateRegions measures what an entry of an empty region records and
// the rest of its probes' cost, medians of calRounds rounds.
func calibrateRegions() (in, out float64) {
	cal := tab.Load().frags[0]
	var ins, pairs []float64
	for r := range calRounds + 1 {
		cal.reset()
		t0 := clock()
		emptyCalls(calSegReps)
		calls := clock() - t0
		t0 = clock()
		regionCalls(calSegReps)
		pair := float64(clock()-t0-calls) / calSegReps
		n, sum := cal.moments()
		if r == 0 {
			continue // warming up
		}
		ins = append(ins, float64(sum)/float64(max(n, 1)))
		pairs = append(pairs, pair)
	}
	cal.reset()
	in = max(0, median(ins))
	return in, max(0, median(pairs)-in)
}

// calibrateBranch measures the cost of recording a decision's outcome,
// the median of calRounds rounds.
func calibrateBranch() float64 {
	var xs []float64
	for r := range calRounds + 1 {
		t0 := clock()
		emptyLoop(calIterReps)
		empty := clock() - t0
		t0 = clock()
		branchCalls(calIterReps)
		if r > 0 {
			xs = append(xs, float64(clock()-t0-empty)/calIterReps)
		}
	}
	return max(0, median(xs))
}

// emptyCalls and regionCalls call a function n times, without and with
// the region its body gets (a deferred Region).
//
//go:noinline
func emptyCalls(n int) {
	for range n {
		emptyFunc()
	}
}

//go:noinline
func regionCalls(n int) {
	for range n {
		regionFunc()
	}
}

//go:noinline
func emptyFunc() { calSink++ }

//go:noinline
func regionFunc() {
	defer Region(calibrationID, RegionStart())
	calSink++
}

//go:noinline
func branchCalls(n int) {
	var last int64
	for i := range n {
		if Branch(calibrationID, true) {
			last += int64(i)
		}
	}
	calSink += last
}

//go:noinline
func iterLoop(n int) {
	var last int64
	for i := range n {
		last = Iter(calibrationID, int64(i&(IterSamples-1))+2, last)
	}
	calSink += last
}

//go:noinline
func sampledCalls(n int) {
	for i := range n {
		Sampled(calibrationID, int64(i&7))
	}
}

//go:noinline
func emptyLoop(n int) {
	var last int64
	for i := range n {
		last += int64(i)
	}
	calSink += last
}

// plainLoop, counterLoop and testLoop are a small loop body alone, with
// the counter the instrumenter adds to the iterations of a loop whose trip
// count is not known before it runs, and with the counter and the test of
// the sampled copy of a loop past its sampled iterations.
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
	var s int64
	k := calCounter
	for i := range n {
		k++
		s += a[i&63] ^ i
	}
	return s + k
}

//go:noinline
func testLoop(a []int64, n int64) int64 {
	var s, it int64
	k := calCounter
	for i := range n {
		k++
		if k <= IterSamples+1 {
			it = Iter(calibrationID, k, it)
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
