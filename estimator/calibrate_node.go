// This file defines what calibration measures of the node itself: where
// it runs (host, CPU model, clock source, load), the timer's cost and
// granularity, the memory bandwidth by a STREAM triad, and the cost of
// allocating memory per byte.

package estimator

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Host says where a calibration ran.
type Host struct {
	Name        string `json:"name"`
	CPUModel    string `json:"cpu_model"`
	CPUs        int    `json:"cpus"`
	OS          string `json:"os"`
	GoVersion   string `json:"go_version"`
	ClockSource string `json:"clock_source,omitempty"`
	LoadBefore  string `json:"load_before,omitempty"` // /proc/loadavg
	LoadAfter   string `json:"load_after,omitempty"`
}

// thisHost describes this machine.
func thisHost() Host {
	name, _ := os.Hostname()
	return Host{Name: name, CPUModel: cpuModel(), CPUs: runtime.NumCPU(), OS: runtime.GOOS + "/" + runtime.GOARCH,
		GoVersion: runtime.Version(), ClockSource: fileLine("/sys/devices/system/clocksource/clocksource0/current_clocksource"),
		LoadBefore: loadAverage()}
}

// cpuModel is the first "model name" of /proc/cpuinfo, else the
// architecture.
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				return strings.TrimSpace(v)
			}
		}
	}
	return runtime.GOARCH
}

func fileLine(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimSpace(line)
}

// loadAverage is the 1, 5 and 15 minute load averages, "" where unknown.
func loadAverage() string {
	f := strings.Fields(fileLine("/proc/loadavg"))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// Timer describes the tester's clock (seed-001 §6.1): the cost of a read
// (back-to-back pairs: the minimum and the median) and its granularity
// (the smallest nonzero difference of two reads).
type Timer struct {
	MinRead     float64 `json:"min_read_ns"`
	MedianRead  float64 `json:"median_read_ns"`
	Granularity float64 `json:"granularity_ns"`
}

// measureTimer reads the clock n times back to back.
func measureTimer(n int) Timer {
	d := make([]int64, n)
	for i := range d {
		t0 := calNow()
		d[i] = calNow() - t0
	}
	slices.Sort(d)
	t := Timer{MinRead: float64(d[0]), MedianRead: float64(d[n/2])}
	if i, ok := slices.BinarySearch(d, 1); ok || i < n {
		t.Granularity = float64(d[i])
	}
	return t
}

// Memory is the node's memory bandwidth by a STREAM triad a[i] = b[i] +
// 3·c[i] over arrays beyond the caches, counted as STREAM counts it (24
// bytes an element): Streams streams at once (one per core, at most
// maxTriadStreams and within the memory there is: the node's bandwidth),
// and one stream alone. Converged is false when an interval did not
// narrow within its budget (the means are then indicative); Plan says how
// the working set was chosen, or why memory was not measured (Streams 0).
type Memory struct {
	Node       Estimate `json:"node_bytes_per_second"`
	Alone      Estimate `json:"alone_bytes_per_second"`
	Streams    int      `json:"streams"`
	ArrayBytes int64    `json:"array_bytes"` // each of the three arrays of a stream
	Converged  bool     `json:"converged"`
	Plan       string   `json:"plan"`
}

// text says how the memory bandwidth was measured, for a machine's source.
func (m Memory) text() string {
	switch {
	case m.Streams == 0:
		return "memory bandwidth " + m.Plan
	case !m.Converged:
		return fmt.Sprintf("memory bandwidth by a STREAM triad of %s (not converged: ±%.0f %%, indicative)", m.Plan,
			100*max(m.Node.RelHalfWidth(), m.Alone.RelHalfWidth()))
	}
	return "memory bandwidth by a STREAM triad of " + m.Plan
}

// bandwidth is the machine's memory_bandwidth: the node's mean, 0
// (unknown) when not measured.
func (m Memory) bandwidth() float64 {
	if m.Streams == 0 || m.Node.Kept == 0 || !(m.Node.Mean > 0) {
		return 0
	}
	return math.Round(m.Node.Mean)
}

// triadLen is the length of each array of a stream: 3 × 32 MiB, beyond
// the last-level caches of the machines predict runs on (as commlib's
// COMMLIB_STREAM co-runners); minTriadLen the shortest a lack of memory
// may make it (3 × 8 MiB).
const (
	triadLen    = 4 << 20
	minTriadLen = 1 << 20
)

// The triad's working set is bounded, as it runs on a user's first
// predict run: at most maxTriadStreams streams (quickTriadStreams in a
// quick calibration), at most maxTriadBytes in all, and at most
// 1/triadMemShare of the memory available (/proc/meminfo).
const (
	maxTriadStreams   = 8
	quickTriadStreams = 4
	maxTriadBytes     = 1 << 30
	triadMemShare     = 4
)

// triadPlan is the triad's working set: streams streams of three arrays
// of length float64s, and what decided it.
type triadPlan struct {
	streams, length int
	why             string
}

// planTriad chooses the working set for cpus cores with avail bytes of
// memory available (0: unknown). streams 0: not measured (why says so).
func planTriad(cpus int, avail int64, quick bool) triadPlan {
	limit := maxTriadStreams
	if quick {
		limit = quickTriadStreams
	}
	p := triadPlan{streams: max(min(cpus, limit), 1), length: triadLen}
	capBytes := int64(maxTriadBytes)
	why := fmt.Sprintf("%d streams of %d cores (at most %d)", p.streams, cpus, limit)
	if avail > 0 {
		capBytes = min(capBytes, avail/triadMemShare)
		why += fmt.Sprintf(", at most %d MiB in all (1/%d of the %d MiB available)", capBytes>>20, triadMemShare, avail>>20)
	} else {
		why += fmt.Sprintf(", at most %d MiB in all (memory available unknown)", capBytes>>20)
	}
	stream := func() int64 { return 3 * 8 * int64(p.length) }
	for p.streams > 1 && int64(p.streams)*stream() > capBytes {
		p.streams--
	}
	for p.length > minTriadLen && int64(p.streams)*stream() > capBytes {
		p.length /= 2
	}
	if int64(p.streams)*stream() > capBytes {
		p.streams = 0
		p.why = why + ": not measured, too little memory for 3 arrays of " + strconv.Itoa(8*minTriadLen>>20) + " MiB"
		return p
	}
	p.why = fmt.Sprintf("%s: %d × 3 × %d MiB", why, p.streams, 8*p.length>>20)
	return p
}

// memAvailable is MemAvailable of /proc/meminfo in bytes (0: unknown).
func memAvailable() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemAvailable:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

// triadPass runs streams triads at once over their own arrays, reps
// passes each, and returns the bandwidth of all of them together (B/s).
func triadPass(arrays [][3][]float64, reps int) float64 {
	var wg sync.WaitGroup
	t0 := time.Now()
	for _, a := range arrays {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x, y, z := a[0], a[1], a[2]
			for range reps {
				for i := range x {
					x[i] = y[i] + 3*z[i]
				}
			}
		}()
	}
	wg.Wait()
	return float64(len(arrays)*reps*24*len(arrays[0][0])) / time.Since(t0).Seconds()
}

// triadArrays allocates and touches n streams' arrays.
func triadArrays(n, length int) [][3][]float64 {
	out := make([][3][]float64, n)
	for s := range out {
		for k := range out[s] {
			out[s][k] = make([]float64, length)
			for i := range out[s][k] {
				out[s][k][i] = float64(k + 1)
			}
		}
	}
	return out
}

// bandwidthSampler samples the bandwidth of streams triads at once.
func bandwidthSampler(arrays [][3][]float64) sampler {
	return samplerFunc(func(n int) ([]float64, error) {
		out := make([]float64, n)
		for i := range out {
			out[i] = triadPass(arrays, 1)
		}
		return out, nil
	})
}

// measureIndicative is measureUntil for a quantity that does not refuse a
// calibration: one whose interval does not converge is returned with
// converged false (its mean indicative), not as an error.
func measureIndicative(what string, s sampler, rule StopRule) (e Estimate, converged bool, err error) {
	e, _, err = measureUntil(what, s, rule, sinceNow())
	var noisy *NoisyError
	if errors.As(err, &noisy) {
		return e, false, nil
	}
	return e, err == nil, err
}

// node measures the memory bandwidth and the cost of allocation; neither
// refuses the calibration (a mean that does not converge is reported as
// such).
func (cal *Calibration) node(rule StopRule, logf func(string, ...any)) error {
	plan := planTriad(runtime.NumCPU(), memAvailable(), cal.Quick)
	cal.Memory = Memory{Streams: plan.streams, ArrayBytes: 8 * int64(plan.length), Plan: plan.why}
	r := rule
	r.Batch, r.Min = 3, 10
	if !cal.Quick {
		// A quick calibration (a user's first run) keeps its budget: a
		// mean that has not converged in it is only indicative.
		r.Budget = max(rule.Budget, minSlowBudget)
	}
	if plan.streams > 0 {
		logf("memory bandwidth: STREAM triad, %s, and 1 stream alone", plan.why)
		arrays := triadArrays(plan.streams, plan.length)
		triadPass(arrays, 1) // first touch
		node, okNode, err := measureIndicative("memory bandwidth, all streams", bandwidthSampler(arrays), r)
		if err != nil {
			return err
		}
		alone, okAlone, err := measureIndicative("memory bandwidth, one stream", bandwidthSampler(arrays[:1]), r)
		if err != nil {
			return err
		}
		cal.Memory.Node, cal.Memory.Alone, cal.Memory.Converged = node, alone, okNode && okAlone
		arrays = nil
		debug.FreeOSMemory() // give the working set back before the user's run
	} else {
		logf("memory bandwidth: %s", plan.why)
	}
	logf("allocation cost per byte (fresh memory)")
	r.Batch, r.Max = allocBatch, allocMaxSamples
	var err error
	cal.AllocPerByte, cal.AllocConverged, err = measureIndicative("allocation per byte", samplerFunc(func(n int) ([]float64, error) { return allocSamples(n), nil }), r)
	return err
}

// allocSink keeps allocations alive so that they are not optimized away.
var allocSink [][]byte

// The allocation samples: blocks of allocBlock bytes, allocBatch of them
// with the collector off between two collections, at most allocMaxSamples
// in all (allocMaxSamples × allocBlock is the most they hold at once).
const (
	allocBlock      = 1 << 20
	allocBatch      = 16
	allocMaxSamples = 64
)

// allocSamples are n samples of the cost of allocating fresh memory per
// byte, ns/B: the time of a make([]byte) of allocBlock and a first write
// of all of it (the page faults, and the runtime's zeroing where it
// zeroes), less the time of the same write to a block already resident.
// The collector is off and every block kept until the batch ends, so that
// each make takes memory the heap has not used (a reused span would be
// zeroed, a fresh one not: the two costs differ several-fold); between
// batches the blocks go back to the system. The figure is what a program
// pays to allocate and first fill a large buffer, beyond filling it.
func allocSamples(n int) []float64 {
	old := debug.SetGCPercent(-1)
	defer func() {
		allocSink = nil
		debug.SetGCPercent(old)
		debug.FreeOSMemory()
	}()
	warm := make([]byte, allocBlock)
	clear(warm)
	out := make([]float64, n)
	for i := range out {
		t0 := calNow()
		clear(warm)
		t1 := calNow()
		b := make([]byte, allocBlock)
		clear(b) // the first write: a fresh block's pages fault in here
		t2 := calNow()
		allocSink = append(allocSink, b)
		out[i] = float64((t2-t1)-(t1-t0)) / allocBlock
		if len(allocSink) == allocBatch {
			allocSink = nil
			debug.FreeOSMemory()
		}
	}
	return out
}
