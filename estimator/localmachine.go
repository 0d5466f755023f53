// This file defines MeasureLocal: a quick calibration of the in-process
// runtime's message and thread costs on this machine.

package estimator

import (
	"cmp"
	"fmt"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/trace"
)

// MeasureLocal measures this machine's in-process runtime (commlib.Run,
// ranks as goroutines) in well under a second and returns a "local"
// machine with origin [machine.OriginMeasured]: one node with runtime.NumCPU()
// cores and no limit of ranks per node, the same parameters within and
// between nodes, and linear collectives (commlib's in-process collectives
// are centralized). It follows MPIPerf's advice where it can cheaply
// (seed-001 §6): warm-up before timing, every round trip and call timed on
// its own, medians rather than means, the timer's own cost subtracted. The
// messages are timed by the calibration tester's samplers.
//
//   - one-way time of 1 B and of 1 MiB: half the median ping-pong round trip;
//   - o: the mean of the median eager Send call (1 B, receiver waiting) and
//     the median Recv of a message that has already arrived;
//   - L = oneway(1) − 2o (at least 0); g: the median over 10 streams of 200
//     sends of 1 B of the time per message; G = (oneway(1 MiB) − oneway(1)) / (1 MiB − 1);
//     O = 0 (the copies are in G); S = commlib.DefaultEagerLimit;
//   - threads: NewPool(16)/16, SetTask's call and the delay until the task
//     starts, copy() of 4 MiB, AtomicInt.CompareAndSwap, a new AtomicInt,
//     NewSemaphore, a TryLock that fails, and TryLock+Unlock less it.
//
// The figures are noisy on a loaded machine; a calibration (predict
// calibrate) is the reference.
func MeasureLocal() (*machine.Machine, error) {
	start := time.Now()
	timer := timerCost()
	var ms measurements
	if err := ms.messages(timer); err != nil {
		return nil, fmt.Errorf("measuring the in-process runtime: %v", err)
	}
	if err := ms.threads(timer); err != nil {
		return nil, fmt.Errorf("measuring thread costs: %v", err)
	}
	if err := ms.wakeups(); err != nil {
		return nil, fmt.Errorf("measuring the wake-up of blocked ranks: %v", err)
	}
	ms.round()
	o := (ms.sendCall + ms.recvCall) / 2
	lg := machine.LogGOPS{
		Latency:       max(ms.oneWay1-2*o, 0),
		Overhead:      o,
		GapPerMessage: ms.stream,
		GapPerByte:    machine.PerByteOver(max(ms.oneWayBig-ms.oneWay1, 0), bigMessage-1),
		EagerLimit:    commlib.DefaultEagerLimit,
	}
	m := &machine.Machine{
		Name:        "local",
		Description: "this machine's in-process runtime (ranks as goroutines of one process), measured quickly",
		Source: fmt.Sprintf("MeasureLocal on %s/%s with %d CPUs, %s, in %s: ping-pong of 1 B (one-way %s) and 1 MiB (one-way %s), "+
			"median Send %s and Recv %s, stream %s per message; thread primitives timed in loops; wake-up of a rank blocked "+
			"in Recv by the trimmed mean one-way time of 1 B after its partner computed for the time blocked, less that of a rank that did not block",
			runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version(), time.Since(start).Round(time.Millisecond),
			machine.FormatDuration(ms.oneWay1), machine.FormatDuration(ms.oneWayBig), machine.FormatDuration(ms.sendCall), machine.FormatDuration(ms.recvCall),
			machine.FormatDuration(ms.stream)),
		Origin:       machine.OriginMeasured,
		Nodes:        1,
		CoresPerNode: runtime.NumCPU(),
		RanksPerNode: 0,
		Mapping:      machine.Block,
		CPUFactor:    1,
		Intra:        lg,
		Inter:        lg,
		Threads:      ms.thread,
		Collectives:  machine.LinearCollectives(),
		Wakeup:       ms.wake,
	}
	return m, m.Validate()
}

const bigMessage = 1 << 20

// measurements are the raw figures of MeasureLocal.
type measurements struct {
	oneWay1, oneWayBig trace.Time
	sendCall, recvCall trace.Time
	stream             trace.Time
	thread             machine.ThreadCosts
	wake               machine.Wakeup
}

// round rounds the durations to whole nanoseconds: finer digits are noise.
func (ms *measurements) round() {
	for _, p := range []*trace.Time{&ms.oneWay1, &ms.oneWayBig, &ms.sendCall, &ms.recvCall, &ms.stream,
		&ms.thread.Create, &ms.thread.SetTask, &ms.thread.Start, &ms.thread.CAS, &ms.thread.CreateAtomic,
		&ms.thread.CreateSemaphore, &ms.thread.TryLock, &ms.thread.Release} {
		if *p >= 10*trace.Nanosecond {
			*p = (*p + trace.Nanosecond/2) / trace.Nanosecond * trace.Nanosecond
		}
	}
}

// since is the time since t0 less the timer's own cost, at least 0.
func since(t0 time.Time, timer trace.Time) trace.Time {
	return max(trace.Time(time.Since(t0).Nanoseconds())*trace.Nanosecond-timer, 0)
}

// timerCost is the smallest cost of a time.Now/time.Since pair.
func timerCost() trace.Time {
	best := trace.Time(1 << 62)
	for range 1000 {
		t0 := time.Now()
		best = min(best, trace.Time(time.Since(t0).Nanoseconds())*trace.Nanosecond)
	}
	return best
}

// median returns the median of s (the upper one of an even count), 0 for
// none; s is left as it is.
func median[T cmp.Ordered](s []T) T {
	if len(s) == 0 {
		var zero T
		return zero
	}
	s = slices.Clone(s)
	slices.Sort(s)
	return s[len(s)/2]
}

// messages measures ping-pongs, send and receive calls, and a stream with
// the calibration tester's samplers (calibrate_ranks.go), medians less the
// timer's cost.
func (ms *measurements) messages(timer trace.Time) error {
	const (
		warm    = 200
		small   = 1500
		big     = 60
		stream  = 200 // messages a stream, streams of them
		streams = 10
	)
	return commlib.Run(2, func(c *commlib.Comm) {
		one, large := newBufferPool(1, false), newBufferPool(bigMessage, false)
		pingPongs(c, one, warm)
		oneWay1 := pingPongs(c, one, small)
		pingPongs(c, large, 5)
		oneWayBig := pingPongs(c, large, big)
		sends := sendCalls(c, one, small)
		recvs := recvCalls(c, small) // rank 1's, on both ranks
		c.Barrier()
		gaps := streamGaps(c, stream, streams)
		if c.Rank() == 0 {
			ms.oneWay1, ms.oneWayBig = medianLess(oneWay1, timer/2), medianLess(oneWayBig, timer/2)
			ms.sendCall, ms.recvCall = medianLess(sends, timer), medianLess(recvs, timer)
			ms.stream = medianLess(gaps, timer/stream)
		}
	})
}

// medianLess is the median of samples in ns, less, at least 0.
func medianLess(ns []float64, less trace.Time) trace.Time {
	return max(trace.Time(math.Round(median(ns)*float64(trace.Nanosecond)))-less, 0)
}

// wakeBlocked are the times a rank is kept blocked in Recv to measure its
// wake-up (machine.Wakeup), and wakeSamples the one-way trips at each.
// commlib polls for DefaultSpinWait before it parks a blocked rank: the
// points around it find where waking starts to cost.
var (
	wakeBlocked = []time.Duration{20 * time.Microsecond, 50 * time.Microsecond, 100 * time.Microsecond,
		150 * time.Microsecond, 300 * time.Microsecond, time.Millisecond, 3 * time.Millisecond}
	wakeSamples = []int{200, 100, 100, 60, 40, 25, 15}
)

// wakeups measures the wake-up curve of the in-process runtime: rank 0
// computes (polls the clock) for d, stamps the time and sends 1 B to
// rank 1, blocked in Recv since rank 0 began; rank 1 reads the clock when
// Recv returns. Both ranks share the process's clock, so the one-way time
// is measured directly. The delay at d is the trimmed mean (a tenth cut
// at each end) less that at d = 0; the mean, not the median, because a
// run pays every wake-up, the slow ones too.
func (ms *measurements) wakeups() error {
	oneWay := func(d time.Duration, n int) (trace.Time, error) {
		var lat []trace.Time
		err := commlib.Run(2, func(c *commlib.Comm) {
			stamp := make([]int64, 1)
			for range n + n/10 {
				if c.Rank() == 0 {
					for t0 := time.Now(); time.Since(t0) < d; {
					}
					stamp[0] = time.Now().UnixNano()
					c.Send(stamp, 1, 0)
					c.Recv(stamp, 1, 1)
				} else {
					c.Recv(stamp, 0, 0)
					lat = append(lat, trace.Time(time.Now().UnixNano()-stamp[0])*trace.Nanosecond)
					c.Send(stamp, 0, 1)
				}
			}
		})
		lat = lat[n/10:] // warm-up
		slices.Sort(lat)
		cut := len(lat) / 10
		var sum trace.Time
		for _, x := range lat[cut : len(lat)-cut] {
			sum += x
		}
		return sum / trace.Time(len(lat)-2*cut), err
	}
	base, err := oneWay(0, 200)
	if err != nil {
		return err
	}
	for i, d := range wakeBlocked {
		t, err := oneWay(d, wakeSamples[i])
		if err != nil {
			return err
		}
		delay := max(t-base, 0)
		if delay >= 10*trace.Nanosecond {
			delay = (delay + trace.Nanosecond/2) / trace.Nanosecond * trace.Nanosecond
		}
		ms.wake = append(ms.wake, machine.WakePoint{Blocked: trace.Time(d.Nanoseconds()) * trace.Nanosecond, Delay: delay})
	}
	return nil
}

// threads measures the thread primitives of commlib.
func (ms *measurements) threads(timer trace.Time) error {
	const (
		poolSize = 16
		runs     = 5
		tasks    = 300
		loop     = 20000
	)
	t := &ms.thread
	var creates []trace.Time
	for run := range runs {
		err := commlib.Run(1, func(c *commlib.Comm) {
			t0 := time.Now()
			p := c.NewPool(poolSize)
			creates = append(creates, since(t0, timer)/poolSize)
			if run < runs-1 {
				return
			}
			// SetTask and the delay until the task starts.
			var started time.Time
			task := func(int) float64 { started = time.Now(); return 0 }
			var calls, starts []trace.Time
			for i := range tasks {
				t0 := time.Now()
				p.SetTask(task)
				call := since(t0, timer)
				p.WaitForAll()
				if i >= tasks/10 { // warm-up
					calls = append(calls, call)
					starts = append(starts, max(trace.Time(started.Sub(t0).Nanoseconds())*trace.Nanosecond-timer, 0))
				}
			}
			t.SetTask, t.Start = median(calls), median(starts)

			perOp := func(n int, body func()) trace.Time {
				t0 := time.Now()
				body()
				return since(t0, timer) / trace.Time(n)
			}
			var a commlib.AtomicInt
			t.CAS = perOp(loop, func() {
				for i := range loop {
					a.CompareAndSwap(int64(i), int64(i+1))
				}
			})
			keep := make([]*commlib.AtomicInt, loop)
			t.CreateAtomic = perOp(loop, func() {
				for i := range keep {
					keep[i] = new(commlib.AtomicInt)
				}
			})
			sems := make([]*commlib.Semaphore, loop/10)
			t.CreateSemaphore = perOp(len(sems), func() {
				for i := range sems {
					sems[i] = c.NewSemaphore(1)
				}
			})
			mu := c.NewMutex()
			mu.Lock()
			t.TryLock = perOp(loop, func() {
				for range loop {
					mu.TryLock() // held: fails
				}
			})
			mu.Unlock()
			pair := perOp(loop, func() {
				for range loop {
					mu.TryLock()
					mu.Unlock()
				}
			})
			t.Release = max(pair-t.TryLock, 0)
		})
		if err != nil {
			return err
		}
	}
	t.Create = median(creates)

	// Copying between threads: a 4 MiB copy, the best of a few.
	const n = 4 << 20
	src, dst := make([]byte, n), make([]byte, n)
	copy(dst, src)
	best := trace.Time(1 << 62)
	for range 8 {
		t0 := time.Now()
		copy(dst, src)
		best = min(best, since(t0, timer))
	}
	t.Copy = machine.PerByteOver(best, n)
	return nil
}
