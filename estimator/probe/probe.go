// This file defines the probes the instrumented code calls and the tables
// they record into.

package probe

import (
	"math/bits"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	_ "unsafe" // go:linkname
)

// IterSamples is how many iterations of a sampled entry of a loop are
// sampled: the instrumented code calls Iter at the start of iterations
// 1..IterSamples+1 (the last call closes iteration IterSamples).
const IterSamples = 64

const (
	maxTripValues   = 1024   // distinct trip counts counted exactly
	samplesPerIndex = 64     // per-iteration samples kept per loop and iteration index
	maxRuns         = 100000 // outcome runs kept per rank and decision
	maxStripes      = 32     // statistics cells per fragment
)

// calibrationID is the fragment the overhead measurement records into; it
// is never written out.
const calibrationID = -1

// procPin and procUnpin give the id of the P (the scheduler's processor)
// that runs the caller: the stripe of a fragment's statistics it records
// into, so that ranks running in parallel write different cache lines. The
// runtime keeps them for linkname users (go.dev/issue/67401).
//
//go:linkname procPin runtime.procPin
func procPin() int

//go:linkname procUnpin runtime.procUnpin
func procUnpin()

// cell is one stripe of a fragment's duration statistics: one cache line.
type cell struct {
	mu         sync.Mutex
	n          int64
	sum        int64
	sqHi, sqLo uint64 // Σ d², 128 bits: exact
	min, max   int64
	loop       *loopCell // trip counts, once Loop has run here
}

// loopCell counts the trip counts of a loop fragment's entries recorded
// in one cell.
type loopCell struct {
	last, lastN int64           // the latest trip count and its entries not yet in trips
	trips       map[int64]int64 // trip count → entries, at most maxTripValues keys
	other       RawTripsOther   // the entries whose trip count found no room in trips
}

// frag is one fragment's slot.
type frag struct {
	cells []cell // len a power of two
	mask  int

	entries atomic.Int64 // entries of a loop seen by SampleEntry
	region  atomic.Bool  // a region (region.go): its entries' times less what was timed apart inside
	iters   atomic.Int64 // a loop region's iterations
	incl    atomic.Int64 // a region's entries' times, ns, with all inside them
	sampled atomic.Int64 // the entries it chose to sample

	mu       sync.Mutex                   // what follows
	samples  [IterSamples][]int64         // per-iteration times by iteration index (1 to IterSamples), reservoirs
	seen     [IterSamples]int64           // per-iteration times offered to each reservoir
	rng      uint64                       // the reservoirs' random choices
	branches atomic.Pointer[[]*branchRec] // by rank+1, copied on growth under mu; a record never moves
	argRecs  atomic.Pointer[[]*argRec]    // by rank+1, likewise: an opaque communication argument's values (args.go)
	ranked   []*tripsRec                  // by rank+1: trip counts of a loop with an opaque bound
	// sampledTrips are the trip counts of the entries that ran the
	// sampled copy (trip count → entries, a few per loop: SampleEntry).
	sampledTrips map[int64]int64
}

// tripsRec is one rank's sequence of trip counts of a loop, run-length
// encoded.
type tripsRec struct {
	runs      []RawTripRun
	truncated bool
}

// branchRec is one rank's outcomes of a decision. Each rank records into
// its own, under its own lock: ranks deciding at the same time do not
// wait for each other.
type branchRec struct {
	mu            sync.Mutex
	trueN, falseN int64
	runs          []RawRun
	truncated     bool
}

// branchOf returns rank r's record of decision f.
func (f *frag) branchOf(r int) *branchRec { return perRank(&f.branches, &f.mu, r) }

// perRank returns rank r's element of a table indexed by rank+1, growing
// it under mu: the table is copied when it grows, its elements never
// move, and readers do not lock.
func perRank[T any](tab *atomic.Pointer[[]*T], mu *sync.Mutex, r int) *T {
	if xs := tab.Load(); xs != nil && r+1 < len(*xs) {
		return (*xs)[r+1]
	}
	mu.Lock()
	defer mu.Unlock()
	var xs []*T
	if p := tab.Load(); p != nil {
		xs = *p
	}
	if r+1 < len(xs) {
		return xs[r+1]
	}
	grown := make([]*T, r+2)
	copy(grown, xs)
	for i := len(xs); i < len(grown); i++ {
		grown[i] = new(T)
	}
	tab.Store(&grown)
	return grown[r+1]
}

// table is the fragment slots: slot 0 is the calibration fragment, slot
// id+1 fragment id. It is replaced (never modified) when it grows; slots
// are shared between the old and the new table.
type table struct{ frags []*frag }

var (
	tab      atomic.Pointer[table]
	growMu   sync.Mutex // serializes replacements of tab
	declared atomic.Bool
	stripes  int
)

func init() {
	stripes = 1
	for stripes < min(runtime.GOMAXPROCS(0), maxStripes) {
		stripes *= 2
	}
	tab.Store(&table{frags: []*frag{newFrag(calibrationID)}})
}

func newFrag(id int32) *frag {
	// A fixed seed per fragment: the sampling policy is the same from run
	// to run (which iterations are kept still depends on the interleaving
	// of the ranks).
	seed := (uint64(int64(id))+2)*0x9e3779b97f4a7c15 | 1
	return &frag{cells: make([]cell, stripes), mask: stripes - 1, rng: seed}
}

// Declare sizes the tables for fragments 0..n-1 and measures the probes'
// overhead (once, a few milliseconds). The instrumented program calls it
// from an init function; fragments beyond n are still recorded, more
// slowly the first time.
func Declare(n int32) {
	grow(n)
	declared.Store(true)
	Overhead()
}

// grow makes room for fragments 0..n-1.
func grow(n int32) *table {
	growMu.Lock()
	defer growMu.Unlock()
	old := tab.Load()
	if int(n)+1 <= len(old.frags) {
		return old
	}
	t := &table{frags: make([]*frag, int(n)+1)}
	copy(t.frags, old.frags)
	for i := len(old.frags); i < len(t.frags); i++ {
		t.frags[i] = newFrag(int32(i - 1))
	}
	tab.Store(t)
	return t
}

// fragOf returns fragment id's slot.
func fragOf(id int32) *frag {
	t := tab.Load()
	if i := int(id) + 1; uint(i) < uint(len(t.frags)) {
		return t.frags[i]
	}
	return fragSlow(id)
}

// fragSlow returns the slot of a fragment beyond the table, growing it.
//
//go:noinline
func fragSlow(id int32) *frag {
	if id < calibrationID {
		panic("probe: negative fragment id")
	}
	return grow(id + 1).frags[id+1]
}

// cellOf returns the cell of fragment id that the caller records into.
func cellOf(id int32) *cell {
	f := fragOf(id)
	p := procPin()
	procUnpin()
	return &f.cells[p&f.mask]
}

// add records a duration.
func (c *cell) add(d int64) {
	d = max(d, 0)
	if c.n == 0 {
		c.min, c.max = d, d
	} else if d < c.min {
		c.min = d
	} else if d > c.max {
		c.max = d
	}
	c.n++
	c.sum += d
	hi, lo := bits.Mul64(uint64(d), uint64(d))
	var carry uint64
	c.sqLo, carry = bits.Add64(c.sqLo, lo, 0)
	c.sqHi += hi + carry
}

// Seg records one execution of straight-line fragment id, begun at t0 (a
// Now value).
func Seg(id int32, t0 int64) {
	var d int64
	if threadClock {
		d = sinceThread(t0)
	} else {
		d = Now() - t0
	}
	c := cellOf(id)
	c.mu.Lock()
	c.add(d)
	c.mu.Unlock()
}

// Loop records one execution of loop fragment id (a whole loop statement,
// possibly a nest) begun at t0, whose body ran trips times.
func Loop(id int32, t0 int64, trips int64) {
	var d int64
	if threadClock {
		d = sinceThread(t0)
	} else {
		d = Now() - t0
	}
	c := cellOf(id)
	c.mu.Lock()
	c.add(d)
	l := c.loop
	if l == nil {
		l = &loopCell{}
		c.loop = l
	}
	if l.lastN > 0 && l.last == trips {
		l.lastN++
	} else {
		l.settle()
		l.last, l.lastN = trips, 1
	}
	c.mu.Unlock()
}

// LoopRanked is Loop for a loop whose bound is opaque: it also records the
// trip count in the calling rank's sequence, which the interpreter replays.
func LoopRanked(id int32, t0 int64, trips int64) {
	Loop(id, t0, trips)
	r := 0
	if np.Load() != 1 {
		r = rankOf()
	}
	f := fragOf(id)
	f.mu.Lock()
	for len(f.ranked) <= r+1 {
		f.ranked = append(f.ranked, nil)
	}
	t := f.ranked[r+1]
	if t == nil {
		t = &tripsRec{}
		f.ranked[r+1] = t
	}
	switch n := len(t.runs); {
	case t.truncated:
	case n > 0 && t.runs[n-1].Trips == trips:
		t.runs[n-1].Len++
	case n < maxRuns:
		t.runs = append(t.runs, RawTripRun{Trips: trips, Len: 1})
	default:
		t.truncated = true
	}
	f.mu.Unlock()
}

// settle moves the pending entries of the latest trip count into the
// table.
func (l *loopCell) settle() {
	if l.lastN == 0 {
		return
	}
	if l.trips == nil {
		l.trips = map[int64]int64{}
	}
	if _, ok := l.trips[l.last]; ok || len(l.trips) < maxTripValues {
		l.trips[l.last] += l.lastN
	} else {
		l.other.add(l.last, l.lastN)
	}
	l.lastN = 0
}

// add counts n entries of trip count t.
func (o *RawTripsOther) add(t, n int64) {
	if o.Count == 0 {
		o.Min, o.Max = t, t
	}
	o.Min, o.Max = min(o.Min, t), max(o.Max, t)
	o.Count += n
	o.Sum += t * n
}

// Iter is called at the start of iteration k (1 to IterSamples+1) of a
// sampled entry of loop id, with the value the previous call returned for
// this entry (0 for the first iteration); it records the previous
// iteration's duration as a sample of iteration k-1 and returns the
// fragments' clock (see Now; it runs inside the loop's fragment).
func Iter(id int32, k, last int64) int64 {
	var now int64
	if threadClock {
		now = threadNS()
	} else {
		now = Now()
	}
	if last != 0 {
		fragOf(id).sample(k-1, now-last)
	}
	return now
}

// Sampled records that an entry of loop id ran its sampled copy for trips
// iterations (the instrumented code calls it as the copy ends, the whole
// entry's trip count when it does not resume in the original copy): the
// sampling code's cost depends on the sampled entries' own trip counts,
// which may be far from the loop's mean.
func Sampled(id int32, trips int64) {
	f := fragOf(id)
	f.mu.Lock()
	if f.sampledTrips == nil {
		f.sampledTrips = map[int64]int64{}
	}
	f.sampledTrips[trips]++
	f.mu.Unlock()
}

// IterEnd closes iteration k, the last one, of a sampled entry of loop id
// (called once after the loop when last != 0 and the entry ran at most
// IterSamples iterations).
func IterEnd(id int32, k, last int64) {
	if last != 0 {
		var d int64
		if threadClock {
			d = threadNS() - last
		} else {
			d = Now() - last
		}
		fragOf(id).sample(k, d)
	}
}

// sample offers the duration of iteration k (1 to IterSamples) to that
// iteration's reservoir (algorithm R: every offered time is kept with
// probability samplesPerIndex/seen).
func (f *frag) sample(k, d int64) {
	if k < 1 || k > IterSamples {
		return
	}
	i := k - 1
	f.mu.Lock()
	f.seen[i]++
	if len(f.samples[i]) < samplesPerIndex {
		f.samples[i] = append(f.samples[i], d)
	} else {
		f.rng ^= f.rng << 13
		f.rng ^= f.rng >> 7
		f.rng ^= f.rng << 17
		if j, _ := bits.Mul64(f.rng, uint64(f.seen[i])); j < samplesPerIndex {
			f.samples[i][j] = d
		}
	}
	f.mu.Unlock()
}

// integer is the types a counted loop's variable may have.
type integer interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr
}

// TripsTo is the trip count of `for i := lo; i < hi; i += step` (and of
// `for i := hi; i > lo; i -= step`) for a positive step, computed in the
// loop variable's own type: exact for unsigned types and for any span.
func TripsTo[T integer](lo, hi T, step uint64) int64 {
	if hi <= lo {
		return 0
	}
	d := uint64(hi) - uint64(lo) // hi − lo, exactly: it is below 2^64
	return int64(d/step + min(d%step, 1))
}

// TripsThrough is the trip count of `for i := lo; i <= hi; i += step` (and
// of `for i := hi; i >= lo; i -= step`) for a positive step.
func TripsThrough[T integer](lo, hi T, step uint64) int64 {
	if hi < lo {
		return 0
	}
	return int64((uint64(hi)-uint64(lo))/step + 1)
}

// NoBranchesEnv, set in a run's environment, turns the recording of
// decisions off in that run: the timing pass records them in one probed
// run and times the fragments in the others, where a decision tested in
// hot code (a case tested once an element) costs a load and a branch
// instead of a record, so its cost does not inflate the fragments' times.
const NoBranchesEnv = "PREDICT_NO_BRANCHES"

// branchesOff says that this run does not record decisions.
var branchesOff = os.Getenv(NoBranchesEnv) != ""

// Branch records an outcome of opaque decision id for the calling
// goroutine's rank and returns cond unchanged (it inlines: without
// recording it is a load and a branch).
func Branch(id int32, cond bool) bool {
	if branchesOff {
		return cond
	}
	branch(id, cond)
	return cond
}

// BranchNot records the negation of cond as an outcome of opaque decision
// id, and returns cond unchanged: the decision is the negation of the
// condition the program tests (the model's `if !x { rest }` for the
// source's `if x { continue }; rest`).
func BranchNot(id int32, cond bool) bool {
	if branchesOff {
		return cond
	}
	branch(id, !cond)
	return cond
}

// branch records an outcome of opaque decision id.
func branch(id int32, cond bool) {
	b := fragOf(id).branchOf(callerRank())
	b.mu.Lock()
	b.record(cond, 1)
	b.mu.Unlock()
}

// BranchRun records the outcomes of the exit test of a range loop that
// ran n iterations (opaque decision id): n times true, then false. The
// test itself is in no statement a probe can wrap.
func BranchRun(id int32, n int64) {
	if branchesOff {
		return
	}
	b := fragOf(id).branchOf(callerRank())
	b.mu.Lock()
	if n > 0 {
		b.record(true, n)
	}
	b.record(false, 1)
	b.mu.Unlock()
}

// record adds n outcomes cond, under b.mu.
func (b *branchRec) record(cond bool, n int64) {
	if cond {
		b.trueN += n
	} else {
		b.falseN += n
	}
	if !b.truncated {
		switch k := len(b.runs); {
		case k > 0 && b.runs[k-1].Value == cond:
			b.runs[k-1].Len += n
		case k < maxRuns:
			b.runs = append(b.runs, RawRun{Value: cond, Len: n})
		default:
			b.truncated = true
		}
	}
}

// SampledEntries is how many entries of a loop are sampled from the
// first; later entries are sampled when their number is a power of two
// (so a loop entered n times samples about SampledEntries + log2 n of
// them, spread over the run).
const SampledEntries = 4

// SampleEntry is called when an entry of loop id starts; it returns how
// many Iter calls this entry makes: IterSamples+1 when it is sampled, 0
// when not. The instrumented code runs the loop's sampled copy in the
// first case, its original code in the second.
func SampleEntry(id int32) int64 {
	f := fragOf(id)
	if n := f.entries.Add(1); n <= SampledEntries || n&(n-1) == 0 {
		f.sampled.Add(1)
		return IterSamples + 1
	}
	return 0
}

// Resume returns saved when the sampled copy of a loop left it after its
// samples (resumed), else v: the start of the loop's original copy, which
// finishes the entry from where the sampled copy stopped.
func Resume(resumed bool, saved, v int64) int64 {
	if resumed {
		return saved
	}
	return v
}
