package estimator

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// fakeExchanger is a clock-sync partner whose clock is rank 0's less
// offset, over a link of base ns each way plus exponential noise.
type fakeExchanger struct {
	offset, base, global int64
	noise                float64
	rng                  *rand.Rand
}

func (x *fakeExchanger) exchange() (int64, int64, int64, error) {
	there := x.base + int64(x.rng.ExpFloat64()*x.noise)
	back := x.base + int64(x.rng.ExpFloat64()*x.noise)
	sent := x.global - x.offset
	peer := x.global + there
	x.global += there + back + 1000
	return sent, peer, x.global - 1000 - x.offset, nil
}

func TestClockSync(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, offset := range []int64{0, 1_000_000, -500_000, 12_345} {
		x := &fakeExchanger{offset: offset, base: 400, noise: 300, rng: rng, global: 7e9}
		got, err := syncClock(x, syncPatience)
		if err != nil {
			t.Fatal(err)
		}
		if d := got.Offset - offset; d < -got.RTT/2 || d > got.RTT/2 || got.RTT > 900 || got.Exchanges < syncPatience {
			t.Errorf("offset %d: estimated %+v (error %d ns, want within RTT/2)", offset, got, d)
		}
	}
}

// fakeWorld runs stages for n ranks on a virtual global clock: rank r's
// clock reads global − offset[r] (plus read errors of a faulty timer);
// delay(r, i) holds rank r back before its i-th launch (noise, a
// descheduled rank); op maps the ranks' global begin times of a launch to
// their end times.
type fakeWorld struct {
	n        int
	offset   []int64
	global   int64
	delay    func(r, i int) int64
	op       func(begins []int64, i int) []int64
	readErr  func() int64
	launches int
}

func (w *fakeWorld) ranks() int { return w.n }
func (w *fakeWorld) now() int64 { return w.global }

func (w *fakeWorld) stage(start int64, offsets []int64, window int64, k int) ([][]launch, error) {
	out := make([][]launch, w.n)
	free := make([]int64, w.n)
	for r := range out {
		out[r], free[r] = make([]launch, k), w.global
	}
	read := func() int64 {
		if w.readErr == nil {
			return 0
		}
		return w.readErr()
	}
	begins := make([]int64, w.n)
	for l := range k {
		for r := range w.n {
			slot := start - offsets[r] + int64(l)*window // rank r's clock
			slotGlobal := slot + w.offset[r]
			arrive := free[r]
			if w.delay != nil {
				arrive += w.delay(r, w.launches)
			}
			begins[r] = max(arrive, slotGlobal)
			out[r][l] = launch{Slot: slot, Late: window > 0 && arrive > slotGlobal}
		}
		ends := w.op(begins, w.launches)
		for r := range w.n {
			out[r][l].Start = begins[r] - w.offset[r] + read()
			out[r][l].End = ends[r] - w.offset[r] + read()
			free[r] = ends[r]
		}
		w.launches++
	}
	w.global = slices.Max(free)
	return out, nil
}

// fixedOp: rank r takes cost[r], plus extra on the first launch ever.
func fixedOp(cost []int64, first int64) func([]int64, int) []int64 {
	return func(b []int64, i int) []int64 {
		e := make([]int64, len(b))
		for r := range b {
			e[r] = b[r] + cost[r]
			if i == 0 {
				e[r] += first
			}
		}
		return e
	}
}

var skews = []int64{0, 1_000_000, -500_000, 12_345}

func TestSlotsMaxOverRanksAndFirstCall(t *testing.T) {
	// A reduce-like operation: rank 0 takes 3 µs, rank 2 5 µs, the others
	// 1 µs; the first call costs 20 µs more (lazy initialisation).
	w := &fakeWorld{n: 4, offset: skews, global: 1e9, op: fixedOp([]int64{3000, 1000, 5000, 1000}, 20_000)}
	s := newSlotSampler(w, skews, DefaultSlots)
	rule := StopRule{Min: 16, Max: 200, RelCI: 0.01, Budget: time.Hour, Trim: 0.25, Level: 0.95}
	e, xs, err := measureUntil("reduce", s, rule, func() time.Duration { return 0 })
	if err != nil {
		t.Fatal(err)
	}
	if e.Mean != 5000 || slices.Max(xs) != 5000 {
		t.Errorf("time %g ns (max sample %g), want the slowest rank's 5000, not rank 0's 3000", e.Mean, slices.Max(xs))
	}
	if s.counts.First != 25_000 {
		t.Errorf("first call %g ns, want 25000 measured apart", s.counts.First)
	}
	if m := s.rankMeans(0.25); m[0] != 3000 || m[2] != 5000 {
		t.Errorf("per-rank means %v", m)
	}
	if s.counts.Late+s.counts.TooLong != 0 || s.counts.Valid != len(xs) {
		t.Errorf("counts %+v", s.counts)
	}
}

// linearBcast is seed-001's example: rank 0 sends to 1, 2, 3 in turn, each
// message c; rank i's receive ends when its message arrives.
func linearBcast(c int64) func([]int64, int) []int64 {
	return func(b []int64, _ int) []int64 {
		e := make([]int64, len(b))
		e[0] = b[0] + int64(len(b)-1)*c
		for r := 1; r < len(b); r++ {
			e[r] = max(b[r], b[0]+int64(r)*c)
		}
		return e
	}
}

func TestSlotsAvoidPipelining(t *testing.T) {
	const c = 1000
	// Back to back (what a loop after a barrier does): rank 1 waits in
	// each launch for rank 0 to finish the previous one: 2.5c over four
	// launches (seed-001 §2.6, Fig. 3).
	w := &fakeWorld{n: 4, offset: make([]int64, 4), op: linearBcast(c)}
	ls, _ := w.stage(0, make([]int64, 4), 0, 4)
	var sum int64
	for _, x := range ls[1] {
		sum += x.End - x.Start
	}
	if sum != 10*c {
		t.Fatalf("back to back: rank 1 took %d ns over 4 launches, want 10c (2.5c each)", sum)
	}
	// In slots on skewed clocks, each launch starts together: rank 1 takes
	// c, the operation (the max over ranks) 3c.
	w = &fakeWorld{n: 4, offset: skews, op: linearBcast(c)}
	s := newSlotSampler(w, skews, DefaultSlots)
	e, _, err := measureUntil("bcast", s, StopRule{Min: 16, Max: 100, RelCI: 0.01, Budget: time.Hour, Trim: 0.25, Level: 0.95}, func() time.Duration { return 0 })
	if err != nil {
		t.Fatal(err)
	}
	if m := s.rankMeans(0.25); m[1] != c || e.Mean != 3*c {
		t.Errorf("in slots: rank 1 %g ns, operation %g ns; want c = %d and 3c", m[1], e.Mean, c)
	}
}

func TestSlotsLateRanksInvalid(t *testing.T) {
	// Rank 3 is descheduled for 50 µs before launches 6..9 (the first
	// measured stage): those launches are invalid, not averaged in, and
	// the window grows.
	w := &fakeWorld{n: 4, offset: skews, op: fixedOp([]int64{1000, 1000, 1000, 2000}, 0),
		delay: func(r, i int) int64 {
			if r == 3 && i >= 6 && i < 10 {
				return 50_000
			}
			return 0
		}}
	s := newSlotSampler(w, skews, DefaultSlots)
	e, _, err := measureUntil("op", s, StopRule{Min: 16, Max: 100, RelCI: 0.01, Budget: time.Hour, Trim: 0, Level: 0.95}, func() time.Duration { return 0 })
	if err != nil {
		t.Fatal(err)
	}
	if e.Mean != 2000 || e.Max != 2000 {
		t.Errorf("mean %g, max %g: want 2000, late launches left out", e.Mean, e.Max)
	}
	t.Logf("late ranks: %+v", s.counts)
	if s.counts.Late == 0 || len(s.counts.Windows) < 2 || s.counts.Windows[1] < 2*s.counts.Windows[0] {
		t.Errorf("counts %+v: want late launches and a window that doubled", s.counts)
	}

	// Always late (a machine too loaded for the schedule): refused.
	rng := rand.New(rand.NewPCG(6, 6))
	w = &fakeWorld{n: 2, offset: []int64{0, 300}, op: fixedOp([]int64{1000, 1000}, 0),
		delay: func(r, i int) int64 { return int64(rng.ExpFloat64() * 400_000) }}
	s = newSlotSampler(w, []int64{0, 300}, SlotConfig{K0: 4, K: 8, Gamma: 1.1, Invalid: 0.25, Lead: 1000, MaxWindow: 20_000})
	_, _, err = measureUntil("op", s, StopRule{Min: 10, Max: 10_000, RelCI: 0.02, Budget: 50 * time.Millisecond, Trim: 0.25, Level: 0.95},
		func() time.Duration { return time.Duration(w.global) })
	var noisy *NoisyError
	if !errors.As(err, &noisy) || !s.counts.WindowCapped {
		t.Logf("loaded: %v %+v", err, s.counts)
		t.Errorf("a machine too loaded: %v, counts %+v; want a refusal and the window at its cap", err, s.counts)
	}
}

// waitWorlds are the fake runners of the self-tests: WaitPatternNull
// takes nothing, WaitPatternUp (r+1) µs on rank r.
func waitWorlds(n int, offsets []int64, readErr func() int64) map[string]stageRunner {
	up := make([]int64, n)
	for r := range up {
		up[r] = int64(r+1) * waitUnit
	}
	return map[string]stageRunner{
		"WaitPatternNull": &fakeWorld{n: n, offset: offsets, op: fixedOp(make([]int64, n), 0), readErr: readErr},
		"WaitPatternUp":   &fakeWorld{n: n, offset: offsets, op: fixedOp(up, 0), readErr: readErr},
	}
}

func TestSelfTests(t *testing.T) {
	rule := StopRule{Min: 16, Max: 400, RelCI: 0.05, Budget: time.Hour, Trim: 0.25, Level: 0.95}
	never := func() time.Duration { return 0 }
	// A sound timer (reads cost 20-40 ns) on skewed clocks: both pass.
	rng := rand.New(rand.NewPCG(7, 7))
	good := func() int64 { return 20 + rng.Int64N(20) }
	tests, err := selfTests(waitWorlds(4, skews, good), fixedSync(skews), DefaultSlots, rule, 200, never)
	if err != nil || len(tests) != 2 || !tests[0].Pass || !tests[1].Pass || tests[1].Expected != 4000 {
		t.Errorf("sound timer: %v %+v", err, tests)
	}
	// A faulty timer (reads off by up to 5 µs, seed-001's MPI_Wtime under
	// HPET): WaitPatternNull fails and the calibration is refused.
	bad := func() int64 { return rng.Int64N(5000) }
	tests, err = selfTests(waitWorlds(4, skews, bad), fixedSync(skews), DefaultSlots, rule, 200, never)
	var st *SelfTestError
	if !errors.As(err, &st) || tests[0].Pass || !strings.Contains(err.Error(), "WaitPatternNull") || !strings.Contains(err.Error(), "nothing written") {
		t.Errorf("faulty timer: %v %+v", err, tests)
	}
	if math.IsNaN(tests[0].Measured.Mean) {
		t.Errorf("no estimate: %+v", tests[0])
	}
	// Ranks that never begin together (a loaded machine): refused, saying so.
	late := waitWorlds(4, skews, good)
	for _, r := range late {
		r.(*fakeWorld).delay = func(r, i int) int64 {
			if r == 3 && rng.Float64() < 0.95 {
				return 3_000_000 // descheduled for 3 ms, beyond the largest window
			}
			return 0
		}
	}
	calls := 0
	stages := func() time.Duration { calls++; return time.Duration(calls) * time.Millisecond } // a stage a millisecond
	tests, err = selfTests(late, fixedSync(skews), DefaultSlots, StopRule{Min: 16, Max: 100, RelCI: 0.05, Budget: 20 * time.Millisecond, Trim: 0.25, Level: 0.95}, 200, stages)
	if !errors.As(err, &st) || !strings.Contains(err.Error(), "too few launches began on time") {
		t.Errorf("loaded: %v %+v", err, tests)
	}
}

// fixedSync is a clock sync that finds offsets every time.
func fixedSync(offsets []int64) clockSync {
	return func() ([]int64, error) { return offsets, nil }
}

// TestSelfTestsResync: the clocks are synchronised again before each
// self-test. Rank 1's clock jumps 30 ms between the two (a drift, a step
// of the system clock): with the first sync's offsets its slots of
// WaitPatternUp would all be in its past (every launch late, the test
// failed); re-synchronised, both pass.
func TestSelfTestsResync(t *testing.T) {
	rule := StopRule{Min: 16, Max: 400, RelCI: 0.05, Budget: 5 * time.Millisecond, Trim: 0.25, Level: 0.95}
	before := []int64{0, 1_000_000, -500_000, 12_345}
	after := []int64{0, 1_000_000 - 30_000_000, -500_000, 12_345}
	worlds := func() map[string]stageRunner {
		w := waitWorlds(4, before, nil)
		w["WaitPatternUp"].(*fakeWorld).offset = after
		return w
	}
	calls := 0
	resync := func() ([]int64, error) {
		calls++
		if calls == 1 {
			return before, nil
		}
		return after, nil
	}
	tests, err := selfTests(worlds(), resync, DefaultSlots, rule, 200, func() time.Duration { return 0 })
	if err != nil || calls != 2 || tests[1].Slots.Offsets[1] != after[1] {
		t.Errorf("re-synchronised: %v after %d syncs, %+v", err, calls, tests)
	}
	var st *SelfTestError
	stale := worlds()
	ticks := 0
	elapsed := func() time.Duration { ticks++; return time.Duration(ticks) * time.Millisecond }
	if tests, err := selfTests(stale, fixedSync(before), DefaultSlots, rule, 200, elapsed); !errors.As(err, &st) || tests[1].Pass || tests[1].Slots.Late == 0 {
		t.Errorf("stale offsets: %v, %+v", err, tests)
	}
}

func TestSlotLead(t *testing.T) {
	// 1.2 × the 90th percentile: one wake-up in twenty does not set it.
	xs := make([]float64, 20)
	for i := range xs {
		xs[i] = float64(30_000 + 1000*i)
	}
	xs[7] = 3e6
	if got := slotLead(xs); got != int64(math.Ceil(1.2*49_000)) {
		t.Errorf("lead %d ns, want 1.2 × 49 µs", got)
	}
	if got := slotLead([]float64{100, 200}); got != minLead {
		t.Errorf("fast announcements: lead %d, want the least, %d", got, minLead)
	}
	if got := slotLead([]float64{1e8, 1e8}); got != maxLead {
		t.Errorf("slow announcements: lead %d, want the most, %d", got, maxLead)
	}
	if got := slotLead(nil); got != DefaultSlots.Lead {
		t.Errorf("no samples: lead %d", got)
	}
}

// virtualClock is a rank's clock for runSlots: each read advances it by
// step; the first read at or after pauseAt also jumps pause ahead (the
// rank descheduled there).
type virtualClock struct {
	now, step      int64
	pauseAt, pause int64
}

func (c *virtualClock) read() int64 {
	c.now += c.step
	if c.pause > 0 && c.now >= c.pauseAt {
		c.now += c.pause
		c.pause = 0
	}
	return c.now
}

// TestRunSlots drives runSlots itself on a virtual clock: it waits for
// each slot, times the operation, and marks late a launch it arrived at
// after its slot had begun, or began more than slotTolerance after it
// (descheduled while it waited).
func TestRunSlots(t *testing.T) {
	clock := &virtualClock{step: 10}
	op := func(l int) {
		clock.now += 1000
		if l == 2 {
			clock.now += 50_000 // launch 2 overruns: 3 and 4 arrive late
		}
	}
	ls := runSlots(clock.read, op, 1000, 5000, 5)
	for l, x := range ls {
		if x.Slot != 1000+int64(l)*5000 {
			t.Errorf("launch %d: slot %d", l, x.Slot)
		}
		if wantLate := l >= 3; x.Late != wantLate {
			t.Errorf("launch %d: late %t, want %t (%+v)", l, x.Late, wantLate, x)
		}
		if !x.Late && (x.Start < x.Slot || x.Start > x.Slot+clock.step) {
			t.Errorf("launch %d began at %d, its slot %d: want at once", l, x.Start, x.Slot)
		}
		if d := x.End - x.Start; l != 2 && d != 1000+clock.step {
			t.Errorf("launch %d took %d ns, want the operation's 1000 and a read", l, d)
		}
	}

	// Descheduled for 20 µs just before slot 1, while it waited: it
	// arrived in time, and began late.
	clock = &virtualClock{step: 10, pauseAt: 100_500, pause: 20_000}
	ls = runSlots(clock.read, func(int) { clock.now += 1000 }, 1000, 100_000, 2)
	if ls[0].Late || !ls[1].Late || ls[1].Start-ls[1].Slot < 19_000 {
		t.Errorf("descheduled while waiting: %+v", ls)
	}

	// Window 0: back to back, never late.
	clock = &virtualClock{step: 10}
	ls = runSlots(clock.read, func(int) { clock.now += 1000 }, 0, 0, 4)
	for l, x := range ls {
		if x.Late || (l > 0 && x.Start != ls[l-1].End+clock.step) {
			t.Errorf("back to back, launch %d: %+v after %+v", l, x, ls[max(l-1, 0)])
		}
	}
}
