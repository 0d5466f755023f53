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
// updates its accumulator: the instrumenter gives no regions to programs
// that run threads or goroutines.

package probe

import (
	"sync"
	"sync/atomic"
)

// Token is an entry of a region: its start and the rank's accumulator
// then.
type Token struct {
	t0, acc0 int64
	a        *account
}

// account is a rank's accumulator of time timed apart, one cache line.
type account struct {
	ns int64
	_  [56]byte
}

// regionOutNS is the part of a region's probes outside its interval
// (RawOverhead.RegionOutNS), as the regions read it while the ranks run.
var regionOutNS atomic.Int64

var (
	accMu    sync.Mutex                 // serializes growing accounts
	accounts atomic.Pointer[[]*account] // by rank+1, copied on growth; an account never moves
)

// accountOf returns rank r's accumulator.
func accountOf(r int) *account { return perRank(&accounts, &accMu, r) }

// RegionStart starts an entry of a region.
func RegionStart() Token {
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
	incl := Now() - tok.t0
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
}

// addComm adds the time of a commlib call to its rank's accumulator.
func addComm(rank int, ns int64) {
	a := accountOf(rank)
	a.ns += ns
}

// LoopApart is Loop for a loop timed in the regions of several callers
// (a function timed from its call sites): it also accounts for the
// entry's time, probe included, in the calling rank's regions.
func LoopApart(id int32, t0 int64, trips int64) {
	Loop(id, t0, trips)
	d := Now() - t0
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
