// Command lockcontention exhibits lock contention: pool threads of one rank
// wait for a Mutex that another thread holds while it computes.
//
// Rank 0 creates a pool of 3 threads and a Mutex; the other ranks idle. In
// each repetition it queues 3 tasks, one per thread, and waits for them
// (WaitForAll). Each task locks the Mutex, computes for 40 ms
// (progutil.Work) inside the critical section, adds its value to a shared
// total and unlocks. The critical sections run one after the other: the
// first thread to lock waits 0, the second 40 ms, the third 80 ms (which
// thread is which depends on scheduling; the sum does not). Only the holder
// spins, the waiters are blocked.
//
// Expected finding (np=2, class S): LockContention at the Lock on rank 0,
// lost 120 ms: for LockContention the lost time of a rank is the sum over its
// threads, here 0 + 40 + 80 ms. Each waiter is charged from its Lock entry
// to the release by the thread that held the lock just before it.
// Every repetition loses the same again.
//
// -near moves the 40 ms of computation out of the critical section (before
// the Lock): the threads compute in parallel and hold the lock only for the
// update of the total, a few microseconds, so nobody waits for it in a way
// that matters (below the noise threshold ε = 1 ms).
//
// Classes set the repetitions: S 1, W 4, A 16, B 64, C 256. The checksum is
// the total, which does not depend on np.
package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/testprogs/internal/progutil"
)

var (
	class = flag.String("class", "S", "problem class: S, W, A, B or C (repetitions 1, 4, 16, 64, 256)")
	near  = flag.Bool("near", false, "near miss: the computation runs outside the critical section")
)

const threads = 3

func main() {
	commlib.Main(func(c *commlib.Comm) {
		ci, err := progutil.ClassIndex(*class)
		if err != nil {
			c.Abort(err)
		}
		reps := 1 << (2 * ci)
		if c.Rank() != 0 {
			return // the other ranks idle
		}
		inside, outside := 40*time.Millisecond, time.Duration(0)
		if *near {
			inside, outside = 0, 40*time.Millisecond
		}

		pool := c.NewPool(threads)
		defer pool.Close()
		mu := c.NewMutex()
		total := 0.0 // guarded by mu
		for k := range reps {
			for t := range threads {
				value := float64(k*threads + t + 1)
				pool.SetTask(func(tid int) float64 {
					progutil.Work(outside)
					mu.Lock() // want: LockContention np=2 ranks=0 lost=120ms
					progutil.Work(inside)
					total += value
					mu.Unlock()
					return value
				})
			}
			sum := pool.WaitForAll()
			want := float64((k*threads+1)*threads + threads*(threads-1)/2)
			progutil.Verify(c, sum == want, "repetition %d: tasks returned %g in all, want %g", k, sum, want)
		}
		n := float64(reps * threads)
		progutil.Verify(c, total == n*(n+1)/2, "total %g, want %g", total, n*(n+1)/2)
		progutil.Checksum(c, fmt.Sprintf("reps=%d total=%g", reps, total))
	})
}
