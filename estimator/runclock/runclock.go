// Package runclock times the runs of an uninstrumented program from
// inside, for the timing pass (package estimator): the pass builds the
// program once without probes, with only this package added (an overlay
// file importing it), so that the plain run's time is taken over the same
// span as the instrumented run's: from the first rank's start to the end of
// the run, without the process's start-up and exit, which no fragment can
// cover.
//
// When a run ends it writes, to the file named by $PREDICT_RUN_OUT (if
// set), one JSON object: {"wall_ns": …, "cpu_ns": …, "runtime": {…}}, the
// wall time from the first rank's start to the last rank's end (to the end
// of the run when it failed), the process's CPU time (user and system, all
// threads) over the same span, where the system reports it (-1 where
// not), and what the Go runtime did over it ([GoRuntime]).
//
// Under an MPI launcher each rank is a process of its own: with
// [PerRankEnv] set, each writes its rank's file ([RankFile]), stamped with
// the wall clock at its start, and [Merge] makes of them the times one
// process running every rank would have written.
//
// [Install] registers only commlib's RankStart, RankEnd and RunEnd hooks: no
// commlib call is timed, nothing runs while the program computes. The
// overlay file calls it from an init function; importing the package
// alone changes nothing.
package runclock

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/predict-tools/predict/commlib"
)

// OutEnv names the file the run's times are written to.
const OutEnv = "PREDICT_RUN_OUT"

// Times are what a run measured.
type Times struct {
	WallNS int64 `json:"wall_ns"`
	CPUNS  int64 `json:"cpu_ns"` // -1 where the system does not report it
	// ComputeNS is the ranks' time outside commlib, summed over the
	// ranks: from each rank's start to its end, less its commlib calls.
	ComputeNS int64 `json:"compute_ns,omitempty"`
	// RankComputeNS is ComputeNS per rank (index: rank), for the ranks
	// this process ran (0 for the others).
	RankComputeNS []int64 `json:"rank_compute_ns,omitempty"`
	// StartUnixNS is when the span began, by the wall clock (Unix ns):
	// the processes of a launched run share it, so that Merge finds the
	// run's span across them (0: no rank started).
	StartUnixNS int64 `json:"start_unix_ns,omitempty"`
	// Runtime is what the Go runtime and the system did over the span
	// (goruntime.go); nil when no rank started.
	Runtime *GoRuntime `json:"runtime,omitempty"`
}

var (
	start   = time.Now()
	t0      atomic.Int64 // wall clock at the first rank's start, ns since start (+1: 0 is "not yet")
	rank0   atomic.Int64 // the first rank started in this process, +1 (0: none yet)
	cpu0    atomic.Int64 // CPU time then
	install sync.Once

	rt0 atomic.Pointer[GoRuntime] // the runtime's totals at the first rank's start

	endMu sync.Mutex
	t1    int64     // wall clock at the latest rank's end, as t0 (0: none yet)
	cpu1  int64     // CPU time then
	rt1   GoRuntime // the runtime's totals then
)

// Install makes the process write its runs' times (see the package
// documentation). Calls after the first do nothing.
func Install() {
	install.Do(func() {
		commlib.AddHooks(commlib.Hooks{RankStart: rankStart, RankEnd: rankEnd, RunEnd: runEnd, CallTime: callTime})
	})
}

// compute is the ranks' time outside commlib so far, ns: each rank's span
// is added when it ends, and its commlib calls are taken off as they end;
// perRank the same by rank (a run's np is fixed: made by its first rank).
var (
	compute atomic.Int64
	perRank atomic.Pointer[[]atomic.Int64]
)

// rankCompute adds d to rank's compute, when the rank is known.
func rankCompute(rank int, d int64) {
	if pr := perRank.Load(); pr != nil && rank >= 0 && rank < len(*pr) {
		(*pr)[rank].Add(d)
	}
}

func callTime(rank int, d time.Duration) {
	compute.Add(-int64(d))
	rankCompute(rank, -int64(d))
}

func rankStart(rank, np int) {
	if perRank.Load() == nil && np > 0 {
		pr := make([]atomic.Int64, np)
		perRank.CompareAndSwap(nil, &pr)
	}
	now := int64(time.Since(start))
	compute.Add(-now)
	rankCompute(rank, -now)
	rank0.CompareAndSwap(0, int64(rank)+1)
	if t0.Load() != 0 {
		return
	}
	c, rt := cpuNS(), readRuntime()
	if t0.CompareAndSwap(0, int64(time.Since(start))+1) {
		cpu0.Store(c)
		rt0.Store(&rt)
	}
}

// rankEnd records the end of the latest rank to end: the run's end is
// the last rank's, not the moment commlib has wound the run up (the
// goroutines woken, the ranks' results gathered): no fragment covers
// that, and the model of the run ends with its ranks too.
func rankEnd(rank int) {
	c, rt := cpuNS(), readRuntime()
	now := int64(time.Since(start)) + 1
	compute.Add(now - 1)
	rankCompute(rank, now-1)
	endMu.Lock()
	if now > t1 {
		t1, cpu1, rt1 = now, c, rt
	}
	endMu.Unlock()
}

func runEnd(err error) {
	end, cpu, rt := int64(time.Since(start))+1, cpuNS(), readRuntime()
	endMu.Lock()
	if t1 > 0 && err == nil {
		end, cpu, rt = t1, cpu1, rt1 // the last rank's end; a failed run ends when it is wound up
	}
	endMu.Unlock()
	wall := end - t0.Load()
	if cpu >= 0 && cpu0.Load() >= 0 {
		cpu -= cpu0.Load()
	} else {
		cpu = -1
	}
	if t0.Load() == 0 {
		wall, cpu = 0, 0 // no rank started
	}
	path := os.Getenv(OutEnv)
	if path == "" {
		return
	}
	t := Times{WallNS: wall, CPUNS: cpu}
	if t0.Load() != 0 {
		t.StartUnixNS = start.UnixNano() + t0.Load() - 1
		if before := rt0.Load(); before != nil {
			d := rt.since(*before)
			t.Runtime = &d
		}
	}
	if err == nil {
		t.ComputeNS = max(0, compute.Load())
		if pr := perRank.Load(); pr != nil {
			t.RankComputeNS = make([]int64, len(*pr))
			for i := range *pr {
				t.RankComputeNS[i] = max(0, (*pr)[i].Load())
			}
		}
	}
	path, perr := OutPath(path, int(rank0.Load())-1)
	if perr != nil {
		fmt.Fprintf(os.Stderr, "predict runclock: %v\n", perr)
		return
	}
	if err := write(path, t); err != nil {
		fmt.Fprintf(os.Stderr, "predict runclock: %v\n", err)
	}
}

// write writes t to path through a temporary file renamed into place.
func write(path string, t Times) error {
	data, err := json.Marshal(t)
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// Read reads the times a run wrote to path.
func Read(path string) (Times, error) {
	var t Times
	data, err := os.ReadFile(path)
	if err != nil {
		return t, err
	}
	if err := json.Unmarshal(data, &t); err != nil {
		return t, fmt.Errorf("%s: %v", path, err)
	}
	return t, nil
}
