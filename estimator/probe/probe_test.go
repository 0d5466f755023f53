package probe

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"

	"github.com/predict-tools/predict/commlib"
)

// Fragment ids the tests use; each test has its own.
const (
	idStats = iota
	idLoop
	idIter
	idReservoir
	idOther
	idConcSeg
	idConcLoop
	idConcIter
	idBranch
	idBranchPool
	idBranchNP1
	idTrunc
	idFlush
	idBranchOwnLabels
	idArgs
	idArgsTrunc
	idGrow = 200
)

func init() { Declare(idArgsTrunc + 1) }

// forget forgets what fragments ids recorded, so that tests can be repeated.
func forget(ids ...int32) {
	for _, id := range ids {
		f := fragOf(id)
		for i := range f.cells {
			c := &f.cells[i]
			c.mu.Lock()
			c.n, c.sum, c.sqHi, c.sqLo, c.min, c.max, c.loop = 0, 0, 0, 0, 0, 0, nil
			c.mu.Unlock()
		}
		f.entries.Store(0)
		f.sampled.Store(0)
		f.mu.Lock()
		f.samples, f.seen = [IterSamples][]int64{}, [IterSamples]int64{}
		f.branches.Store(nil)
		f.argRecs.Store(nil)
		f.region.Store(false)
		f.iters.Store(0)
		f.incl.Store(0)
		f.mu.Unlock()
	}
}

// fragment returns fragment id's data.
func fragment(t *testing.T, id int32) RawFragment {
	t.Helper()
	rf, ok := fragOf(id).raw(id)
	if !ok {
		t.Fatalf("fragment %d did not run", id)
	}
	return rf
}

func TestStatistics(t *testing.T) {
	forget(idStats)
	durations := []int64{10, 30, 20, 1_000_000_007, 5}
	for _, d := range durations {
		Seg(idStats, Now()-d) // at least d
	}
	rf := fragment(t, idStats)
	var sum int64
	var sumSq float64
	for _, d := range durations {
		sum += d
		sumSq += float64(d) * float64(d)
	}
	if rf.Kind != "seg" || rf.Count != 5 || rf.MinNS < 5 || rf.MaxNS < 1_000_000_007 {
		t.Fatalf("%+v", rf)
	}
	// The probe adds its own (small) time to each duration.
	if extra := rf.SumNS - sum; extra < 0 || extra > 5*100_000 {
		t.Errorf("sum %d, want %d plus the probes' time", rf.SumNS, sum)
	}

	// Exactly, on the cell.
	c := &cell{}
	for _, d := range durations {
		c.add(d)
	}
	if c.n != 5 || c.sum != sum || c.min != 5 || c.max != 1_000_000_007 {
		t.Errorf("cell %+v", c)
	}
	// Σd² = 1000000014000000049 + 1425, beyond float64's exact integers:
	// the 128-bit sum holds it.
	if c.sqHi != 0 || c.sqLo != 1_000_000_014_000_000_049+100+900+400+25 {
		t.Errorf("Σd² = %d:%d", c.sqHi, c.sqLo)
	}
	if math.Abs(sumSq-float64(c.sqLo)) > 1e3 {
		t.Errorf("Σd² %g vs %d", sumSq, c.sqLo)
	}
	big := &cell{}
	for range 3 {
		big.add(1 << 40)
	}
	if big.sqHi != 3<<16 || big.sqLo != 0 { // 3·2^80 = 3·2^16·2^64
		t.Errorf("Σd² of 3·(2^40)² = %d:%d", big.sqHi, big.sqLo)
	}
	big.add(-4) // a bad start time counts as 0
	if big.min != 0 || big.n != 4 {
		t.Errorf("negative duration: %+v", big)
	}
}

func TestLoopTrips(t *testing.T) {
	forget(idLoop)
	for _, trips := range []int64{5, 5, 7, 5, 0, 7, 7, 7} {
		Loop(idLoop, Now(), trips)
	}
	rf := fragment(t, idLoop)
	want := [][2]int64{{0, 1}, {5, 3}, {7, 4}}
	if rf.Kind != "loop" || rf.Count != 8 || !reflect.DeepEqual(rf.Trips, want) || rf.TripsOther != nil {
		t.Errorf("%+v, want trips %v", rf, want)
	}
}

func TestTripsOther(t *testing.T) {
	forget(idOther)
	// 1024 distinct trip counts are counted exactly, the others summed.
	for i := range int64(maxTripValues + 10) {
		Loop(idOther, Now(), i)
		Loop(idOther, Now(), i)
	}
	Loop(idOther, Now(), 3)
	rf := fragment(t, idOther)
	if len(rf.Trips) != maxTripValues || rf.Count != 2*(maxTripValues+10)+1 {
		t.Fatalf("%d trip counts, %d entries", len(rf.Trips), rf.Count)
	}
	var entries, sum int64
	for _, tr := range rf.Trips {
		entries += tr[1]
		sum += tr[0] * tr[1]
	}
	o := rf.TripsOther
	if o == nil || o.Count != 20 || o.Min != maxTripValues || o.Max != maxTripValues+9 {
		t.Fatalf("other %+v", o)
	}
	if entries+o.Count != rf.Count {
		t.Errorf("%d + %d entries, want %d", entries, o.Count, rf.Count)
	}
	var all int64
	for i := range int64(maxTripValues + 10) {
		all += 2 * i
	}
	if sum+o.Sum != all+3 {
		t.Errorf("trips sum %d + %d, want %d", sum, o.Sum, all+3)
	}
	// Merging cells keeps the most frequent trip counts.
	f := newFrag(99)
	f.cells = make([]cell, 2)
	f.cells[0].loop = &loopCell{trips: map[int64]int64{}}
	f.cells[1].loop = &loopCell{trips: map[int64]int64{}}
	for i := range int64(maxTripValues) {
		f.cells[0].loop.trips[i] = 2
		f.cells[1].loop.trips[i+maxTripValues] = 1
	}
	f.cells[1].loop.trips[5] = 1
	f.cells[0].n, f.cells[1].n = 1, 1
	rf, _ = f.raw(99)
	if len(rf.Trips) != maxTripValues || rf.Trips[0] != [2]int64{0, 2} || rf.Trips[5] != [2]int64{5, 3} ||
		rf.TripsOther.Count != maxTripValues || rf.TripsOther.Min != maxTripValues {
		t.Errorf("merged: %v… other %+v", rf.Trips[:6], rf.TripsOther)
	}
}

func TestIterSamples(t *testing.T) {
	forget(idIter)
	// Two entries of 3 iterations and one of 70, as the instrumented code
	// samples them (a loop counted in its body).
	for _, trips := range []int64{3, 3, 70} {
		var n, it int64
		if SampleEntry(idIter) == 0 {
			t.Fatal("an early entry is not sampled")
		}
		for range trips {
			n++
			if n <= IterSamples+1 {
				it = Iter(idIter, n, it)
			}
		}
		if it != 0 && n <= IterSamples {
			IterEnd(idIter, n, it)
		}
		Loop(idIter, Now(), n)
	}
	rf := fragment(t, idIter)
	if rf.Kind != "loop" || len(rf.IterSamples) != IterSamples || rf.IterSeen != 3+3+IterSamples || rf.SampledEntries != 3 ||
		rf.Trips[0] != [2]int64{3, 2} {
		t.Errorf("%+v", rf)
	}
	for k, ss := range rf.IterSamples {
		want := 1
		if k < 3 {
			want = 3
		}
		if len(ss) != want {
			t.Errorf("iteration %d: %d samples, want %d", k+1, len(ss), want)
		}
		for _, s := range ss {
			if s < 0 || s > 10_000_000 {
				t.Errorf("sample %d ns", s)
			}
		}
	}
}

func TestSampleEntry(t *testing.T) {
	forget(idIter)
	var sampled []int
	for n := 1; n <= 100; n++ {
		if SampleEntry(idIter) != 0 {
			sampled = append(sampled, n)
		}
	}
	if want := []int{1, 2, 3, 4, 8, 16, 32, 64}; !reflect.DeepEqual(sampled, want) {
		t.Errorf("entries sampled %v, want %v", sampled, want)
	}
	if f := fragOf(idIter); f.sampled.Load() != 8 || f.entries.Load() != 100 {
		t.Errorf("%d of %d entries sampled", f.sampled.Load(), f.entries.Load())
	}
}

func TestReservoir(t *testing.T) {
	// Offer 0..N-1 as iteration 5: the reservoir keeps samplesPerIndex
	// of them, spread over the whole range, the same ones each time.
	const n = 100 * samplesPerIndex
	run := func() []int64 {
		f := newFrag(idReservoir)
		for i := range int64(n) {
			f.sample(5, i)
		}
		f.sample(0, 1)             // out of range: ignored
		f.sample(IterSamples+1, 1) // likewise
		if f.seen[4] != n {
			t.Errorf("%d offered", f.seen[4])
		}
		return f.samples[4]
	}
	s := run()
	if len(s) != samplesPerIndex {
		t.Fatalf("%d samples", len(s))
	}
	if !reflect.DeepEqual(s, run()) {
		t.Error("sampling differs between runs")
	}
	var late, mean float64
	for _, v := range s {
		mean += float64(v) / samplesPerIndex
		if v >= n/2 {
			late++
		}
	}
	if math.Abs(mean-n/2) > 0.15*n || math.Abs(late/samplesPerIndex-0.5) > 0.2 {
		t.Errorf("mean sample %g (want ≈ %d), %.0f in the second half", mean, n/2, late)
	}
}

func TestConcurrent(t *testing.T) {
	forget(idConcSeg, idConcLoop, idConcIter)
	const goroutines, reps = 8, 2000
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range reps {
				Seg(idConcSeg, Now())
				Loop(idConcLoop, Now(), int64(g))
				if i < 100 {
					IterEnd(idConcIter, 2, Iter(idConcIter, 2, Iter(idConcIter, 1, 0)))
				}
				if i%500 == 0 {
					Snapshot() // reading while others record
				}
			}
		})
	}
	wg.Wait()
	seg, loop, iter := fragment(t, idConcSeg), fragment(t, idConcLoop), fragment(t, idConcIter)
	if seg.Count != goroutines*reps || loop.Count != goroutines*reps {
		t.Errorf("%d segments, %d loops recorded, want %d", seg.Count, loop.Count, goroutines*reps)
	}
	if len(loop.Trips) != goroutines {
		t.Errorf("trips %v", loop.Trips)
	}
	for _, tr := range loop.Trips {
		if tr[1] != reps {
			t.Errorf("trips %v", loop.Trips)
		}
	}
	if iter.IterSeen != goroutines*100*2 {
		t.Errorf("%d iterations sampled, want %d", iter.IterSeen, goroutines*100*2)
	}
}

func TestBranchPerRank(t *testing.T) {
	forget(idBranch, idBranchPool, idBranchNP1)
	// Rank r: r+1 trues, r+2 falses, repeated 3 times, then from a pool
	// thread one true per rank (recorded under the rank), and from a
	// goroutine the program starts itself one false (-1: not a rank's).
	err := commlib.Run(3, func(c *commlib.Comm) {
		r := c.Rank()
		for range 3 {
			for range r + 1 {
				Branch(idBranch, true)
			}
			for range r + 2 {
				Branch(idBranch, false)
			}
		}
		p := c.NewPool(2)
		p.SetTask(func(int) float64 {
			Branch(idBranchPool, true)
			return 0
		})
		p.WaitForAll()
		c.Parallel(2, func(int) { Branch(idBranchPool, false) })
	})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan bool)
	go func() { done <- Branch(idBranchPool, false) }()
	<-done

	rf := fragment(t, idBranch)
	if rf.Kind != "branch" || len(rf.Branches) != 3 || rf.Count != 3*(3+5+7) {
		t.Fatalf("%+v", rf)
	}
	for r, b := range rf.Branches {
		var want []RawRun
		for range 3 {
			want = append(want, RawRun{true, int64(r + 1)}, RawRun{false, int64(r + 2)})
		}
		if b.Rank != r || b.True != 3*int64(r+1) || b.False != 3*int64(r+2) || b.Truncated || !reflect.DeepEqual(b.Runs, want) {
			t.Errorf("rank %d: %+v, want runs %v", r, b, want)
		}
	}
	pool := fragment(t, idBranchPool)
	want := []RawBranch{{Rank: -1, False: 1, Runs: []RawRun{{false, 1}}}}
	for r := range 3 {
		want = append(want, RawBranch{Rank: r, True: 1, False: 2, Runs: []RawRun{{true, 1}, {false, 2}}})
	}
	if !reflect.DeepEqual(pool.Branches, want) {
		t.Errorf("threads' outcomes %+v, want %+v", pool.Branches, want)
	}

	// One rank: no lookup, everything is rank 0.
	if err := commlib.Run(1, func(c *commlib.Comm) {
		Branch(idBranchNP1, true)
		c.Parallel(2, func(int) { Branch(idBranchNP1, true) })
	}); err != nil {
		t.Fatal(err)
	}
	one := fragment(t, idBranchNP1)
	if len(one.Branches) != 1 || one.Branches[0].Rank != 0 || one.Branches[0].True != 3 {
		t.Errorf("np 1: %+v", one.Branches)
	}
}

func TestBranchOwnLabels(t *testing.T) {
	forget(idBranchOwnLabels)
	// A program that sets profiler labels itself: its rank goroutines and
	// the goroutines they start are found by goroutine id.
	err := commlib.Run(2, func(c *commlib.Comm) {
		pprof.Do(context.Background(), pprof.Labels("phase", "solve"), func(context.Context) {
			for range c.Rank() + 1 {
				Branch(idBranchOwnLabels, true)
			}
			c.Parallel(2, func(int) { Branch(idBranchOwnLabels, false) })
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []RawBranch{
		{Rank: 0, True: 1, False: 2, Runs: []RawRun{{true, 1}, {false, 2}}},
		{Rank: 1, True: 2, False: 2, Runs: []RawRun{{true, 2}, {false, 2}}},
	}
	if got := fragment(t, idBranchOwnLabels).Branches; !reflect.DeepEqual(got, want) {
		t.Errorf("outcomes %+v, want %+v", got, want)
	}
}

func TestBranchTruncated(t *testing.T) {
	forget(idTrunc)
	// Alternating outcomes: one run each; beyond maxRuns only counts.
	const n = maxRuns + 50
	for i := range n {
		Branch(idTrunc, i%2 == 0)
	}
	Branch(idTrunc, true)
	b := fragment(t, idTrunc).Branches
	if len(b) != 1 {
		t.Fatalf("%+v", b)
	}
	if !b[0].Truncated || len(b[0].Runs) != maxRuns || b[0].True != n/2+1 || b[0].False != n/2 {
		t.Errorf("truncated %v, %d runs, %d true, %d false", b[0].Truncated, len(b[0].Runs), b[0].True, b[0].False)
	}
	if r := b[0].Runs[maxRuns-1]; r.Len != 1 || r.Value != (maxRuns%2 == 1) {
		t.Errorf("last run %+v", r)
	}
}

func TestGrow(t *testing.T) {
	forget(idGrow)
	// A fragment beyond Declare's count is still recorded.
	Seg(idGrow, Now())
	if rf := fragment(t, idGrow); rf.Count != 1 {
		t.Errorf("%+v", rf)
	}
}

func TestFlush(t *testing.T) {
	forget(idFlush)
	Seg(idFlush, Now())
	Seg(idFlush, Now())
	path := filepath.Join(t.TempDir(), "raw.json")
	t.Setenv(OutEnv, path)
	if err := Flush(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var raw Raw
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	if want := Snapshot(); raw.Version != RawVersion || !reflect.DeepEqual(raw.Fragments, want.Fragments) ||
		raw.Overhead != want.Overhead || !reflect.DeepEqual(raw.Args, want.Args) {
		t.Errorf("read back %+v\nwant %+v", raw, want)
	}
	for i, rf := range raw.Fragments {
		if i > 0 && rf.ID <= raw.Fragments[i-1].ID {
			t.Errorf("fragment %d after %d", rf.ID, raw.Fragments[i-1].ID)
		}
		if rf.ID < 0 {
			t.Errorf("calibration fragment written")
		}
	}

	// A failed run writes its error.
	err = commlib.Run(2, func(c *commlib.Comm) {
		if c.Rank() == 1 {
			panic("boom")
		}
	})
	if err == nil {
		t.Fatal("the run did not fail")
	}
	data, err = os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	raw = Raw{}
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(raw.Error, "boom") || raw.NP != 2 || raw.WallNS <= 0 {
		t.Errorf("after a failed run: error %q, np %d, wall %d ns", raw.Error, raw.NP, raw.WallNS)
	}

	// Unwritable.
	t.Setenv(OutEnv, filepath.Join(t.TempDir(), "no", "such", "dir", "raw.json"))
	if err := Flush(); err == nil || !strings.Contains(err.Error(), "raw.json") {
		t.Errorf("writing into a missing directory: %v", err)
	}
	var pe *os.PathError
	if err := write(Raw{}); !errors.As(err, &pe) && err == nil {
		t.Errorf("no error")
	}
}

func TestOverhead(t *testing.T) {
	o := Overhead()
	t.Logf("%+v", o)
	if o.SegNS < 5 || o.SegNS > 5000 {
		t.Errorf("seg overhead %g ns", o.SegNS)
	}
	if o.PairNS < o.SegNS || o.PairNS > 10000 {
		t.Errorf("pair %g ns, seg %g ns", o.PairNS, o.SegNS)
	}
	if o.IterNS < 5 || o.IterNS > 5000 {
		t.Errorf("iter overhead %g ns", o.IterNS)
	}
	if o.CounterNS < 0 || o.CounterNS > 50 || o.TestNS < 0 || o.TestNS > 50 {
		t.Errorf("counter overhead %g ns, test %g ns", o.CounterNS, o.TestNS)
	}
}

func TestTrips(t *testing.T) {
	// The counted loops' forms, against running them.
	count := func(lo, hi, step int64, closed bool) int64 {
		n := int64(0)
		for i := lo; i < hi || (closed && i == hi); i += step {
			n++
		}
		return n
	}
	for _, c := range [][3]int64{{0, 10, 1}, {3, 10, 3}, {3, 9, 3}, {5, 5, 1}, {7, 2, 1}, {-5, 5, 4}, {-10, -3, 2}, {1, 101, 100}, {0, 0, 1}} {
		lo, hi, step := c[0], c[1], c[2]
		if got, want := TripsTo(lo, hi, uint64(step)), count(lo, hi, step, false); got != want {
			t.Errorf("TripsTo(%d, %d, %d) = %d, want %d", lo, hi, step, got, want)
		}
		if got, want := TripsThrough(lo, hi, uint64(step)), count(lo, hi, step, true); got != want {
			t.Errorf("TripsThrough(%d, %d, %d) = %d, want %d", lo, hi, step, got, want)
		}
	}
	// Unsigned and narrow types, and spans beyond their signed range.
	if got := TripsTo(uint64(math.MaxUint64-1), 5, 1); got != 0 {
		t.Errorf("TripsTo(2^64-2, 5) = %d, want 0", got)
	}
	if got := TripsTo(uint64(1<<63-10), 1<<63+10, 1); got != 20 {
		t.Errorf("TripsTo across 2^63 = %d, want 20", got)
	}
	if got := TripsTo(int8(-100), 100, 7); got != 29 {
		t.Errorf("TripsTo(int8 -100, 100, 7) = %d, want 29", got)
	}
	if got := TripsThrough(uint8(0), 200, 50); got != 5 {
		t.Errorf("TripsThrough(uint8 0, 200, 50) = %d, want 5", got)
	}
}

func BenchmarkNow(b *testing.B) {
	var s int64
	for range b.N {
		s += Now()
	}
	calSink += s
}

func BenchmarkSeg(b *testing.B) {
	for range b.N {
		t := Now()
		Seg(idStats, t)
	}
}

func BenchmarkSegParallel(b *testing.B) {
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			t := Now()
			Seg(idStats, t)
		}
	})
}

func BenchmarkLoop(b *testing.B) {
	for i := range b.N {
		Loop(idLoop, Now(), int64(i&3))
	}
}

func BenchmarkIter(b *testing.B) {
	last := int64(0)
	for i := range b.N {
		last = Iter(idIter, int64(i&(IterSamples-1))+2, last)
	}
}

func BenchmarkBranchNP1(b *testing.B) {
	np.Store(1)
	for i := range b.N {
		Branch(idBranchNP1, i%3 == 0)
	}
}

func BenchmarkBranchNP3(b *testing.B) {
	err := commlib.Run(3, func(c *commlib.Comm) {
		if c.Rank() != 0 {
			return
		}
		b.ResetTimer()
		for i := range b.N {
			Branch(idBranch, i%3 == 0)
		}
		b.StopTimer()
	})
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkBranchNP3Fallback is Branch in a rank whose program set its own
// profiler labels: the goroutine id is read from the stack trace.
func BenchmarkBranchNP3Fallback(b *testing.B) {
	err := commlib.Run(3, func(c *commlib.Comm) {
		if c.Rank() != 0 {
			return
		}
		pprof.Do(context.Background(), pprof.Labels("phase", "bench"), func(context.Context) {
			b.ResetTimer()
			for i := range b.N {
				Branch(idBranch, i%3 == 0)
			}
			b.StopTimer()
		})
	})
	if err != nil {
		b.Fatal(err)
	}
}

// TestCalibrate: calibrating gives finite, non-negative costs (a
// calibration fragment that recorded nothing would make the segment's
// cost NaN), a positive cost for the pair of readings, and leaves its
// fragment empty, so that nothing of it reaches a profile. With
// PREDICT_TIMING_TESTS=1 it also checks that it takes a few milliseconds,
// not seconds, and that a second calibration finds the same costs within a
// factor of 10 (a loaded machine can exceed both).
func TestCalibrate(t *testing.T) {
	t0 := Now()
	calibrate()
	took := Now() - t0
	first := overhead
	costs := func(o RawOverhead) map[string]float64 {
		return map[string]float64{"seg": o.SegNS, "pair": o.PairNS, "iter": o.IterNS, "counter": o.CounterNS, "test": o.TestNS, "sampled": o.SampledNS}
	}
	for name, ns := range costs(first) {
		if math.IsNaN(ns) || math.IsInf(ns, 0) || ns < 0 {
			t.Errorf("%s cost %g ns, want finite and ≥ 0", name, ns)
		}
	}
	if first.PairNS <= 0 {
		t.Errorf("a pair of readings costs %g ns, want > 0", first.PairNS)
	}
	if n, sum := tab.Load().frags[0].moments(); n != 0 || sum != 0 {
		t.Errorf("the calibration fragment holds %d executions (%d ns) after calibrating, want none", n, sum)
	}
	if os.Getenv("PREDICT_TIMING_TESTS") != "1" {
		return
	}
	if took > 1e9 {
		t.Errorf("calibration took %.1f ms, want a few", float64(took)/1e6)
	}
	calibrate()
	again := costs(overhead)
	for name, ns := range costs(first) {
		// Costs below a few ns are noise either way.
		if a := again[name]; max(ns, a) > 5 && (a > 10*ns || ns > 10*a) {
			t.Errorf("%s cost %g ns, then %g ns: want the same order of magnitude", name, ns, a)
		}
	}
}

// TestBranchesOff checks that a run with NoBranchesEnv set records no
// decision: Branch returns its condition and BranchRun does nothing.
func TestBranchesOff(t *testing.T) {
	forget(idTrunc)
	branchesOff = true
	defer func() { branchesOff = false }()
	if !Branch(idTrunc, true) || Branch(idTrunc, false) {
		t.Error("Branch did not return its condition")
	}
	BranchRun(idTrunc, 5)
	if _, ok := fragOf(idTrunc).raw(idTrunc); ok {
		t.Error("a decision was recorded with the recording off")
	}
}
