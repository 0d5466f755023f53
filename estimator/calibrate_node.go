// This file defines what calibration measures of the node itself: where
// it runs (host, CPU model, clock source, load), the timer's cost and
// granularity, the memory bandwidth by a STREAM triad, and the cost of
// allocating memory per byte.

package estimator

import (
	"bufio"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
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
// bytes an element): one stream per core at once (the node's bandwidth),
// and one stream alone.
type Memory struct {
	Node       Estimate `json:"node_bytes_per_second"`
	Alone      Estimate `json:"alone_bytes_per_second"`
	Streams    int      `json:"streams"`
	ArrayBytes int64    `json:"array_bytes"` // each of the three arrays of a stream
}

// triadLen is the length of each array of a stream: 3 × 32 MiB, beyond
// the last-level caches of the machines predict runs on (as commlib's
// COMMLIB_STREAM co-runners).
const triadLen = 4 << 20

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

// allocSink keeps allocations alive so that they are not optimized away.
var allocSink []byte

// allocSamples are n samples of the cost of allocating memory per byte,
// ns/B: the difference between a large and a small make([]byte), zeroing
// included, with the collector off so that it is not charged a cycle.
func allocSamples(n int) []float64 {
	const small, large = 64 << 10, 4 << 20
	old := debug.SetGCPercent(-1)
	defer func() {
		allocSink = nil
		debug.SetGCPercent(old)
		runtime.GC()
	}()
	out := make([]float64, n)
	for i := range out {
		t0 := calNow()
		allocSink = make([]byte, small)
		t1 := calNow()
		allocSink = make([]byte, large)
		t2 := calNow()
		out[i] = float64((t2-t1)-(t1-t0)) / (large - small)
		if i%16 == 15 {
			allocSink = nil
			runtime.GC()
		}
	}
	return out
}
