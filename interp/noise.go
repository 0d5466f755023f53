// This file defines the noise of a rank's compute (machine.Noise): each
// burst of a rank's computation between two of its operations that can
// make it wait is lengthened or shortened by a relative deviation drawn
// from the machine's distribution, with a generator seeded per rank, so
// that ranks that synchronise wait for the slowest of them as they do on
// the machine (seed-003 §4.7's synchronisation time t_s).

package interp

import (
	"math"

	"github.com/predict-tools/predict/trace"
)

// DefaultNoiseSeed seeds the ranks' noise when Config.NoiseSeed is 0.
const DefaultNoiseSeed = 1

// noiseState is a rank's noise: its generator and its current burst.
//   - A burst starts where the rank's main thread last began an operation
//     that can make it wait (mustYield: a communication, a wait, a
//     collective, a thread or goroutine synchronisation) and ends at the
//     next one; burstStart is the rank's compute at its start.
//   - Its outcome (one of the machine's equally likely deviations) is
//     drawn at its first charge; outcome is −1 until then.
//   - Each charge of the burst is scaled by 1 + the outcome's deviation
//     at the burst's length. The length is known only at the burst's end,
//     so it is taken as the larger of the rank's previous burst and the
//     burst so far: exact for the repeated bursts of an iterative program
//     (the deviation then is computed once a burst, as dev), and for a
//     first or a growing burst its length so far.
//
// The deviations have mean 0, so a rank's expected compute is its
// fragments' means; only the spread is added, and with it the waits.
type noiseState struct {
	rng        uint64
	outcome    int32
	dev        float64 // the outcome's deviation at last (valid while the burst is no longer)
	burstStart int64
	last       int64 // the previous burst's length
}

// initNoise seeds p's generator: splitmix64 from the run's seed and the
// rank, so a rank's draws depend on neither np nor the order the
// scheduler runs the ranks in.
func (p *proc) initNoise(seed uint64) {
	p.noise.rng = seed ^ (uint64(p.rank)+1)*0x9e3779b97f4a7c15
	p.noise.outcome = -1
}

// next is splitmix64's step.
func (n *noiseState) next() uint64 {
	n.rng += 0x9e3779b97f4a7c15
	z := n.rng
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// endBurst ends p's burst of compute: p is about to begin an operation
// that can make it wait. Calling it again before p computes changes
// nothing.
func (p *proc) endBurst() {
	n := &p.noise
	if n.outcome >= 0 {
		n.last = p.compute - n.burstStart
		n.outcome = -1
	}
	n.burstStart = p.compute
}

// noisy is t, a compute of p's main thread, with p's burst's deviation.
func (p *proc) noisy(t int64) int64 {
	noise := p.w.noise
	n := &p.noise
	if n.outcome < 0 {
		n.outcome = int32(n.next() % uint64(noise.Outcomes()))
		n.dev = math.NaN()
		if n.last > 0 {
			n.dev = noise.At(int(n.outcome), trace.Time(n.last))
		}
	}
	dev := n.dev
	if so := p.compute - n.burstStart + t; math.IsNaN(dev) || so > n.last {
		dev = noise.At(int(n.outcome), trace.Time(so))
	}
	return t + int64(math.Round(float64(t)*dev))
}
