// This file defines the rank of the calling goroutine and the hooks that
// follow commlib's runs.
//
// A rank's goroutine is marked, when it starts, with a profiler label set
// of its own (runtime/pprof.SetGoroutineLabels, {"predict_rank": "r"});
// the runtime hands a goroutine's label set down to the goroutines it
// creates, so pool and Parallel threads carry their rank's. Branch reads
// the calling goroutine's label-set pointer (runtime_getProfLabel, which
// the runtime keeps for linkname users) and looks it up among the ranks'
// pointers: a few nanoseconds. The pointers are only compared, never
// dereferenced, and stay referenced here, so their addresses are never
// reused. A goroutine whose labels the program changed itself (pprof.Do)
// falls back to its goroutine id, from runtime.Stack (microseconds; the
// answer is cached per goroutine): a rank's registered goroutine, or the
// rank of the goroutine that created it ("created by … in goroutine N"),
// else -1.

package probe

import (
	"bytes"
	"context"
	"runtime"
	"runtime/pprof"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/predict-tools/predict/commlib"
)

// RankLabel is the profiler label that marks the goroutines of a rank.
const RankLabel = "predict_rank"

//go:linkname getProfLabel runtime/pprof.runtime_getProfLabel
func getProfLabel() unsafe.Pointer

var (
	np      atomic.Int64 // ranks of the latest run; 0 before the first
	wallT0  atomic.Int64 // wallNow at the first RankStart
	wallEnd atomic.Int64 // wallNow at the end of the latest rank to end, or at the latest RunEnd of a failed run

	// firstRank is the first rank started in this process, +1 (0: none
	// yet): under an MPI launcher, the process's one rank, whose file it
	// writes (runclock.PerRankEnv).
	firstRank atomic.Int64

	labelMu sync.Mutex                             // serializes writers of byLabel
	byLabel atomic.Pointer[map[unsafe.Pointer]int] // label set → rank, copied on write

	gMu sync.RWMutex
	byG = map[int64]int{} // goroutine id → rank (-1: not a rank's)
)

func init() {
	byLabel.Store(&map[unsafe.Pointer]int{})
	commlib.AddHooks(commlib.Hooks{
		RankStart: rankStart,
		RankEnd:   rankEnd,
		RunEnd:    runEnd,
		CallTime:  callTime,
		CallStart: callStart,
	})
}

// rankStart runs in the goroutine of a rank as it starts.
func rankStart(rank, n int) {
	np.Store(int64(n))
	firstRank.CompareAndSwap(0, int64(rank)+1)
	defer wallT0.CompareAndSwap(0, wallNow()) // the span starts with a rank's body, after this set-up
	pprof.SetGoroutineLabels(pprof.WithLabels(context.Background(), pprof.Labels(RankLabel, strconv.Itoa(rank))))
	l := getProfLabel()
	if l != nil {
		labelMu.Lock()
		m := make(map[unsafe.Pointer]int, len(*byLabel.Load())+1)
		for k, v := range *byLabel.Load() {
			m[k] = v
		}
		m[l] = rank
		byLabel.Store(&m)
		labelMu.Unlock()
	}
	if g, ok := goid(); ok {
		gMu.Lock()
		byG[g] = rank
		gMu.Unlock()
	}
	if rank == 0 && n > 1 && !threadClock && declared.Load() {
		// Regions and decisions find their rank by its label now.
		calibrateRanked()
	}
}

// rankEnd records the end of a rank: the run's span ends with its last
// rank, not when commlib has wound the run up (the goroutines woken, the
// results gathered), which no fragment covers and the model does not
// have either.
func rankEnd(int) {
	now := wallNow()
	for {
		e := wallEnd.Load()
		if e >= now || wallEnd.CompareAndSwap(e, now) {
			return
		}
	}
}

// runEnd writes the data when a run ends (a failed run's span ends here).
func runEnd(err error) {
	if err != nil || wallEnd.Load() < wallT0.Load() {
		wallEnd.Store(wallNow())
	}
	flushAtEnd(err)
}

// rankOf returns the rank of the calling goroutine (see the top of the
// file), -1 if it is not known to belong to a rank.
func rankOf() int {
	l := getProfLabel()
	if l == nil {
		return -1 // not a rank's: no rank has run, or started it
	}
	if r, ok := (*byLabel.Load())[l]; ok {
		return r
	}
	return rankOfG()
}

// rankOfG returns the rank of the calling goroutine from its id.
func rankOfG() int {
	g, ok := goid()
	if !ok {
		return -1
	}
	gMu.RLock()
	r, ok := byG[g]
	gMu.RUnlock()
	if ok {
		return r
	}
	r = -1
	if parent, ok := creator(); ok {
		gMu.RLock()
		if pr, ok := byG[parent]; ok {
			r = pr
		}
		gMu.RUnlock()
	}
	gMu.Lock()
	byG[g] = r
	gMu.Unlock()
	return r
}

// goid returns the calling goroutine's id, from the header of its stack
// trace ("goroutine 17 [running]:").
func goid() (int64, bool) {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b, ok := bytes.CutPrefix(b, []byte("goroutine "))
	if !ok {
		return 0, false
	}
	if i := bytes.IndexByte(b, ' '); i > 0 {
		b = b[:i]
	}
	id, err := strconv.ParseInt(string(b), 10, 64)
	return id, err == nil
}

// creator returns the id of the goroutine that created the calling one,
// from the last line of its stack trace ("created by f in goroutine 7").
func creator() (int64, bool) {
	buf := make([]byte, 16<<10)
	for {
		n := runtime.Stack(buf, false)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		if len(buf) >= 1<<20 {
			return 0, false
		}
		buf = make([]byte, 4*len(buf))
	}
	i := bytes.LastIndex(buf, []byte("\ncreated by "))
	if i < 0 {
		return 0, false
	}
	line := buf[i+1:]
	if j := bytes.IndexByte(line, '\n'); j >= 0 {
		line = line[:j]
	}
	const in = " in goroutine "
	k := bytes.LastIndex(line, []byte(in))
	if k < 0 {
		return 0, false
	}
	id, err := strconv.ParseInt(string(line[k+len(in):]), 10, 64)
	return id, err == nil
}

// commNS sums, per rank, the time spent inside commlib calls: time that is
// not compute, for comparing the fragments with the run's time.
var (
	commMu sync.Mutex
	commNS = map[int]int64{}
)

func callTime(rank int, d time.Duration) {
	commMu.Lock()
	commNS[rank] += int64(d)
	commMu.Unlock()
	if threadClock {
		callEnd()
	} else {
		addComm(rank, int64(d))
	}
}
