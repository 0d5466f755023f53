// This file defines the noise of a rank's compute (machine.Noise): each
// burst of a rank's computation between two of its operations that
// communicate or synchronise is lengthened or shortened by a relative
// deviation drawn from the machine's distribution, with a generator seeded
// per rank, so that ranks that synchronise wait for the slowest of them as
// they do on the machine (seed-003 §4.7's synchronisation time t_s).

package interp

import (
	"fmt"

	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/trace"
)

// noiseState is a rank's noise: its generator and its current burst.
//   - A burst starts where the rank's main thread begins an operation
//     that communicates or synchronises (a commlib call, a pool's or
//     goroutines' synchronisation: mustYield; a channel operation or a
//     select: burstWait) and ends at the next one. Only the
//     main thread's own compute counts towards it (not the time it waited
//     for its threads).
//   - Its outcome (one of the machine's equally likely deviations) is
//     drawn at its first charge; outcome is −1 until then.
//   - Each charge of the burst is scaled by 1 + the outcome's deviation
//     at the burst's length. The length is known only at the burst's end,
//     so it is taken as the larger of the burst so far (its charges
//     without noise) and the length of the last burst, of any rank, that
//     started at the same operation (World.burstLen): in an iterative
//     program the burst after an operation is the same each time, however
//     bursts of other lengths alternate with it.
//
// The deviations have mean 0 at every length (the machine's, centred:
// centredNoise), and the length a burst is read at does not depend on
// its outcome, so a rank's expected compute is its fragments' means; only
// the spread is added, and with it the waits.
type noiseState struct {
	rng     uint64
	outcome int32 // −1: none drawn for the current burst
	start   int32 // the site the burst started at (World.burstLen), −1: none
	sofar   int64 // the burst's compute so far, without noise
	dev     float64
	devAt   int64 // the length dev was read at (0: none)
}

// initNoise seeds p's generator from the run's seed and the rank, each
// mixed by splitmix64's finaliser, so that no two ranks' streams are
// shifted copies of one another and a rank's draws depend on neither np
// nor the order the scheduler runs the ranks in.
func (p *proc) initNoise(seed uint64) {
	p.noise = noiseState{rng: mix64(seed ^ mix64(uint64(p.rank)+1)), outcome: -1, start: -1}
}

// DefaultNoiseSeed is the seed predict's commands use unless told
// otherwise (--noise-seed).
const DefaultNoiseSeed = 1

// mix64 is splitmix64's finaliser.
func mix64(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// next is splitmix64's step.
func (n *noiseState) next() uint64 {
	n.rng += 0x9e3779b97f4a7c15
	return mix64(n.rng)
}

// endBurst ends p's burst of compute: p's main thread is about to begin
// the operation compiled at site sid (siteID; −1: one that ends a burst
// but starts none the next can be keyed by). Calling it again before p
// computes changes nothing.
func (p *proc) endBurst(sid int32) {
	n := &p.noise
	if n.sofar > 0 && n.start >= 0 {
		w := p.w
		for int(n.start) >= len(w.burstLen) {
			w.burstLen = append(w.burstLen, 0)
		}
		w.burstLen[n.start] = n.sofar
	}
	if n.sofar > 0 || n.outcome >= 0 {
		n.outcome, n.sofar, n.devAt = -1, 0, 0
	}
	n.start = sid
}

// noisy is t (≥ 0), a compute of p's main thread, with its burst's
// deviation; saturating at the clock's limit, which it keeps.
func (p *proc) noisy(t int64) int64 {
	n := &p.noise
	noise := p.w.noise
	if n.outcome < 0 {
		n.outcome = int32(n.next() % uint64(noise.Outcomes()))
	}
	n.sofar = addTime(n.sofar, t)
	length := n.sofar
	if s := n.start; s >= 0 && int(s) < len(p.w.burstLen) {
		length = max(length, p.w.burstLen[s])
	}
	if length != n.devAt {
		n.dev, n.devAt = noise.At(int(n.outcome), trace.Time(length)), length
	}
	if t == overflowClock {
		return t
	}
	return roundTime(float64(t) * (1 + n.dev))
}

// NoiseText says that a run drew the noise n with seed, for its reports.
func NoiseText(seed uint64, n machine.Noise) string {
	return fmt.Sprintf("seed %d; bursts of compute vary %s", seed, n.Describe())
}

// centredNoise is n with each point's deviations less their mean: a
// machine file may hold them off 0 by up to its validation's tolerance,
// and the noise must not move a rank's mean.
func centredNoise(n machine.Noise) machine.Noise {
	c := make(machine.Noise, len(n))
	for i, pt := range n {
		mean := 0.0
		for _, d := range pt.Deviations {
			mean += d
		}
		mean /= float64(len(pt.Deviations))
		devs := make([]float64, len(pt.Deviations))
		for k, d := range pt.Deviations {
			devs[k] = max(d-mean, -1+1e-9)
		}
		c[i] = machine.NoisePoint{Burst: pt.Burst, Deviations: devs}
	}
	return c
}

// siteID is the index of an operation's site in World.burstLen, assigned
// as operations are compiled.
func (c *compiler) siteID(site string) int32 {
	cp := c.cp
	if id, ok := cp.siteIDs[site]; ok {
		return id
	}
	if cp.siteIDs == nil {
		cp.siteIDs = map[string]int32{}
	}
	id := int32(len(cp.siteIDs))
	cp.siteIDs[site] = id
	return id
}

// burstWait ends p's burst when its main thread begins a channel
// operation or a select, which can make it wait (they have no site ID).
func (p *proc) burstWait() {
	if p.cur == &p.main && p.rank >= 0 {
		p.endBurst(-1)
	}
}
