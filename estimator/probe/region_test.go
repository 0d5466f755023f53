package probe

import (
	"sync"
	"testing"
	"time"
)

// Fragment ids of the region tests.
const (
	idRegionOuter = 150 + iota
	idRegionInner
	idRegionApart
)

// TestRegionAccounting: a region's entry records its time less what was
// timed apart inside it (an inner region, a commlib call), and the region
// around it sees all of its time as timed apart.
func TestRegionAccounting(t *testing.T) {
	forget(idRegionOuter, idRegionInner)
	outer := RegionStart()
	for range 3 {
		inner := RegionStart()
		calSink += plainLoop(make([]int64, 64), 1000)
		RegionLoop(idRegionInner, inner, 1000)
	}
	addComm(callerRank(), 1e9) // a second in commlib: more than the region took
	Region(idRegionOuter, outer)
	in, out := fragment(t, idRegionInner), fragment(t, idRegionOuter)
	if in.Kind != "region" || in.Count != 3 || in.Iterations != 3000 || in.SumNS <= 0 || in.InclNS != in.SumNS {
		t.Errorf("inner region: %+v; want 3 entries, 3000 iterations, all its time its own", in)
	}
	if out.Kind != "region" || out.Count != 1 || out.SumNS != 0 || out.InclNS < in.InclNS {
		t.Errorf("outer region: %+v; want its inner regions' and the commlib call's time taken off (none left)", out)
	}
	a := accountOf(callerRank())
	before := a.ns
	r := RegionStart()
	Region(idRegionOuter, r)
	if d := a.ns - before; d < regionOutNS.Load() || d > 1e8 {
		t.Errorf("an empty region added %d ns to its rank's account", d)
	}
}

// TestRegionAccountingThreads: by the thread clock, a region holds its
// goroutine on its OS thread and accounts on that thread's account: the
// CPU time of a commlib call inside it (CallStart to CallTime) and an
// inner region are taken off the outer region's time, a loop accounted
// apart (LoopApart) is taken off with the part of its probes before its
// start, and two goroutines in regions at once have accounts of their own.
// The bounds are milliseconds of spinning against microseconds of probes.
func TestRegionAccountingThreads(t *testing.T) {
	if threadNS() < 0 {
		t.Skip("no thread CPU clock here")
	}
	saved := threadClock
	threadClock = true
	defer func() { threadClock = saved }()
	forget(idRegionOuter, idRegionInner, idRegionApart)
	spin := func(d time.Duration) {
		for t0 := threadNS(); threadNS()-t0 < int64(d); {
		}
	}
	outer := RegionStart()
	a := outer.a
	inner := RegionStart()
	if inner.a != a || a.depth != 2 {
		t.Fatalf("nested regions on one goroutine: accounts %p and %p, depth %d", outer.a, inner.a, a.depth)
	}
	callStart(0)
	spin(20 * time.Millisecond) // "inside commlib"
	callEnd()
	spin(5 * time.Millisecond) // the inner region's own
	Region(idRegionInner, inner)
	t0 := NowThread()
	spin(10 * time.Millisecond) // a loop timed apart
	LoopApart(idRegionApart, t0, 1)
	spin(2 * time.Millisecond) // the outer region's own
	Region(idRegionOuter, outer)
	if a.depth != 0 {
		t.Errorf("depth %d after both regions ended", a.depth)
	}
	in, out := fragment(t, idRegionInner), fragment(t, idRegionOuter)
	ms := int64(time.Millisecond)
	if in.SumNS < 5*ms || in.SumNS > 10*ms || in.InclNS < 25*ms {
		t.Errorf("inner region: own %d ns, inclusive %d ns; want 5 ms of its own (the 20 ms call taken off) of at least 25 ms", in.SumNS, in.InclNS)
	}
	if out.SumNS < 2*ms || out.SumNS > 5*ms {
		t.Errorf("outer region: own %d ns; want 2 ms (the inner region's 25 ms and the loop's 10 ms taken off)", out.SumNS)
	}
	// Two goroutines in regions at once: each on an OS thread of its own.
	accs := make(chan *account, 2)
	var wg sync.WaitGroup
	hold := make(chan struct{})
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := RegionStart()
			accs <- r.a
			<-hold
			Region(idRegionOuter, r)
		}()
	}
	x, y := <-accs, <-accs
	close(hold)
	wg.Wait()
	if x == y {
		t.Errorf("two goroutines in regions at once share an account")
	}
}

// TestRegionThreadsHeld: by the thread clock, goroutines blocked inside
// regions hold an OS thread each, up to MaxHeldThreads; the entries
// beyond are not timed and are counted.
func TestRegionThreadsHeld(t *testing.T) {
	if threadNS() < 0 {
		t.Skip("no thread CPU clock here")
	}
	saved := threadClock
	threadClock = true
	defer func() { threadClock = saved }()
	forget(idRegionOuter)
	skipped0 := skippedRegions.Load()
	const n = MaxHeldThreads + 20
	started, hold := make(chan bool, n), make(chan struct{})
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := RegionStart()
			started <- r.a != nil
			<-hold // blocked inside the region
			Region(idRegionOuter, r)
		}()
	}
	timed := 0
	for range n {
		if <-started {
			timed++
		}
	}
	close(hold)
	wg.Wait()
	if timed != MaxHeldThreads || skippedRegions.Load()-skipped0 != n-MaxHeldThreads || heldThreads.Load() != 0 {
		t.Errorf("%d entries timed, %d skipped, %d threads still held; want %d, %d, 0",
			timed, skippedRegions.Load()-skipped0, heldThreads.Load(), MaxHeldThreads, n-MaxHeldThreads)
	}
	if got := fragment(t, idRegionOuter).Count; got != MaxHeldThreads {
		t.Errorf("the region recorded %d entries, want %d", got, MaxHeldThreads)
	}
}
