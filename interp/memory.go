// This file defines the memory check of a run: before it interprets a
// program for many processes, Run estimates the memory they need from two
// small runs and refuses a run that will not fit, instead of failing with
// the Go runtime's "fatal error: out of memory" part way through.

package interp

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/predict-tools/predict/profile"
)

// The memory check runs for np ≥ memoryCheckNP; below, even a kilobyte
// per process is a few megabytes. The estimate comes from runs at
// memoryProbeNP[0] and [1] processes.
const memoryCheckNP = 16384

var memoryProbeNP = [2]int{32, 64}

// memoryMargin is the share of the limit a run may use: the rest is left
// for the rest of the process (the loaded program, the result) and for
// the garbage collector's slack.
const memoryMargin = 0.9

// MemoryEstimate is the memory a run needs as a function of np, measured
// (a sweep may measure once, with [Program.EstimateMemory], and pass it
// to each np's run in Config.Memory):
// the live heap of two runs at small np (after a garbage collection, at
// several points of each run: the largest), whose difference per process
// is what each further logical process costs (its clocks, frames, control
// values, requests and messages, and its share of the per-np tables).
type MemoryEstimate struct {
	PerProcess int64  // bytes per logical process
	MeasuredAt [2]int // the np of the two runs
}

// Bytes is the estimated memory of a run at np processes beyond what the
// program and model already hold.
func (e *MemoryEstimate) Bytes(np int) int64 {
	if e.PerProcess > 0 && int64(np) > math.MaxInt64/e.PerProcess {
		return math.MaxInt64
	}
	return e.PerProcess * int64(np)
}

// MemoryError is a run refused before it starts: its processes would not
// fit in the memory there is.
type MemoryError struct {
	NP       int
	Need     int64 // estimated bytes
	Estimate MemoryEstimate
	Limit    int64  // bytes the run may use
	Source   string // where the limit comes from
}

func (e *MemoryError) Error() string {
	return fmt.Sprintf("the model of %d processes needs about %s (%d B per process, measured between np=%d and np=%d), more than the %s available (%s); use a smaller np or more memory",
		e.NP, gigabytes(e.Need), e.Estimate.PerProcess, e.Estimate.MeasuredAt[0], e.Estimate.MeasuredAt[1], gigabytes(e.Limit), e.Source)
}

func gigabytes(b int64) string {
	return fmt.Sprintf("%.1f GB", float64(b)/1e9)
}

// MemoryLimit is what a run may use: cfg.MemoryLimit when set, else the
// limit of the Go runtime (GOMEMLIMIT) less the heap in use, else the
// system's available memory (MemAvailable of /proc/meminfo), with a margin
// (memoryMargin). It returns 0 when it knows no limit.
func MemoryLimit(cfg Config) (limit int64, source string) {
	if cfg.MemoryLimit > 0 {
		return cfg.MemoryLimit, "the limit given"
	}
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 && l != softLimit.Load() {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return int64(float64(l-int64(ms.HeapAlloc)) * memoryMargin), fmt.Sprintf("%.0f%% of GOMEMLIMIT=%s less the heap in use", memoryMargin*100, gigabytes(l))
	}
	if avail, ok := memAvailable(); ok {
		return int64(float64(avail) * memoryMargin), fmt.Sprintf("%.0f%% of MemAvailable", memoryMargin*100)
	}
	return 0, ""
}

// memAvailable reads MemAvailable from /proc/meminfo.
func memAvailable() (int64, bool) {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	_, rest, ok := strings.Cut(string(data), "MemAvailable:")
	line, _, _ := strings.Cut(rest, "\n")
	kb, unit, _ := strings.Cut(strings.TrimSpace(line), " ")
	n, err := strconv.ParseInt(kb, 10, 64)
	if !ok || err != nil || unit != "kB" {
		return 0, false
	}
	return n * 1024, true
}

// checkMemory refuses cfg when its processes will not fit (a
// *MemoryError). A program that fails at the small np of the estimate
// is not refused: its own run reports what it does.
func (prog *Program) checkMemory(cfg Config, units map[string]unitTime) error {
	if cfg.NP < memoryCheckNP {
		return nil
	}
	limit, source := MemoryLimit(cfg)
	if limit <= 0 {
		return nil
	}
	est := cfg.Memory
	if est == nil {
		var err error
		if est, err = prog.estimateMemory(cfg, units); err != nil {
			return nil
		}
	}
	need := est.Bytes(cfg.NP)
	if need > limit {
		return &MemoryError{NP: cfg.NP, Need: need, Estimate: *est, Limit: limit, Source: source}
	}
	if l := debug.SetMemoryLimit(-1); cfg.MemoryLimit == 0 && (l == math.MaxInt64 || l == softLimit.Load()) {
		// The estimate is of the live heap; without a limit the heap
		// may grow past it by the garbage collector's slack (GOGC), by
		// a fifth for stencil at np = 10⁶. A soft limit at what is
		// available makes the collector work harder there instead.
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		soft := int64(ms.HeapSys) + limit
		softLimit.Store(soft)
		debug.SetMemoryLimit(soft)
	}
	return nil
}

// softLimit is the memory limit checkMemory set (not GOMEMLIMIT).
var softLimit atomic.Int64

// EstimateMemory measures the memory per logical process of cfg's run
// (cfg.NP is ignored): two runs at small np.
func (prog *Program) EstimateMemory(cfg Config) (*MemoryEstimate, error) {
	var units map[string]unitTime
	if cfg.Profile != nil {
		var err error
		if units, err = prog.unitsOf(cfg.Profile, cfg.Machine); err != nil {
			return nil, err
		}
	}
	return prog.estimateMemory(cfg, units)
}

// memoryKey is what the memory of a program's run depends on besides np.
type memoryKey struct {
	args    string
	threads int
	profile *profile.File
}

// estimateMemory measures once per program, arguments, threads and
// profile, with no other interpretation running: the live heap is the
// process's, and another run's would count as this one's.
func (prog *Program) estimateMemory(cfg Config, units map[string]unitTime) (*MemoryEstimate, error) {
	prog.memoryMu.Lock()
	defer prog.memoryMu.Unlock()
	key := memoryKey{strings.Join(cfg.Args, "\x00"), cfg.Threads, cfg.Profile}
	if est := prog.memory[key]; est != nil {
		return est, nil
	}
	interpreting.Lock()
	defer interpreting.Unlock()
	var live [2]int64
	for i, np := range memoryProbeNP {
		c := cfg
		c.NP, c.Trace = np, nil
		var err error
		if live[i], err = prog.peakLive(c, units); err != nil {
			return nil, fmt.Errorf("estimating the memory per process at np=%d: %w", np, err)
		}
	}
	// At least a process's own record: another goroutine's garbage
	// collected between the two runs must not make a process look free.
	per := (live[1] - live[0]) / int64(memoryProbeNP[1]-memoryProbeNP[0])
	est := &MemoryEstimate{PerProcess: max(per, int64(unsafe.Sizeof(proc{}))), MeasuredAt: memoryProbeNP}
	if prog.memory == nil {
		prog.memory = map[memoryKey]*MemoryEstimate{}
	}
	prog.memory[key] = est
	return est, nil
}

// interpreting is held for reading by every interpretation (Program.run)
// and for writing by a measurement of memory, whose runs (with
// Config.sample set) must see the heap of no other run: in a sweep, the
// runs at other np wait for it, for about a second.
var interpreting sync.RWMutex

// peakLive runs cfg and returns the largest live heap seen during the run
// (after a garbage collection) when the processes have started and then
// after np, 4·np, 16·np, … communication events, and at the end.
func (prog *Program) peakLive(cfg Config, units map[string]unitTime) (int64, error) {
	var peak int64
	sample := func() {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		peak = max(peak, int64(ms.HeapAlloc))
	}
	next := int64(0)
	cfg.sample = func(w *World) {
		if w.events >= next {
			sample()
			next = max(int64(cfg.NP), 4*w.events)
		}
	}
	w, err := prog.run(cfg, units, false)
	if err != nil {
		return 0, err
	}
	sample()
	runtime.KeepAlive(w)
	return peak, nil
}
