// This file defines regions: the inclusive timing that accounts for the
// time no fragment measures.
//
// A region is a function body or a loop statement that the instrumenter
// gave fragments inside. Every entry of a region is timed from its start
// to its end (RegionStart, then Region or RegionLoop); what the entry
// records is its inclusive time less the time spent in what is timed
// apart inside it while it ran: the regions it entered (its callees'
// bodies, its inner loops) and the commlib calls it made. Its own
// fragments are subtracted afterwards, from their totals (package
// estimator knows which fragments lie directly in which region): the
// rest is the region's time that no fragment measured (loop control,
// conditions, calls of small functions, the calls themselves), which the
// interpreter charges per entry or per iteration instead of dropping it.
//
// The accounting is per rank: each rank has an accumulator of the time
// timed apart so far (ended regions' inclusive times and probe costs,
// commlib calls). A region reads it on entry and on exit; the difference
// is what ran inside apart from its own code. A region that never ends (a
// loop left by a return) leaves its time in the accumulator, so the
// region around it still accounts for it. Only a rank's own goroutine
// updates its accumulator.
//
// In a program that runs threads or goroutines (the thread clock, see
// clock.go) the accounting is per OS thread instead, by the thread's CPU
// clock: a region locks its goroutine to its OS thread from its start to
// its end (runtime.LockOSThread nests), so that no other goroutine runs on
// that thread meanwhile and the thread's clock and accumulator are its
// goroutine's alone. A commlib call inside a region counts its CPU time
// on the thread as timed apart (CallStart and CallTime read the clock);
// a goroutine blocked inside a region holds its thread idle, whose CPU
// clock does not advance.

package probe

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Token is an entry of a region: its start and the rank's accumulator
// then.
type Token struct {
	t0, acc0 int64
	a        *account
}

// account is a rank's (or, by the thread clock, an OS thread's)
// accumulator of time timed apart, one cache line. depth and callT0 are an
// OS thread's: the regions open on it (its goroutine holds it while
// depth > 0), and the thread clock at the start of the commlib call in
// progress inside them (0: none).
type account struct {
	ns     int64
	depth  int64
	callT0 int64
	_      [40]byte
}

// regionOutNS is the part of a region's probes outside its interval
// (RawOverhead.RegionOutNS), as the regions read it while the ranks run;
// pairOutNS that of a fragment's pair (PairNS − SegNS), which a loop
// accounted apart (loopApart) adds to its entry's time.
var regionOutNS, pairOutNS atomic.Int64

var (
	accMu    sync.Mutex                 // serializes growing accounts
	accounts atomic.Pointer[[]*account] // by rank+1, copied on growth; an account never moves
)

// accountOf returns rank r's accumulator.
func accountOf(r int) *account { return perRank(&accounts, &accMu, r) }

// threadAccounts are the OS threads' accumulators, by thread id.
var threadAccounts sync.Map

// threadAccount returns the calling OS thread's accumulator (by the thread
// clock; the caller holds its thread or does not care which it gets).
func threadAccount() *account {
	t := threadID()
	if a, ok := threadAccounts.Load(t); ok {
		return a.(*account)
	}
	a, _ := threadAccounts.LoadOrStore(t, &account{})
	return a.(*account)
}

// MaxHeldThreads is how many OS threads regions may hold at once by the
// thread clock: a goroutine blocked inside a region holds its thread, and
// thousands of them (a goroutine per item, each waiting to send its
// result) would reach the runtime's limit of 10000 threads. An outermost
// entry beyond it is not timed (the region's time per entry comes from
// the others) and counted in skippedRegions.
const MaxHeldThreads = 256

var heldThreads, skippedRegions atomic.Int64

// RegionStart starts an entry of a region.
func RegionStart() Token {
	if threadClock {
		runtime.LockOSThread() // until the region's end
		a := threadAccount()
		if a.depth == 0 {
			if heldThreads.Add(1) > MaxHeldThreads {
				heldThreads.Add(-1)
				skippedRegions.Add(1)
				runtime.UnlockOSThread()
				return Token{}
			}
		}
		a.depth++
		return Token{t0: threadNS(), acc0: a.ns, a: a}
	}
	a := accountOf(callerRank())
	return Token{t0: Now(), acc0: a.ns, a: a}
}

// Region ends an entry of region id (a function body) begun with tok.
func Region(id int32, tok Token) {
	regionEnd(id, tok, 0)
}

// RegionLoop ends an entry of region id (a loop statement) begun with
// tok, whose body ran iters times.
func RegionLoop(id int32, tok Token, iters int64) {
	regionEnd(id, tok, iters)
}

func regionEnd(id int32, tok Token, iters int64) {
	if tok.a == nil {
		return // not timed (MaxHeldThreads)
	}
	incl := clock() - tok.t0
	f := fragOf(id)
	c := cellOf(id)
	c.mu.Lock()
	c.add(incl - (tok.a.ns - tok.acc0))
	c.mu.Unlock()
	f.region.Store(true)
	f.incl.Add(incl)
	if iters > 0 {
		f.iters.Add(iters)
	}
	// The regions around this one see all of it as timed apart,
	// including the part of this probe outside its own interval.
	tok.a.ns = tok.acc0 + incl + regionOutNS.Load()
	if threadClock {
		if tok.a.depth--; tok.a.depth == 0 {
			heldThreads.Add(-1)
		}
		runtime.UnlockOSThread()
	}
}

// addComm adds the time of a commlib call to its rank's accumulator (by
// the wall clock; by the thread clock, callStart and callEnd do).
func addComm(rank int, ns int64) {
	a := accountOf(rank)
	a.ns += ns
}

// callStart, by the thread clock, marks the start of a commlib call made
// inside a region of the calling goroutine.
func callStart(int) {
	if !threadClock {
		return
	}
	// Held while it looks, so that the account is its thread's.
	runtime.LockOSThread()
	if a := threadAccount(); a.depth > 0 {
		a.callT0 = threadNS()
	}
	runtime.UnlockOSThread()
}

// callEnd, by the thread clock, accounts the CPU time of the commlib call
// callStart marked as timed apart.
func callEnd() {
	runtime.LockOSThread()
	if a := threadAccount(); a.depth > 0 && a.callT0 != 0 {
		a.ns += threadNS() - a.callT0
		a.callT0 = 0
	}
	runtime.UnlockOSThread()
}

// LoopApart is Loop for a loop timed in the regions of several callers
// (a function timed from its call sites): it also accounts for the
// entry's time, probes included (the part before t0 by the calibration),
// in the calling rank's regions (by the
// thread clock, the calling thread's, when a region holds it).
func LoopApart(id int32, t0 int64, trips int64) {
	loopApart(id, t0, trips, Loop)
}

// LoopRankedApart is LoopRanked for a loop timed inside a region timed
// whole (a coarse one): it accounts for the entry as LoopApart does.
func LoopRankedApart(id int32, t0 int64, trips int64) {
	loopApart(id, t0, trips, LoopRanked)
}

func loopApart(id int32, t0 int64, trips int64, record func(int32, int64, int64)) {
	if threadClock {
		// The fragment holds its thread until record; a region around
		// it (depth > 0) holds it after. Without one the goroutine may
		// resume elsewhere, so the depth is read first.
		a := threadAccount()
		held := a.depth > 0
		record(id, t0, trips)
		if held {
			a.ns += threadNS() - t0 + pairOutNS.Load()
		}
		return
	}
	record(id, t0, trips)
	d := Now() - t0 + pairOutNS.Load()
	accountOf(callerRank()).ns += d
}

// callerRank is the calling goroutine's rank: 0 in a run of one rank
// (without looking it up), else rankOf's answer.
func callerRank() int {
	if np.Load() == 1 {
		return 0
	}
	return rankOf()
}
