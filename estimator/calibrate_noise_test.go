package estimator

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/predict-tools/predict/machine"
)

// TestBinNoise bins 64 known samples by hand: 80, 81, …, 141, then 142 and
// an outlier of 1199, shuffled. Their sum is 62·110.5 + 142 + 1199 = 8192,
// so m = 128. Sorted, share k (two samples) is {80+2k, 81+2k} for k < 31:
// its outcome (80.5 + 2k)/128 − 1; share 31 is {142, 1199}: 670.5/128 − 1.
// The outlier moves the top share only; the outcomes' mean is 0.
func TestBinNoise(t *testing.T) {
	var samples []float64
	for v := 80; v <= 142; v++ {
		samples = append(samples, float64(v))
	}
	samples = append(samples, 1199)
	rng := rand.New(rand.NewPCG(1, 2))
	rng.Shuffle(len(samples), func(i, j int) { samples[i], samples[j] = samples[j], samples[i] })

	d, err := binNoise(samples, 32)
	if err != nil {
		t.Fatal(err)
	}
	near := func(got, want float64) bool { return math.Abs(got-want) < 1e-12 }
	if d.mean != 128 || len(d.outcomes) != 32 {
		t.Fatalf("mean %v, %d outcomes; want 128, 32", d.mean, len(d.outcomes))
	}
	sum := 0.0
	for k, got := range d.outcomes {
		want := (80.5+2*float64(k))/128 - 1
		if k == 31 {
			want = 670.5/128 - 1 // 4.23828125: the outlier's share
		}
		if !near(got, want) {
			t.Errorf("outcome %d = %v, want %v", k, got, want)
		}
		sum += got
	}
	if math.Abs(sum) > 1e-12 {
		t.Errorf("outcomes' sum %v, want 0", sum)
	}
	if !near(d.outcomes[0], -0.37109375) || !near(d.outcomes[30], 0.09765625) {
		t.Errorf("outcomes 0 and 30: %v, %v", d.outcomes[0], d.outcomes[30])
	}
	// Nearest rank: p50 the 32nd smallest (111), p90 the 58th (137), p99
	// the 64th (the outlier). Spread: Σt² = 776 891 + 142² + 1199² =
	// 2 234 656; /64 − 128² = 18 532.5, the variance of t.
	for _, c := range []struct {
		what      string
		got, want float64
	}{
		{"p50", d.percentile(0.5), 111.0/128 - 1},
		{"p90", d.percentile(0.9), 137.0/128 - 1},
		{"p99", d.percentile(0.99), 1199.0/128 - 1},
		{"spread", d.spread(), math.Sqrt(18532.5) / 128},
	} {
		if !near(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
		}
	}
	if err := checkOutcomes(d.outcomes); err != nil {
		t.Error(err)
	}

	// Too few samples, or a time that is not one: no outcomes.
	if _, err := binNoise(samples[:63], 32); err == nil {
		t.Error("63 samples binned")
	}
	bad := append([]float64{0}, samples[1:]...)
	if _, err := binNoise(bad, 32); err == nil {
		t.Error("a zero time binned")
	}
}

// TestMeasureNoise runs the stage with a few steps: every burst length is
// measured, and the machine's noise validates (no assertion on the times).
func TestMeasureNoise(t *testing.T) {
	steps := []int{40, 40, 40} // 36 kept per rank: 72 samples on 2 ranks
	var log strings.Builder
	nc := measureNoise(2, noiseBursts, steps, func(f string, args ...any) { log.WriteString(f + "\n") })
	for try := 1; nc.NotMeasured != "" && try < 3; try++ {
		// A busy host can make a short quantum take longer than a longer
		// one: the stage says so and measures nothing; measure again.
		log.Reset()
		nc = measureNoise(2, noiseBursts, steps, func(f string, args ...any) { log.WriteString(f + "\n") })
	}
	if nc.NotMeasured != "" {
		t.Fatalf("%s\n%s", nc.NotMeasured, log.String())
	}
	n := nc.machine()
	if len(n) != 3 || n.Outcomes() != noiseShares || !(n[0].Burst < n[1].Burst && n[1].Burst < n[2].Burst) {
		t.Fatalf("noise %+v", n)
	}
	for i, p := range n {
		mean := 0.0
		for _, x := range p.Deviations {
			mean += x
		}
		if mean /= float64(len(p.Deviations)); math.Abs(mean) > 0.001 {
			t.Errorf("point %d: outcomes' mean %v", i, mean)
		}
		if b := nc.Bursts[i]; b.Samples != 72 || b.Steps != 40 || b.Length < 3 || b.Sweeps < 1 {
			t.Errorf("burst %d: %+v", i, b)
		}
	}
	m, err := machine.Preset("local")
	if err != nil {
		t.Fatal(err)
	}
	m.Noise = n
	if err := m.Validate(); err != nil {
		t.Error(err)
	}
	for _, want := range []string{"noise: FWQ stencil quanta of 10us/100us/1ms on 2 ranks", "40/40/40 steps each; the ranks' own delays over their step's fastest: ±"} {
		if !strings.Contains(nc.text(), want) {
			t.Errorf("source text lacks %q: %s", want, nc.text())
		}
	}
}

// A burst length that is not measured leaves no noise at all.
func TestNoiseNotMeasured(t *testing.T) {
	nc := NoiseCalibration{Ranks: 2, Bursts: []NoiseBurst{{Target: 10 * time.Microsecond, Mean: 1e4, Outcomes: []float64{-0.1, 0.1}}},
		NotMeasured: "not measured: the 100us quanta: 12 samples kept, fewer than 64"}
	if nc.machine() != nil || !strings.Contains(nc.text(), "fewer than 64") {
		t.Errorf("machine %v, text %q", nc.machine(), nc.text())
	}
	if got := (NoiseCalibration{NotMeasured: noiseLauncherText}).text(); !strings.Contains(got, "under a launcher") {
		t.Errorf("under a launcher: %q", got)
	}
	if s := nc.summary(); len(s) != 2 || !strings.Contains(s[1], "fewer than 64") {
		t.Errorf("summary %q", s)
	}
}

// TestRankDeviations: only what sets a rank apart from its step's other
// ranks is its own: its delay over the step's fastest. Two ranks, mean 12:
// step 0 (10, 14) delays rank 1 by 4/12; step 1 (20, 20), both slowed
// together, delays neither; step 2 (2, 34), a detour of rank 1, delays it
// by 32/12 and makes rank 0 no faster. Three ranks at (9, 12, 15): 0,
// 3/12, 6/12. The shorter rank's steps cut the others'.
func TestRankDeviations(t *testing.T) {
	near := func(got, want []float64) bool {
		if len(got) != len(want) {
			return false
		}
		for i := range got {
			if math.Abs(got[i]-want[i]) > 1e-12 {
				return false
			}
		}
		return true
	}
	if got, want := rankDeviations([][]float64{{10, 20, 2}, {14, 20, 34}}, 12), []float64{0, 4.0 / 12, 0, 0, 0, 32.0 / 12}; !near(got, want) {
		t.Errorf("two ranks: %v, want %v", got, want)
	}
	if got, want := rankDeviations([][]float64{{9, 1}, {12}, {15, 1}}, 12), []float64{0, 0.25, 0.5}; !near(got, want) {
		t.Errorf("three ranks: %v, want %v", got, want)
	}
	// Their spread is about their mean, 0.25: √(0.125/3), not their root
	// mean square √(0.3125/3).
	if got, want := (noiseDist{devs: []float64{0, 0.25, 0.5}}).spread(), math.Sqrt(0.125/3); math.Abs(got-want) > 1e-12 {
		t.Errorf("spread of the three ranks' delays %v, want %v", got, want)
	}
}
