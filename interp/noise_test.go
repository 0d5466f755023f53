package interp

import (
	"errors"
	"testing"

	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/profile"
	"github.com/predict-tools/predict/trace"
)

// noiseRun predicts interp/testdata/noise, whose loop costs 100 µs an
// entry (16 trips of 6.25 µs), at np with args, on handMachine with noise
// (nil: none) and seed.
func noiseRun(t *testing.T, p *Program, np int, args []string, noise machine.Noise, seed uint64, off bool) *Result {
	t.Helper()
	n, _ := markedLoop(t, p, "interp/testdata/noise/main.go", "loop")
	pf := syntheticProfile(t, p, 2, args)
	pf.Fragments = append(pf.Fragments, profile.FragmentStats{Node: n.ID, Kind: profile.FragLoop, Pos: n.Pos.String(), Executions: 400, MeanPS: 100_000_000})
	pf.Loops = append(pf.Loops, profile.LoopStats{Node: n.ID, PerIterPS: 6_250_000, Trips: []profile.TripCount{{Trips: 16, Count: 400}}})
	if err := pf.Validate(); err != nil {
		t.Fatal(err)
	}
	m := handMachine(t)
	m.Noise = noise
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	r, err := p.Run(Config{NP: np, Machine: m, Profile: pf, Args: args, NoiseSeed: seed, NoNoise: off})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestNoiseHandComputed: without synchronisations a rank's whole run is
// one burst, so it draws one outcome and its compute is its mean × (1 +
// that outcome); the outcome is the first draw of its generator, computed
// here by hand from splitmix64 (the burst, 20 ms, is below the noise's
// only point, 1 s: its outcomes hold).
func TestNoiseHandComputed(t *testing.T) {
	p := prepare(t, "./interp/testdata/noise")
	noise := machine.Noise{{Burst: trace.Second, Deviations: []float64{-0.1, 0.1}}}
	const mean = 200 * 100_000_000 // 200 steps of 100 µs, ps
	for _, np := range []int{1, 2, 4} {
		r := noiseRun(t, p, np, []string{"-sync=false"}, noise, 7, false)
		if len(r.Ranks) != np {
			t.Fatalf("np=%d: %d ranks' times", np, len(r.Ranks))
		}
		for _, rk := range r.Ranks {
			q := proc{rank: rk.Rank}
			q.initNoise(7)
			want := int64(mean * 0.9)
			if q.noise.next()%2 == 1 {
				want = int64(mean * 1.1)
			}
			if got := int64(rk.Compute); got != want {
				t.Errorf("np=%d rank %d: compute %d ps, want %d (its first draw's outcome)", np, rk.Rank, got, want)
			}
		}
	}
	// Left out, or on a machine without noise: the mean exactly.
	for _, off := range []bool{true, false} {
		var nz machine.Noise
		if off {
			nz = noise
		}
		r := noiseRun(t, p, 2, []string{"-sync=false"}, nz, 7, off)
		if got := int64(r.Compute.Max); got != mean {
			t.Errorf("noise left out (%v): compute %d ps, want the mean %d", off, got, mean)
		}
	}
}

// TestNoiseSynchronised: ranks that exchange after every 100 µs step whose
// bursts vary by ±10 % wait for the slower one: a step costs 110 µs unless
// both drew −10 % (a quarter of the steps), +5 % over the noiseless run in
// expectation, where a rank alone (np = 1) stays at its mean. The draws
// are the seed's: the same seed gives the same prediction, another seed
// another one.
func TestNoiseSynchronised(t *testing.T) {
	p := prepare(t, "./interp/testdata/noise")
	noise := machine.Noise{{Burst: trace.Second, Deviations: []float64{-0.1, 0.1}}}
	quiet := noiseRun(t, p, 2, nil, nil, 0, false)
	noisy := noiseRun(t, p, 2, nil, noise, 0, false)
	extra := float64(noisy.Time-quiet.Time) / float64(200*100_000_000)
	if extra < 0.035 || extra > 0.065 {
		t.Errorf("np=2: noise added %.2f %% of the compute, want about 5 %% (expected max of two ±10 %% draws)", 100*extra)
	}
	if noisy.Wait.Max <= quiet.Wait.Max {
		t.Errorf("np=2: waiting %s with noise, %s without: want more", noisy.Wait.Max, quiet.Wait.Max)
	}
	// Alone, the outcomes average out: within 3 standard errors of the mean.
	alone := noiseRun(t, p, 1, nil, noise, 0, false)
	if d := float64(alone.Compute.Max)/float64(200*100_000_000) - 1; d < -0.021 || d > 0.021 {
		t.Errorf("np=1: compute %.2f %% off its mean, want within ±2.1 %% (200 draws of ±10 %%)", 100*d)
	}
	again := noiseRun(t, p, 2, nil, noise, 0, false)
	if again.Time != noisy.Time {
		t.Errorf("same seed: %s then %s", noisy.Time, again.Time)
	}
	other := noiseRun(t, p, 2, nil, noise, 99, false)
	if other.Time == noisy.Time {
		t.Errorf("seeds 1 and 99 gave the same prediction %s", other.Time)
	}
}

// TestNoiseAlternating: bursts of two lengths alternate (100 µs, then
// 6.25 µs), each followed by a barrier (-alt) or by a send on a buffered
// channel that never waits (-chan: a channel operation ends a burst, as
// a commlib call does); each is read at its own length, from the last
// burst that started at the same operation or from the burst itself, not
// from the rank's previous burst: ±1 % for the long ones and ±20 % for
// the short ones. The draws alternate long, short, and are computed here
// by hand.
func TestNoiseAlternating(t *testing.T) {
	p := prepare(t, "./interp/testdata/noise")
	n, _ := markedLoop(t, p, "interp/testdata/noise/main.go", "loop")
	m := handMachine(t)
	m.Noise = machine.Noise{
		{Burst: 6250 * trace.Nanosecond, Deviations: []float64{-0.2, 0.2}},
		{Burst: 100 * trace.Microsecond, Deviations: []float64{-0.01, 0.01}},
	}
	for _, part := range []string{"-alt", "-chan"} {
		args := []string{part, "-steps", "50"}
		pf := syntheticProfile(t, p, 1, args)
		// An iteration of the loop costs 6.25 µs: 16 trips, then 1.
		pf.Fragments = append(pf.Fragments, profile.FragmentStats{Node: n.ID, Kind: profile.FragLoop, Pos: n.Pos.String(), Executions: 100, MeanPS: 53_125_000})
		pf.Loops = append(pf.Loops, profile.LoopStats{Node: n.ID, PerIterPS: 6_250_000, Trips: []profile.TripCount{{Trips: 16, Count: 50}, {Trips: 1, Count: 50}}})
		if err := pf.Validate(); err != nil {
			t.Fatal(err)
		}
		r, err := p.Run(Config{NP: 1, Machine: m, Profile: pf, Args: args, NoiseSeed: 3})
		if err != nil {
			t.Fatal(err)
		}
		q := proc{rank: 0}
		q.initNoise(3)
		var want int64
		for range 50 {
			want += 100_000_000 + 1_000_000*(2*int64(q.noise.next()%2)-1)
			want += 6_250_000 + 1_250_000*(2*int64(q.noise.next()%2)-1)
		}
		if got := int64(r.Compute.Max); got != want {
			t.Errorf("%s: compute %d ps, hand computation %d ps (noiseless %d)", part, got, want, 50*106_250_000)
		}
	}
}

// TestNoiseSeeds: no two ranks' draws are shifted copies of each other
// (seeding rank r with seed ^ (r+1)·φ made rank 0's draw k+2 rank 2's draw
// k), for small and large seeds.
func TestNoiseSeeds(t *testing.T) {
	for _, seed := range []uint64{0, 1, 2, 12345, 1 << 63} {
		draws := make([][]uint64, 64)
		for r := range draws {
			q := proc{rank: r * 257} // ranks far apart too
			q.initNoise(seed)
			for range 200 {
				draws[r] = append(draws[r], q.noise.next())
			}
		}
		for a := range draws {
			for b := range draws {
				if a == b {
					continue
				}
				for shift := range 8 {
					same := 0
					for k := 0; k+shift < 200; k++ {
						if draws[a][k+shift] == draws[b][k] {
							same++
						}
					}
					if same > 0 {
						t.Fatalf("seed %d: rank %d's draws from %d are rank %d's (%d equal)", seed, a*257, shift, b*257, same)
					}
				}
			}
		}
	}
}

// TestNoiseLeftOutOfUnits: loops counted in units are counted, not timed:
// the machine's noise leaves their count alone, so that a run without
// noise (--no-noise) on a machine with it is exactly the run on the
// machine without it (the count was scaled by the counting run's draws).
func TestNoiseLeftOutOfUnits(t *testing.T) {
	p := prepare(t, "./interp/testdata/units")
	args := []string{"-part", "pack"}
	pf := unitsProfile(t, p, args, 1_000_000)
	m := handMachine(t)
	m.Noise = machine.Noise{{Burst: trace.Microsecond, Deviations: []float64{-0.5, -0.2, 0.1, 0.6}}}
	r, err := p.Run(Config{NP: 8, Machine: m, Profile: pf, Args: args, NoNoise: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := int64(r.Compute.Max); got != 250_000 {
		t.Errorf("pack np=8 without noise: compute %d ps a rank, hand computation 250000 ps (TestUnits)", got)
	}
}

// TestNoiseOverflow: a compute past the clock's limit stays there with
// noise: the run reports the overflow, never a wrapped time.
func TestNoiseOverflow(t *testing.T) {
	for _, dev := range []float64{-0.1, 0.1} {
		p, m, pf, _ := overflowSetup(t, 10*int64(trace.Second))
		m.Noise = machine.Noise{{Burst: trace.Microsecond, Deviations: []float64{dev, -dev}}}
		args := []string{"-part", "compute"}
		r, err := p.Run(Config{NP: 4, Machine: m, Profile: pf, Args: args})
		var oe *OverflowError
		if !errors.As(err, &oe) {
			t.Errorf("deviation %v: want an *OverflowError, got %v (result %+v)", dev, err, r)
		}
	}
}
