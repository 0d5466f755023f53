package estimator

import (
	"math"
	"slices"
	"testing"

	"github.com/predict-tools/predict/estimator/probe"
)

func TestStats(t *testing.T) {
	// 100 measurements of 1000 ns ± 10 ns with 20 ns of probe overhead.
	m := moments{overheadNS: 20, min: math.Inf(1)}
	for i := range 100 {
		x := 1020.0 + 10
		if i%2 == 0 {
			x = 1020 - 10
		}
		m.count++
		m.sum += x
		m.sumSq += x * x
		m.min, m.max = math.Min(m.min, x), math.Max(m.max, x)
	}
	mean, sd, lo, hi, errAbs, errRel := m.stats()
	if mean != 1_000_000 || sd != 10_000 || lo != 990_000 || hi != 1_010_000 {
		t.Errorf("mean %d sd %d min %d max %d (ps)", mean, sd, lo, hi)
	}
	// |Δ| = 3·10/√100 = 3 ns; δ = 3/(1000−10).
	if errAbs != 3000 || math.Abs(errRel-3.0/990) > 1e-12 {
		t.Errorf("error %d ps, %g", errAbs, errRel)
	}
}

func TestBalance(t *testing.T) {
	one := func(xs ...int64) [][]int64 { // a loop entered once
		var ss [][]int64
		for _, x := range xs {
			ss = append(ss, []int64{x})
		}
		return ss
	}
	mean, d, n := balance(one(110, 110, 110, 110), 10)
	if mean != 100 || d != 0 || n != 4 {
		t.Errorf("uniform: mean %g D %g, %d samples", mean, d, n)
	}
	// A triangular loop: iterations 10..100 ns.
	var tri []int64
	for i := int64(1); i <= 10; i++ {
		tri = append(tri, 10*i)
	}
	if _, d, _ := balance(one(tri...), 0); d < 0.5 {
		t.Errorf("triangular: D %g, want it unbalanced", d)
	}

	// Four entries of ten iterations, as the known-cost program's loops:
	// 200 µs each, or 40·k µs for iteration k, with a third of the samples
	// inflated by up to 8× (a loaded machine: preemptions, another process
	// on the core). The imbalance is told from the noise exactly.
	noisy := func(iter func(k int) int64) [][]int64 {
		ss := make([][]int64, 10)
		for e := range 4 {
			for k := range 10 {
				x := iter(k + 1)
				if (e+k)%3 == 0 {
					x += int64(1+(e*7+k)%8) * x
				}
				ss[k] = append(ss[k], x+30)
			}
		}
		return ss
	}
	_, db, _ := balance(noisy(func(int) int64 { return 200_000 }), 30)
	_, du, nu := balance(noisy(func(k int) int64 { return int64(k) * 40_000 }), 30)
	if db != 0 || math.Abs(du-180.0/220) > 1e-9 || nu != 40 {
		t.Errorf("noisy: balanced D %g, unbalanced D %g (want 0 and %g), %d samples", db, du, 180.0/220, nu)
	}
}

// TestLoopOverhead: the probe cost of a loop's entries, hand-computed for
// pingpong's payload loop (21 entries of 1 B to 1 MiB, the sampled ones
// the 1st-4th, 8th and 16th). Its sampled entries are the small ones: a
// cost computed from the mean trip count (100 K per entry) charged them
// 600 K iterations of sampled copy where they ran 33 K, 4 % of the run.
func TestLoopOverhead(t *testing.T) {
	rf := probe.RawFragment{Count: 21, SampledTrips: [][2]int64{{1, 1}, {2, 1}, {4, 1}, {8, 1}, {128, 1}, {32768, 1}}}
	var all int64
	for k := range 21 {
		rf.Trips = append(rf.Trips, [2]int64{1 << k, 1})
		all += 1 << k
	}
	ov := probe.RawOverhead{SegNS: 25, IterNS: 33, CounterNS: 0.05, TestNS: 0.25, SampledNS: 20}
	const calls = 2 + 3 + 5 + 9 + 65 + 65 // Iter and IterEnd calls of the sampled entries
	const tested = 1 + 2 + 4 + 8 + 128 + 32768
	for _, c := range []struct {
		name string
		fr   Fragment
		want float64 // ns, all entries
	}{
		{"static", Fragment{Static: true}, 21*25 + 6*20 + calls*33 + tested*0.25},
		{"counted", Fragment{}, 21*25 + 6*20 + calls*33 + tested*0.25 + float64(all-tested)*0.05},
		// A resumed entry tests only its sampled iterations (at most 65).
		{"resumed", Fragment{Static: true, Resumes: true}, 21*25 + 6*20 + calls*33 + (1+2+4+8+65+65)*0.25},
	} {
		over, trips := loopOverhead(c.fr, rf, ov)
		if trips != float64(all) {
			t.Errorf("%s: %g iterations, want %d", c.name, trips, all)
		}
		if got := over * 21; math.Abs(got-c.want) > 1e-6*c.want {
			t.Errorf("%s: overhead %g ns in all, want %g", c.name, got, c.want)
		}
	}
}

// TestPerIterSpread: the balance of a loop judged from whole entries, its
// trip counts' spread taken out, on hand-computed entries.
func TestPerIterSpread(t *testing.T) {
	// stencil's sweep: 200 entries of 32 768 points and 100 of 65 536,
	// 1 ns a point. T: 200 × 32 768 ns and 100 × 65 536 ns: mean
	// 43 690.67, σ 15 447.87 (σ/mean 0.354 on whole entries), all of it
	// the trip counts'.
	trips := [][2]int64{{32768, 200}, {65536, 100}}
	mean := (200*32768.0 + 100*65536.0) / 300
	sd := math.Sqrt((200*32768.0*32768+100*65536.0*65536)/300 - mean*mean)
	if d := perIterSpread(mean, sd, trips, nil); d > 1e-6 {
		t.Errorf("stencil's sweep: D %g, want 0 (every point costs the same)", d)
	}
	// One trip count: the entries' own spread, σ/mean.
	if d := perIterSpread(100, 20, [][2]int64{{10, 5}}, nil); math.Abs(d-0.2) > 1e-12 {
		t.Errorf("one trip count: D %g, want 0.2", d)
	}
	// Entries of 10 and of 30 iterations, each at 1 and at 3 ns an
	// iteration (c̄ 2, σ_c 1): T = 10, 30, 30, 90; mean 40, σ² 900. E[n]
	// 20, Var(n) 100: Var(c) = (900 − 4·100)/(400 + 100) = 1, D = 1/2.
	// On whole entries σ/mean would read 0.75.
	if d := perIterSpread(40, 30, [][2]int64{{10, 2}, {30, 2}}, nil); math.Abs(d-0.5) > 1e-12 {
		t.Errorf("mixed: D %g, want 0.5", d)
	}
	// Entries beyond the distinct trip counts kept count at their mean.
	if d := perIterSpread(mean, sd, [][2]int64{{32768, 200}}, &probe.RawTripsOther{Count: 100, Sum: 100 * 65536}); d > 1e-6 {
		t.Errorf("with other entries: D %g, want 0", d)
	}
	// No trip counts, or no time: the entries' spread, or nothing.
	if d := perIterSpread(100, 30, nil, nil); d != 0.3 {
		t.Errorf("no trips: D %g, want 0.3", d)
	}
	if d := perIterSpread(0, 30, trips, nil); d != 0 {
		t.Errorf("no time: D %g, want 0", d)
	}
}

// TestIterCurve: the per-iteration estimates of a loop unbalanced by its
// iterations' index, hand-computed. Sixteen iterations sampled in eight
// entries each (30 ns of probe in every sample, two samples of each index
// inflated by interrupts): the first costs 1000 ns, the second 400,
// the others 100. The entries ran 20 trips (three of them), 1 trip (one)
// and, among those whose trip counts were not kept, 5 each (two).
func TestIterCurve(t *testing.T) {
	samples := func(iter func(k int) int64) [][]int64 {
		ss := make([][]int64, 16)
		for k := range ss {
			for e := range 8 {
				x := iter(k+1) + 30
				if e%4 == k%4 {
					x *= 5
				}
				ss[k] = append(ss[k], x)
			}
		}
		return ss
	}
	steps := samples(func(k int) int64 {
		switch k {
		case 1:
			return 1000
		case 2:
			return 400
		}
		return 100
	})
	trips := [][2]int64{{20, 3}, {1, 1}}
	other := &probe.RawTripsOther{Count: 2, Sum: 10}
	// In ns of the samples' shape: 3·(1000 + 400 + 18·100) + 1000 +
	// 2·(1000 + 400 + 3·100) = 14000; the loop measured twice that.
	first, later := iterCurve(steps, 30, 0.1, 2*14000*1000, trips, other)
	if !slices.Equal(first, []int64{2_000_000, 800_000}) || later != 200_000 {
		t.Errorf("steps: first %v later %d, want [2000000 800000] 200000 ps", first, later)
	}
	// The entries cost the measured total exactly.
	var sum int64
	for _, e := range []struct{ trips, n int64 }{{20, 3}, {1, 1}, {5, 2}} {
		cost := first[0]
		if e.trips > 1 {
			cost += first[1] + (e.trips-2)*later
		}
		sum += e.n * cost
	}
	if sum != 2*14000*1000 {
		t.Errorf("steps: the entries cost %d ps, want the measured %d", sum, 2*14000*1000)
	}

	// Iterations alike (the noise aside): no curve.
	if first, later := iterCurve(samples(func(int) int64 { return 100 }), 30, 0.1, 1e9, trips, nil); first != nil || later != 0 {
		t.Errorf("flat: first %v later %d, want none", first, later)
	}
	// Fewer than eight indexes sampled eight times: no curve.
	if first, _ := iterCurve(steps[:7], 30, 0.1, 1e9, trips, nil); first != nil {
		t.Errorf("seven indexes: first %v, want none", first)
	}
	few := slices.Clone(steps)
	for k := range few {
		few[k] = few[k][:7]
	}
	if first, _ := iterCurve(few, 30, 0.1, 1e9, trips, nil); first != nil {
		t.Errorf("seven entries: first %v, want none", first)
	}
	// Work that grows with the index (10·k ns): the reference is the
	// later half's median, 130 ns, and every index is kept up to the last
	// one beyond ±13 ns of it, the 16th. Entries of 16 and 20 trips: a
	// shape of 1360 + 1360 + 4·130 = 3240 ns, measured at 1.62 µs.
	tri := samples(func(k int) int64 { return int64(10 * k) })
	first, later = iterCurve(tri, 30, 0.1, 1_620_000, [][2]int64{{16, 1}, {20, 1}}, nil)
	if len(first) != 16 || first[0] != 5000 || first[15] != 80_000 || later != 65_000 {
		t.Errorf("growing: first %v later %d, want 16 iterations from 5000 to 80000 ps, then 65000", first, later)
	}
}
