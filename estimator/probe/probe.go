// This file defines the probes.

package probe

import (
	"bytes"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/predict-tools/predict/commlib"
)

// IterSamples is how many iterations of each entry of a loop are sampled.
const IterSamples = 64

const (
	maxTripValues = 1024
	maxSamples    = 4096
	maxRuns       = 100000
)

var start = time.Now()

// Now returns the monotonic time in nanoseconds since the process started.
func Now() int64 { return int64(time.Since(start)) }

// frag holds the statistics of one fragment.
type frag struct {
	mu         sync.Mutex
	kind       string
	count      int64
	sum        float64
	sumSq      float64
	min, max   int64
	trips      map[int64]int64
	tripsOther tripOther
	samples    []int64
	seen       int64 // samples offered, for reservoir sampling
	rng        uint64
	branches   map[int]*branch
	attempts   atomic.Int64 // Branch calls, read without the lock
}

type tripOther struct {
	Count, Min, Max, Sum int64
}

type branch struct {
	trueN, falseN int64
	runs          []RawRun
	truncated     bool
}

var (
	fragsMu sync.RWMutex
	frags   []*frag
	np      atomic.Int64
	ranks   sync.Map // goroutine id → rank
	wallT0  atomic.Int64
)

// Declare sizes the tables for fragments 0..n-1.
func Declare(n int32) {
	fragsMu.Lock()
	defer fragsMu.Unlock()
	for int32(len(frags)) < n {
		frags = append(frags, &frag{rng: uint64(len(frags))*0x9e3779b97f4a7c15 + 1})
	}
}

// get returns fragment id's slot, growing the table if Declare did not
// cover it.
func get(id int32) *frag {
	fragsMu.RLock()
	if int(id) < len(frags) {
		f := frags[id]
		fragsMu.RUnlock()
		return f
	}
	fragsMu.RUnlock()
	Declare(id + 1)
	return get(id)
}

func (f *frag) add(kind string, d int64) {
	f.kind = kind
	if f.count == 0 || d < f.min {
		f.min = d
	}
	if d > f.max {
		f.max = d
	}
	f.count++
	f.sum += float64(d)
	f.sumSq += float64(d) * float64(d)
}

// Seg records one execution of straight-line fragment id begun at t0.
func Seg(id int32, t0 int64) {
	d := Now() - t0
	f := get(id)
	f.mu.Lock()
	f.add("seg", d)
	f.mu.Unlock()
}

// Loop records one execution of loop fragment id begun at t0 whose body
// ran trips times.
func Loop(id int32, t0 int64, trips int64) {
	d := Now() - t0
	f := get(id)
	f.mu.Lock()
	f.add("loop", d)
	if f.trips == nil {
		f.trips = map[int64]int64{}
	}
	if _, ok := f.trips[trips]; ok || len(f.trips) < maxTripValues {
		f.trips[trips]++
	} else {
		o := &f.tripsOther
		if o.Count == 0 || trips < o.Min {
			o.Min = trips
		}
		o.Max = max(o.Max, trips)
		o.Count++
		o.Sum += trips
	}
	f.mu.Unlock()
}

// Iter marks the start of iteration k of loop id, for k = 1..IterSamples+1:
// it records iteration k-1's duration (last is what the previous call
// returned for this entry, 0 for the first) and returns the time now.
func Iter(id int32, last int64) int64 {
	now := Now()
	if last != 0 {
		sample(id, now-last)
	}
	return now
}

// IterEnd closes the last iteration of an entry of loop id that ran no
// more than IterSamples iterations.
func IterEnd(id int32, last int64) { sample(id, Now()-last) }

// sample keeps a per-iteration time, reservoir-sampled.
func sample(id int32, d int64) {
	f := get(id)
	f.mu.Lock()
	f.seen++
	if len(f.samples) < maxSamples {
		f.samples = append(f.samples, d)
	} else {
		f.rng ^= f.rng << 13
		f.rng ^= f.rng >> 7
		f.rng ^= f.rng << 17
		if j := int64(f.rng % uint64(f.seen)); j < maxSamples {
			f.samples[j] = d
		}
	}
	f.mu.Unlock()
}

// Trips is the trip count of a counted loop: max(0, ceil(span/step)).
func Trips(span, step int64) int64 {
	if span <= 0 {
		return 0
	}
	return (span + step - 1) / step
}

// attributed is how many outcomes of a decision are recorded per rank;
// later ones are only counted (rank -1), since finding the rank of a
// goroutine costs a microsecond.
const attributed = 10000

// Branch records an outcome of opaque decision id for the calling
// goroutine's rank and returns cond.
func Branch(id int32, cond bool) bool {
	f := get(id)
	r := 0
	if np.Load() > 1 {
		r = -1
		if f.attempts.Add(1) <= attributed {
			r = rankOf()
		}
	}
	f.mu.Lock()
	f.kind = "branch"
	f.count++
	if f.branches == nil {
		f.branches = map[int]*branch{}
	}
	b := f.branches[r]
	if b == nil {
		b = &branch{}
		f.branches[r] = b
	}
	if cond {
		b.trueN++
	} else {
		b.falseN++
	}
	switch n := len(b.runs); {
	case n > 0 && b.runs[n-1].Value == cond:
		b.runs[n-1].Len++
	case n < maxRuns:
		b.runs = append(b.runs, RawRun{Value: cond, Len: 1})
	default:
		b.truncated = true
	}
	f.mu.Unlock()
	return cond
}

// rankOf returns the rank of the calling goroutine: 0 when there is one
// rank, -1 for goroutines that are not ranks (pool threads).
func rankOf() int {
	if np.Load() <= 1 {
		return 0
	}
	if r, ok := ranks.Load(goid()); ok {
		return r.(int)
	}
	return -1
}

// goid returns the calling goroutine's id.
func goid() int64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		b = b[:i]
	}
	id, _ := strconv.ParseInt(string(b), 10, 64)
	return id
}

func init() {
	commlib.AddHooks(commlib.Hooks{
		RankStart: func(rank, n int) {
			np.Store(int64(n))
			wallT0.CompareAndSwap(0, Now())
			ranks.Store(goid(), rank)
		},
		RunEnd: func(err error) { flushAtEnd(err) },
	})
}
