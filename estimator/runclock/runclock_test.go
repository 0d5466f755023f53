package runclock

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/predict-tools/predict/commlib"
)

// sink keeps TestRunTimes's allocations alive.
var sink [2][][]byte

// TestRunTimes: a run of two ranks busy for 30 ms each is timed from the
// first rank's start to the run's end, with each rank's compute, the CPU
// time of both (which
// the machine's other load may make less than 30 ms each, never more than
// the wall time on every core), and the runtime's account: the 2 × 16 MiB
// the ranks allocate and touch, and page faults where the system counts them.
func TestRunTimes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.json")
	t.Setenv(OutEnv, path)
	Install()
	Install() // once only: a second call adds no hooks
	const busy = 30 * time.Millisecond
	err := commlib.Run(2, func(c *commlib.Comm) {
		for range 16 {
			b := make([]byte, 1<<20)
			for i := 0; i < len(b); i += 4096 {
				b[i] = 1
			}
			sink[c.Rank()] = append(sink[c.Rank()], b)
		}
		t0 := time.Now()
		for time.Since(t0) < busy {
		}
		c.Barrier()
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.WallNS < int64(busy) || got.WallNS > int64(20*busy) {
		t.Errorf("wall %v, want at least %v", time.Duration(got.WallNS), busy)
	}
	// Each rank's compute (its span less its Barrier) is at least its busy
	// loop, and the ranks' add up to the run's.
	if len(got.RankComputeNS) != 2 || got.RankComputeNS[0]+got.RankComputeNS[1] != got.ComputeNS ||
		min(got.RankComputeNS[0], got.RankComputeNS[1]) < int64(busy) {
		t.Errorf("compute per rank %v, in all %v: want 2 ranks of at least %v adding up", got.RankComputeNS, got.ComputeNS, busy)
	}
	if got.CPUNS != -1 && (got.CPUNS <= 0 || got.CPUNS > int64(runtime.NumCPU()+1)*got.WallNS) {
		t.Errorf("CPU %v in a wall time of %v", time.Duration(got.CPUNS), time.Duration(got.WallNS))
	}
	switch rt := got.Runtime; {
	case rt == nil:
		t.Error("no runtime account")
	case rt.AllocBytes < 32<<20 || rt.GCCycles < 0 || rt.GCCPUNS < 0 || rt.ScavengeCPUNS < 0:
		t.Errorf("runtime %+v: want at least 32 MiB allocated, no negative figure", *rt)
	case rt.SysCPUNS != -1 && (rt.SysCPUNS < 0 || rt.MinorFaults <= 0):
		// How many depends on the page size the system gives the heap
		// (transparent huge pages: 2 MiB).
		t.Errorf("runtime %+v: want the system time and the page faults of 32 MiB touched", *rt)
	}
	if _, err := Read(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("reading a missing file succeeded")
	}
}

// TestRunEndsWithLastRank: the span ends when the last rank ends, not
// when the run is wound up: a hook registered before this package's, whose
// RunEnd takes 200 ms, is not in it.
func TestRunEndsWithLastRank(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.json")
	t.Setenv(OutEnv, path)
	const windUp = 200 * time.Millisecond
	slow := true
	commlib.AddHooks(commlib.Hooks{RunEnd: func(error) {
		if slow {
			time.Sleep(windUp)
		}
	}})
	Install()
	defer func() { slow = false }()
	const busy = 20 * time.Millisecond
	if err := commlib.Run(2, func(c *commlib.Comm) {
		if c.Rank() == 1 {
			time.Sleep(busy)
		}
	}); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.WallNS < int64(busy) {
		t.Errorf("wall %v, want at least %v (rank 1's sleep)", time.Duration(got.WallNS), busy)
	}
	// The upper bound is a wall-clock time: a loaded machine can stretch
	// the span past it (496 ms once in CI beside a soak run), so it is
	// checked only with PREDICT_TIMING_TESTS=1.
	if os.Getenv("PREDICT_TIMING_TESTS") != "" && got.WallNS >= int64(windUp) {
		t.Errorf("wall %v, want below %v (the wind-up)", time.Duration(got.WallNS), windUp)
	}
}
