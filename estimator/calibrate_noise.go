// This file defines the calibration's compute-noise stage (machine.Noise):
// a fixed work quantum (FWQ) per step on every core, the ranks of the
// in-process runtime synchronising after each step by a ring exchange, as
// bulk-synchronous programs do. Each step's quanta on the ranks share a
// part (the VM's vCPUs slowed together, the clock frequency): only what
// sets a rank apart from the others in its step makes them wait for each
// other, so each burst length's equally likely relative deviations are
// the ranks' delays over their step's fastest rank, pooled over the ranks
// and centred.

package estimator

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/trace"
)

// The noise stage: its burst lengths, the steps each rank runs at each in a
// full calibration (a third of them in a quick one), the share of each
// rank's first steps dropped as warm-up, the outcomes of each point, and
// the bounds that make a burst length unmeasurable.
var (
	noiseBursts    = []time.Duration{10 * time.Microsecond, 100 * time.Microsecond, time.Millisecond}
	noiseFullSteps = []int{3000, 1000, 200}
)

const (
	noiseWarmup     = 0.10
	noiseShares     = 32
	noiseMinSamples = 64 // kept samples of one burst length, all ranks
	noiseMaxSlow    = 20 // a quantum taking more than 20× its target
	// noiseMaxLen caps a rank's stencil array (8 MiB); longer quanta
	// repeat sweeps.
	noiseMaxLen = 1 << 20
	// noiseLauncherText says why no noise is measured under a launcher.
	noiseLauncherText = "not measured under a launcher (MPI ranks poll and are usually pinned; measuring it across processes is future work)"
)

// NoiseCalibration is what the noise stage measured: per burst length, the
// quanta's mean time, their spread and the outcomes the machine holds.
// NotMeasured, when set, says why the machine has no noise (Bursts then
// holds what was measured before, for the diagnosis).
type NoiseCalibration struct {
	Ranks       int           `json:"ranks,omitempty"`
	Took        time.Duration `json:"took_ns,omitempty"`
	Bursts      []NoiseBurst  `json:"bursts,omitempty"`
	NotMeasured string        `json:"not_measured,omitempty"`
}

// NoiseBurst is one burst length of the noise stage. Deviations are
// relative to Mean, (t − mean)/mean, over every rank's kept samples;
// Spread is their standard deviation, P50/P90/P99 their percentiles
// (nearest rank). RankSpread is the spread of the ranks' own part: of
// each quantum's time less the fastest of its step's quanta, over Mean
// (rankDeviations). Outcomes are the machine's: the means of noiseShares
// equal shares of the ranks' own delays sorted, their mean subtracted,
// rounded to 4 significant digits.
type NoiseBurst struct {
	Target     time.Duration `json:"target_ns"`
	Mean       float64       `json:"mean_ns"`
	Steps      int           `json:"steps"`   // each rank's, warm-up included
	Samples    int           `json:"samples"` // kept, all ranks
	Length     int           `json:"stencil_length"`
	Sweeps     int           `json:"sweeps"`
	Spread     float64       `json:"spread"`
	RankSpread float64       `json:"rank_spread"`
	P50        float64       `json:"p50"`
	P90        float64       `json:"p90"`
	P99        float64       `json:"p99"`
	Outcomes   []float64     `json:"outcomes"`
}

// noiseSteps are the steps of each burst length.
func noiseSteps(quick bool) []int {
	steps := slices.Clone(noiseFullSteps)
	if quick {
		for i := range steps {
			steps[i] /= 3
		}
	}
	return steps
}

// noise measures the compute noise in this process on GOMAXPROCS ranks (at
// least 2); it never refuses the calibration: a burst length that cannot be
// measured leaves the machine without noise, NotMeasured saying why.
func (cal *Calibration) noise(logf func(string, ...any)) {
	np := max(runtime.GOMAXPROCS(0), 2)
	logf("compute noise: FWQ stencil quanta of %s on %d ranks synchronised by a ring exchange each step", burstsText(noiseBursts), np)
	cal.Noise = measureNoise(np, noiseBursts, noiseSteps(cal.Quick), logf)
	if n := cal.Noise; n.NotMeasured != "" {
		logf("compute noise: %s", n.NotMeasured)
	} else {
		logf("compute noise: measured in %s", n.Took.Round(time.Millisecond))
	}
}

// measureNoise runs the stage: at each burst length, steps[i] steps on np
// ranks.
func measureNoise(np int, bursts []time.Duration, steps []int, logf func(string, ...any)) NoiseCalibration {
	t0 := time.Now()
	nc := NoiseCalibration{Ranks: np}
	for i, target := range bursts {
		b, err := measureNoiseBurst(np, target, steps[i])
		if err == nil && i > 0 && b.Mean <= nc.Bursts[i-1].Mean {
			err = fmt.Errorf("its mean %s is not above the %s quanta's", nsText(b.Mean), nsText(nc.Bursts[i-1].Mean))
		}
		if err != nil {
			nc.NotMeasured = fmt.Sprintf("not measured: the %s quanta: %v", machine.FormatDuration(durationTime(target)), err)
			break
		}
		logf("compute noise %5s: mean %s, spread ±%.1f %% (p50 %+.1f %%, p90 %+.1f %%, p99 %+.1f %%), the ranks' own ±%.1f %%, %d samples",
			machine.FormatDuration(durationTime(target)), nsText(b.Mean), 100*b.Spread, 100*b.P50, 100*b.P90, 100*b.P99, 100*b.RankSpread, b.Samples)
		nc.Bursts = append(nc.Bursts, b)
	}
	nc.Took = time.Since(t0)
	return nc
}

// measureNoiseBurst measures one burst length: each rank touches its own
// stencil array, then for steps steps times its quantum and exchanges one
// float64 with each neighbour of the ring (not timed); each rank's first
// noiseWarmup of the steps is dropped.
func measureNoiseBurst(np int, target time.Duration, steps int) (NoiseBurst, error) {
	b := NoiseBurst{Target: target, Steps: steps}
	q, err := planQuantum(target)
	if err != nil {
		return b, err
	}
	b.Length, b.Sweeps = q.length, q.sweeps
	kept := make([][]float64, np)
	warm := int(math.Ceil(noiseWarmup * float64(steps)))
	runErr := commlib.Run(np, func(c *commlib.Comm) {
		r := c.Rank()
		v := stencilArray(q.length)
		left, right := (r+np-1)%np, (r+1)%np
		out, in := []float64{0}, []float64{0}
		times := make([]float64, 0, steps)
		c.Barrier()
		for range steps {
			t0 := time.Now()
			q.run(v)
			times = append(times, float64(time.Since(t0).Nanoseconds()))
			out[0] = v[1]
			c.Sendrecv(out, right, 0, in, left, 0)
			c.Sendrecv(out, left, 1, in, right, 1)
		}
		kept[r] = times[min(warm, len(times)):]
	})
	if runErr != nil {
		return b, fmt.Errorf("the in-process runtime: %v", runErr)
	}
	var all []float64
	for _, k := range kept {
		all = append(all, k...)
	}
	d, err := binNoise(all, noiseShares)
	if err != nil {
		return b, err
	}
	own, err := binDeviations(rankDeviations(kept, d.mean), noiseShares)
	if err != nil {
		return b, err
	}
	if limit := noiseMaxSlow * float64(target.Nanoseconds()); d.mean > limit {
		return b, fmt.Errorf("a quantum takes %s on average, over %d× its target", nsText(d.mean), noiseMaxSlow)
	}
	b.Mean, b.Samples = d.mean, len(all)
	b.Spread, b.P50, b.P90, b.P99 = d.spread(), d.percentile(0.50), d.percentile(0.90), d.percentile(0.99)
	b.RankSpread = own.spread()
	b.Outcomes = make([]float64, len(own.outcomes))
	for i, x := range own.outcomes {
		b.Outcomes[i], _ = strconv.ParseFloat(strconv.FormatFloat(x, 'g', 4, 64), 64)
	}
	return b, checkOutcomes(b.Outcomes)
}

// noiseDist is the distribution of a burst length's samples: their mean,
// their relative deviations from it sorted, and the equally likely
// outcomes made of them.
type noiseDist struct {
	mean     float64
	devs     []float64
	outcomes []float64
}

// binNoise turns the samples of one burst length (times, any unit) into
// shares outcomes: m the samples' mean, d_i = t_i/m − 1 sorted, share k
// the deviations sorted[k·N/shares : (k+1)·N/shares], each outcome the
// mean of its share, the outcomes' mean (0 but for rounding) subtracted.
func binNoise(samples []float64, shares int) (noiseDist, error) {
	n := len(samples)
	if n < max(noiseMinSamples, shares) {
		return noiseDist{}, fmt.Errorf("%d samples kept, fewer than %d", n, max(noiseMinSamples, shares))
	}
	sum := 0.0
	for _, t := range samples {
		if !(t > 0) || math.IsInf(t, 0) {
			return noiseDist{}, fmt.Errorf("a sample of %v: want a positive time", t)
		}
		sum += t
	}
	mean := sum / float64(n)
	devs := make([]float64, n)
	for i, t := range samples {
		devs[i] = t/mean - 1
	}
	d, err := binDeviations(devs, shares)
	d.mean = mean
	return d, err
}

// rankDeviations are the ranks' own delays: each kept quantum's time less
// the fastest of its step's quanta over the ranks, over mean; one cut by
// the steps every rank kept. What all ranks of a step share (the VM's
// vCPUs slowed together) is no rank's own, and a detour of one rank is
// that rank's alone (FWQ's noise, t − t_min, with the step's fastest rank
// as t_min). Their mean is subtracted later (binDeviations): the profile's
// fragment means hold it already.
//
// The difference from the step's mean, scaled by √(np/(np − 1)), is exact
// for normal noise but turns one rank's detour into a speed-up of the
// others, below −100 % for a detour larger than the quantum (this
// machine's 10 µs quanta take ~100 µs about once in a hundred): a rank
// cannot take less than no time. The delay over the fastest rank reads
// normal noise's expected wait between two ranks about 30 % low and
// detours exactly.
func rankDeviations(kept [][]float64, mean float64) []float64 {
	np := len(kept)
	steps := len(kept[0])
	for _, k := range kept {
		steps = min(steps, len(k))
	}
	devs := make([]float64, 0, np*steps)
	for s := range steps {
		fastest := kept[0][s]
		for _, k := range kept {
			fastest = min(fastest, k[s])
		}
		for _, k := range kept {
			devs = append(devs, (k[s]-fastest)/mean)
		}
	}
	return devs
}

// binDeviations cuts relative deviations into shares outcomes: sorted,
// share k the deviations sorted[k·N/shares : (k+1)·N/shares], each outcome
// the mean of its share, the outcomes' mean subtracted.
func binDeviations(devs []float64, shares int) (noiseDist, error) {
	n := len(devs)
	if n < max(noiseMinSamples, shares) {
		return noiseDist{}, fmt.Errorf("%d samples kept, fewer than %d", n, max(noiseMinSamples, shares))
	}
	d := noiseDist{devs: slices.Clone(devs), outcomes: make([]float64, shares)}
	slices.Sort(d.devs)
	total := 0.0
	for k := range d.outcomes {
		share := d.devs[k*n/shares : (k+1)*n/shares]
		s := 0.0
		for _, x := range share {
			s += x
		}
		d.outcomes[k] = s / float64(len(share))
		total += d.outcomes[k]
	}
	for k := range d.outcomes {
		d.outcomes[k] -= total / float64(shares)
	}
	return d, nil
}

// spread is the standard deviation of the deviations, as the machine's
// noise reports its outcomes' (the ranks' own delays do not have a mean
// of 0: their root mean square is not their spread).
func (d noiseDist) spread() float64 {
	return machine.NoisePoint{Deviations: d.devs}.Spread()
}

// percentile is the deviation of nearest rank p: the ⌈p·N⌉-th smallest.
func (d noiseDist) percentile(p float64) float64 {
	i := int(math.Ceil(p*float64(len(d.devs)))) - 1
	return d.devs[min(max(i, 0), len(d.devs)-1)]
}

// checkOutcomes checks outcomes as machine.Noise's validation does, so
// that a measurement gone wrong leaves the noise out instead of refusing
// the machine.
func checkOutcomes(o []float64) error {
	return machine.Noise{{Burst: trace.Microsecond, Deviations: o}}.Check()
}

// quantum is a fixed work quantum: sweeps stencil sweeps over an array of
// length float64s.
type quantum struct{ length, sweeps int }

// run runs the quantum over v (of q.length).
func (q quantum) run(v []float64) {
	for range q.sweeps {
		stencilSweep(v)
	}
}

// stencilSweep is one 3-point stencil sweep in place.
func stencilSweep(v []float64) {
	for k := 1; k < len(v)-1; k++ {
		v[k] = 0.5*v[k] + 0.25*(v[k-1]+v[k+1])
	}
}

// stencilArray is a touched array of n float64s.
func stencilArray(n int) []float64 {
	v := make([]float64, n)
	for k := range v {
		v[k] = float64(k%7) + 1
	}
	return v
}

// planQuantum chooses the quantum of target alone: the time per element of
// a sweep of a small array (the fastest of a few runs) scaled to the
// target, then corrected once by the median of a few runs of the quantum
// itself. A quantum still over noiseMaxSlow × its target cannot be used.
func planQuantum(target time.Duration) (quantum, error) {
	const small, smallSweeps = 4096, 20
	v := stencilArray(small)
	best := math.Inf(1)
	for range 5 {
		t0 := time.Now()
		quantum{small, smallSweeps}.run(v)
		best = min(best, float64(time.Since(t0).Nanoseconds()))
	}
	perElem := max(best/(small*smallSweeps), 0.01)
	q := quantumOf(float64(target.Nanoseconds()) / perElem)
	v = stencilArray(q.length)
	times := make([]float64, 5)
	for i := range times {
		t0 := time.Now()
		q.run(v)
		times[i] = float64(time.Since(t0).Nanoseconds())
	}
	took := median(times)
	if took > noiseMaxSlow*float64(target.Nanoseconds()) {
		return q, fmt.Errorf("a quantum of %d × %d elements takes %s, over %d× its target", q.sweeps, q.length, nsText(took), noiseMaxSlow)
	}
	return quantumOf(float64(q.length*q.sweeps) * float64(target.Nanoseconds()) / max(took, 1)), nil
}

// quantumOf is the quantum of about elems element updates: one sweep of
// an array that long, or sweeps of noiseMaxLen.
func quantumOf(elems float64) quantum {
	if elems <= noiseMaxLen {
		return quantum{max(int(math.Round(elems)), 3), 1}
	}
	return quantum{noiseMaxLen, max(int(math.Round(elems/noiseMaxLen)), 1)}
}

// machine is the machine's noise: nil unless every burst length was
// measured.
func (nc NoiseCalibration) machine() machine.Noise {
	if nc.NotMeasured != "" || len(nc.Bursts) == 0 {
		return nil
	}
	n := make(machine.Noise, len(nc.Bursts))
	for i, b := range nc.Bursts {
		n[i] = machine.NoisePoint{Burst: trace.Time(math.Round(b.Mean)) * trace.Nanosecond, Deviations: slices.Clone(b.Outcomes)}
	}
	return n
}

// text says how the noise was measured, for a machine's source.
func (nc NoiseCalibration) text() string {
	switch {
	case nc.NotMeasured != "":
		return "noise: " + nc.NotMeasured
	case len(nc.Bursts) == 0:
		return "noise: not measured"
	}
	targets, steps, spreads := make([]time.Duration, len(nc.Bursts)), make([]string, len(nc.Bursts)), make([]string, len(nc.Bursts))
	for i, b := range nc.Bursts {
		targets[i], steps[i], spreads[i] = b.Target, strconv.Itoa(b.Steps), fmt.Sprintf("±%.1f %%", 100*b.RankSpread)
	}
	return fmt.Sprintf("noise: FWQ stencil quanta of %s on %d ranks synchronised by a ring exchange each step, %s steps each; the ranks' own delays over their step's fastest: %s",
		burstsText(targets), nc.Ranks, strings.Join(steps, "/"), strings.Join(spreads, "/"))
}

// summary is the noise's lines in a calibration's report.
func (nc NoiseCalibration) summary() []string {
	var lines []string
	for _, b := range nc.Bursts {
		lines = append(lines, fmt.Sprintf("noise %s: mean %s, spread ±%.1f %% (p50 %+.1f %%, p90 %+.1f %%, p99 %+.1f %%), the ranks' own ±%.1f %% (the machine's), %d samples of %d ranks × %d steps less %.0f %% warm-up",
			machine.FormatDuration(durationTime(b.Target)), nsText(b.Mean), 100*b.Spread, 100*b.P50, 100*b.P90, 100*b.P99, 100*b.RankSpread, b.Samples, nc.Ranks, b.Steps, 100*noiseWarmup))
	}
	switch {
	case nc.NotMeasured != "":
		lines = append(lines, "noise: "+nc.NotMeasured)
	case len(nc.Bursts) > 0:
		lines = append(lines, fmt.Sprintf("noise: FWQ stencil quanta, a ring exchange each step, in %s", nc.Took.Round(time.Millisecond)))
	}
	return lines
}

// burstsText is "10us/100us/1ms".
func burstsText(ds []time.Duration) string {
	s := make([]string, len(ds))
	for i, d := range ds {
		s[i] = machine.FormatDuration(durationTime(d))
	}
	return strings.Join(s, "/")
}

// durationTime is d as a trace time.
func durationTime(d time.Duration) trace.Time { return trace.Time(d.Nanoseconds()) * trace.Nanosecond }
