// This file defines the measurement of the probes' own cost.

package probe

import (
	"slices"
	"sync"
)

var (
	overheadOnce             sync.Once
	segNS, iterNS, counterNS float64
)

// calibrationID is a fragment slot used only to measure the probes.
const calibrationID = 0

// calSink keeps the calibration loops from being optimized away.
var calSink int64

// Overhead returns, in nanoseconds and measured once (medians of 7
// rounds), what the probes add to the measurements: the time a Now/Seg
// pair around nothing reads, the time an Iter call adds to the iteration
// it marks, and the per-iteration counter increment.
func Overhead() (seg, iter, counter float64) {
	overheadOnce.Do(func() {
		cal := &frag{}
		const reps, rounds = 2000, 7
		var segs, iters, counters []float64
		for range rounds {
			// What a measurement of an empty fragment reads: the time from
			// the caller's Now to the probe's.
			*cal = frag{}
			for range reps {
				t := Now()
				d := Now() - t
				cal.mu.Lock()
				cal.add("seg", d)
				cal.mu.Unlock()
			}
			segs = append(segs, cal.sum/float64(cal.count))

			t0 := Now()
			last := int64(0)
			for range reps {
				now := Now()
				if last != 0 {
					cal.mu.Lock()
					cal.samples = append(cal.samples[:0], now-last)
					cal.mu.Unlock()
				}
				last = now
			}
			iters = append(iters, float64(Now()-t0)/reps)

			// The counter and the sampling test the instrumenter adds to
			// each iteration, on a small body like a stencil's.
			const n = 1 << 16
			var k, mark int64
			t0 = Now()
			for i := range int64(n) {
				calSink += i * i
			}
			plain := Now() - t0
			t0 = Now()
			for i := range int64(n) {
				k++
				if k <= 0 { // never true, as after the sampled iterations
					mark = Iter(calibrationID, mark)
				}
				calSink += i * i
			}
			counted := Now() - t0
			counters = append(counters, max(0, float64(counted-plain))/n)
		}
		segNS, iterNS, counterNS = med(segs), med(iters), med(counters)
	})
	return segNS, iterNS, counterNS
}

func med(xs []float64) float64 {
	slices.Sort(xs)
	return xs[len(xs)/2]
}
