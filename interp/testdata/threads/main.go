// Command threads is the interpreter's hand-computed thread test (seed-003
// §3.4 and §4.1.2): spin(u) costs u units of a synthetic profile, so the
// clocks of the pool's tasks, locks and joins can be computed by hand.
package main

import (
	"flag"

	"github.com/predict-tools/predict/commlib"
)

var (
	part   = flag.String("part", "forkjoin", "forkjoin, lock, causal, barrier, pool, poolidle, ranks, runnext, steal or displace")
	onward = flag.Int("onward", 2, "steal: units rank 1 computes after it readies rank 2")
)

var sink int

// spin is the unit of work: the profile times its loop.
func spin(units int) {
	for i := 0; i < units; i++ {
		sink += i
	}
}

func main() {
	commlib.Main(func(c *commlib.Comm) {
		switch *part {
		case "forkjoin":
			// The thesis's fork/join example: the master at 100 sets
			// tasks of 10, 20 and 15; it resumes at 120.
			spin(100)
			pool := c.NewPool(3)
			for _, u := range []int{10, 20, 15} {
				pool.SetTask(func(tid int) float64 { spin(u); return float64(u) })
			}
			pool.WaitForAll()
		case "lock":
			// The thesis's semaphore example: th1 locks at 5 and
			// unlocks at 15; th2 asks at 6 and waits until 15.
			mu := c.NewMutex()
			pool := c.NewPool(2)
			pool.SetTask(func(tid int) float64 { spin(5); mu.Lock(); spin(10); mu.Unlock(); return 0 })
			pool.SetTask(func(tid int) float64 { spin(6); mu.Lock(); spin(1); mu.Unlock(); return 0 })
			pool.WaitForAll()
		case "causal":
			// The first task set asks for the lock later (at 8) than
			// the second (at 3): the second gets it first and holds it
			// until 13; the first waits until then.
			mu := c.NewMutex()
			pool := c.NewPool(2)
			pool.SetTask(func(tid int) float64 { spin(8); mu.Lock(); spin(2); mu.Unlock(); return 0 })
			pool.SetTask(func(tid int) float64 { spin(3); mu.Lock(); spin(10); mu.Unlock(); return 0 })
			pool.WaitForAll()
		case "pool", "poolidle":
			// Eight tasks of 10 units on commlib.Threads(2) workers
			// (poolidle: on rank 0 only, the others end).
			if *part == "poolidle" && c.Rank() != 0 {
				return
			}
			pool := c.NewPool(commlib.Threads(2))
			for range 8 {
				pool.SetTask(func(tid int) float64 { spin(10); return 0 })
			}
			pool.WaitForAll()
		case "ranks":
			// Rank r computes 10(r+1) units, then all meet.
			spin(10 * (c.Rank() + 1))
			c.Barrier()
		case "runnext":
			// Rank 1 readies rank 0 (blocked in Recv) at 10, then
			// computes until 20; rank 2 has been ready since 0.
			buf := []float64{0}
			switch c.Rank() {
			case 0:
				c.Recv(buf, 1, 0)
				spin(10)
			case 1:
				spin(10)
				c.Send(buf, 0, 0)
				spin(10)
			case 2:
				spin(30)
			}
		case "steal":
			// Rank 0 ends at once; rank 2 blocks in Recv; rank 1 readies
			// it at 10, computes -onward units and waits for its reply,
			// which rank 2 sends after 10 units.
			buf := []float64{0}
			switch c.Rank() {
			case 1:
				spin(10)
				c.Send(buf, 2, 0)
				spin(*onward)
				c.Recv(buf, 2, 1)
			case 2:
				c.Recv(buf, 1, 0)
				spin(10)
				c.Send(buf, 1, 1)
			}
		case "displace":
			// Rank 0 ends at once; ranks 2 and 3 block in Recv; rank 1
			// readies rank 2 at 10, rank 3 at 12, and computes until 22.
			// Ranks 2 and 3 compute 10 units each once readied.
			buf := []float64{0}
			switch c.Rank() {
			case 1:
				spin(10)
				c.Send(buf, 2, 0)
				spin(2)
				c.Send(buf, 3, 0)
				spin(10)
			case 2, 3:
				c.Recv(buf, 1, 0)
				spin(10)
			}
		case "barrier":
			// Three threads arrive at 4, 9 and 2 units; all leave at 9.
			bar := c.NewBarrier(3)
			work := []int{4, 9, 2}
			c.Parallel(3, func(tid int) {
				spin(work[tid])
				bar.Wait()
				spin(1)
			})
		}
	})
}
