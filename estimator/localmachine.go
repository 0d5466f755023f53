// This file defines the calibration's measurements made in the
// calibrating process itself (Calibrate): thread primitives and the
// in-process runtime's wake-up of blocked ranks.

package estimator

import (
	"cmp"
	"slices"
	"time"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/trace"
)

// measurements are the calibration's thread costs and the in-process
// runtime's wake-up curve, measured in the calibrating process.
type measurements struct {
	thread machine.ThreadCosts
	wake   machine.Wakeup
	// steal is the steal delay (localsteal.go), stealNote how it was
	// measured.
	steal     trace.Time
	stealNote string
}

// round rounds the durations to whole nanoseconds: finer digits are noise.
func (ms *measurements) round() {
	for _, p := range []*trace.Time{&ms.thread.Create, &ms.thread.SetTask, &ms.thread.Start, &ms.thread.CAS, &ms.thread.CreateAtomic,
		&ms.thread.CreateSemaphore, &ms.thread.TryLock, &ms.thread.Release} {
		if *p >= 10*trace.Nanosecond {
			*p = (*p + trace.Nanosecond/2) / trace.Nanosecond * trace.Nanosecond
		}
	}
}

// computeFor keeps the calling goroutine busy for d (polling the clock):
// a rank computing, for the calibration's tests of waking and stealing.
func computeFor(d time.Duration) {
	for t0 := time.Now(); time.Since(t0) < d; {
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
					computeFor(d)
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
