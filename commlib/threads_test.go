// This file tests threads inside a rank: the pool and its reductions,
// Parallel, Mutex, Semaphore, the thread Barrier and the atomics.

package commlib_test

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/predict-tools/predict/commlib"
)

func TestPoolRunsEveryTask(t *testing.T) {
	const threads, tasks = 4, 200
	var ran [2][tasks]atomic.Int32
	mustRun(t, 2, func(c *commlib.Comm) {
		p := c.NewPool(threads)
		if p.Size() != threads {
			t.Errorf("Size = %d", p.Size())
		}
		var badTid atomic.Int32
		for k := range tasks {
			p.SetTask(func(tid int) float64 {
				if tid < 0 || tid >= threads {
					badTid.Store(int32(tid) + 1000)
				}
				ran[c.Rank()][k].Add(1)
				return float64(k)
			})
		}
		if got := p.WaitForAll(); got != tasks*(tasks-1)/2 {
			t.Errorf("rank %d: WaitForAll = %v, want %v", c.Rank(), got, tasks*(tasks-1)/2)
		}
		if b := badTid.Load(); b != 0 {
			t.Errorf("a task got tid %d, want 0..%d", b-1000, threads-1)
		}
		// The ranks still communicate while their pools exist.
		out := make([]int, 1)
		c.Allreduce([]int{1}, out, commlib.Sum)
	})
	for r := range 2 {
		for k := range tasks {
			if n := ran[r][k].Load(); n != 1 {
				t.Errorf("rank %d task %d ran %d times", r, k, n)
			}
		}
	}
}

func TestPoolUsesItsThreads(t *testing.T) {
	// With tasks that wait for each other at a barrier, all threads must be
	// running tasks at once: every tid appears.
	const threads = 3
	mustRun(t, 1, func(c *commlib.Comm) {
		p := c.NewPool(threads)
		b := c.NewBarrier(threads)
		var seen [threads]atomic.Int32
		for range threads {
			p.SetTask(func(tid int) float64 {
				seen[tid].Add(1)
				b.Wait()
				return 1
			})
		}
		if got := p.WaitForAll(); got != threads {
			t.Errorf("WaitForAll = %v", got)
		}
		for tid := range threads {
			if seen[tid].Load() != 1 {
				t.Errorf("tid %d ran %d tasks, want 1", tid, seen[tid].Load())
			}
		}
	})
}

func TestPoolReductionInSubmissionOrder(t *testing.T) {
	// Each group's values are combined in submission order whatever order
	// the tasks finish in (earlier tasks are made slower).
	groups := []struct {
		op     commlib.Op
		values []float64
		want   float64
	}{
		// ((1e16 + 1) - 1e16) + 1 = 1 in order; other orders give 0 or 2.
		{commlib.Sum, []float64{1e16, 1, -1e16, 1}, 1},
		{commlib.Max, []float64{3, -1, 7.5, 2}, 7.5},
		{commlib.Min, []float64{3, -1, 7.5, 2}, -1},
		{commlib.Prod, []float64{1.5, -2, 4, 0.25}, -3},
		{commlib.Sum, nil, 0}, // an empty group
		{commlib.Lor, []float64{0, 0, 2, 0}, 1},
		{commlib.Land, []float64{1, 3, 0, 5}, 0},
		{commlib.Sum, []float64{0.1, 0.2, 0.3}, inOrder(0.1, 0.2, 0.3)}, // 0.6000000000000001
	}
	mustRun(t, 2, func(c *commlib.Comm) {
		p := c.NewPool(4)
		for gi, g := range groups {
			p.SetReduceOp(g.op)
			for k, v := range g.values {
				delay := time.Duration(len(g.values)-k) * time.Millisecond
				p.SetTask(func(int) float64 {
					time.Sleep(delay)
					return v
				})
			}
			if got := p.WaitForAll(); math.Float64bits(got) != math.Float64bits(g.want) {
				t.Errorf("rank %d group %d (%v %v): WaitForAll = %v, want %v", c.Rank(), gi, g.op, g.values, got, g.want)
			}
		}
	})
}

// inOrder sums its arguments left to right in float64 (not as an exact
// constant expression).
func inOrder(vs ...float64) float64 {
	acc := vs[0]
	for _, v := range vs[1:] {
		acc += v
	}
	return acc
}

func TestPoolTaskWritesVisibleAfterWaitForAll(t *testing.T) {
	mustRun(t, 1, func(c *commlib.Comm) {
		p := c.NewPool(3)
		out := make([]int, 100)
		for round := range 5 {
			for k := range out {
				p.SetTask(func(int) float64 { out[k] = k * round; return 0 })
			}
			p.WaitForAll()
			for k, v := range out {
				if v != k*round {
					c.Abort(fmt.Errorf("round %d: out[%d] = %d", round, k, v))
				}
			}
		}
	})
}

func TestPoolClosedAtEndOfRank(t *testing.T) {
	// Tasks queued without WaitForAll still run before Run returns.
	var done atomic.Int32
	mustRun(t, 2, func(c *commlib.Comm) {
		p := c.NewPool(2)
		for range 10 {
			p.SetTask(func(int) float64 {
				time.Sleep(time.Millisecond)
				done.Add(1)
				return 0
			})
		}
	})
	if done.Load() != 20 {
		t.Errorf("%d tasks ran, want 20", done.Load())
	}
	// Close is idempotent and may be called by the program.
	mustRun(t, 1, func(c *commlib.Comm) {
		p := c.NewPool(2)
		p.SetTask(func(int) float64 { done.Add(1); return 0 })
		p.Close()
		p.Close()
	})
}

func TestParallel(t *testing.T) {
	for _, n := range []int{1, 2, 7} {
		mustRun(t, 2, func(c *commlib.Comm) {
			hits := make([]int, n)
			c.Parallel(n, func(tid int) {
				if tid < 0 || tid >= n {
					panic("tid out of range")
				}
				hits[tid]++ // each tid writes its own element
			})
			for tid, h := range hits {
				if h != 1 {
					t.Errorf("n=%d: tid %d ran %d times", n, tid, h)
				}
			}
			// Nested use with communication in between.
			c.Barrier()
			var sum atomic.Int64
			c.Parallel(n, func(tid int) { sum.Add(int64(tid)) })
			if sum.Load() != int64(n*(n-1)/2) {
				t.Errorf("sum of tids %d", sum.Load())
			}
		})
	}
}

func TestMutexMutualExclusion(t *testing.T) {
	const threads, iters = 8, 2000
	mustRun(t, 2, func(c *commlib.Comm) {
		m := c.NewMutex()
		counter := 0 // guarded by m only: the race detector checks the exclusion too
		inside := 0  // threads in the critical section
		violations := 0
		c.Parallel(threads, func(tid int) {
			for i := range iters {
				if i%2 == 0 {
					m.Lock()
					inside++
					if inside != 1 {
						violations++
					}
					counter++
					if i%64 == 0 {
						runtime.Gosched()
					}
					inside--
					m.Unlock()
				} else {
					m.Critical(func() { counter++ })
				}
			}
		})
		if counter != threads*iters || violations != 0 {
			t.Errorf("rank %d: counter %d (want %d), %d exclusion violations", c.Rank(), counter, threads*iters, violations)
		}
	})
}

func TestMutexInPool(t *testing.T) {
	mustRun(t, 1, func(c *commlib.Comm) {
		m := c.NewMutex()
		p := c.NewPool(4)
		total := 0
		for k := range 400 {
			p.SetTask(func(int) float64 {
				m.Lock()
				total += k
				m.Unlock()
				return 0
			})
		}
		p.WaitForAll()
		if total != 400*399/2 {
			t.Errorf("total %d", total)
		}
	})
}

func TestTryLock(t *testing.T) {
	mustRun(t, 1, func(c *commlib.Comm) {
		m := c.NewMutex()
		if !m.TryLock() {
			c.Abort(errors.New("TryLock of a free mutex failed"))
		}
		var fromThread atomic.Bool
		c.Parallel(1, func(int) { fromThread.Store(m.TryLock()) })
		if fromThread.Load() {
			t.Error("TryLock of a held mutex succeeded in another thread")
		}
		if m.TryLock() {
			t.Error("TryLock of a held mutex succeeded")
		}
		m.Unlock()
		c.Parallel(1, func(int) {
			fromThread.Store(m.TryLock())
			if fromThread.Load() {
				m.Unlock()
			}
		})
		if !fromThread.Load() {
			t.Error("TryLock of a free mutex failed in a thread")
		}
	})
}

func TestSemaphoreCounting(t *testing.T) {
	const permits, threads = 3, 10
	mustRun(t, 1, func(c *commlib.Comm) {
		s := c.NewSemaphore(permits)
		var inside, most atomic.Int32
		c.Parallel(threads, func(tid int) {
			for range 50 {
				s.Acquire(1)
				n := inside.Add(1)
				for {
					m := most.Load()
					if n <= m || most.CompareAndSwap(m, n) {
						break
					}
				}
				runtime.Gosched()
				inside.Add(-1)
				s.Release(1)
			}
		})
		if m := most.Load(); m > permits || m < 1 {
			t.Errorf("%d threads held the semaphore at once, want 1..%d", m, permits)
		}
		// All permits are back.
		if !s.TryAcquire(permits) {
			t.Error("TryAcquire(all permits) failed after every thread released")
		}
		if s.TryAcquire(1) {
			t.Error("TryAcquire succeeded with no permits left")
		}
		s.Release(permits)
		if s.TryAcquire(permits + 1) {
			t.Error("TryAcquire of more than the permits succeeded")
		}
	})
}

func TestSemaphoreBlocksUntilRelease(t *testing.T) {
	// A zero-permit semaphore as a signal: the consumer must see the
	// producer's write (the race detector checks the ordering), several
	// permits at once.
	mustRun(t, 1, func(c *commlib.Comm) {
		s := c.NewSemaphore(0)
		data := 0
		var consumerSaw atomic.Int32
		c.Parallel(2, func(tid int) {
			if tid == 0 {
				s.Acquire(2)
				consumerSaw.Store(int32(data))
				return
			}
			time.Sleep(5 * time.Millisecond)
			data = 42
			s.Release(1)
			s.Release(1)
		})
		if consumerSaw.Load() != 42 {
			t.Errorf("consumer saw %d", consumerSaw.Load())
		}
	})
}

func TestThreadBarrierRounds(t *testing.T) {
	const threads, rounds = 5, 30
	mustRun(t, 2, func(c *commlib.Comm) {
		b := c.NewBarrier(threads)
		var arrived atomic.Int32
		var bad atomic.Int32
		c.Parallel(threads, func(tid int) {
			for round := range rounds {
				if tid == round%threads {
					time.Sleep(100 * time.Microsecond) // a late thread each round
				}
				arrived.Add(1)
				b.Wait()
				if arrived.Load() != int32(threads*(round+1)) {
					bad.Add(1)
				}
				b.Wait() // nobody starts the next round before all checked
			}
		})
		if bad.Load() != 0 {
			t.Errorf("%d threads passed the barrier before all arrived", bad.Load())
		}
	})
}

func TestAtomicInt(t *testing.T) {
	const threads, iters = 8, 1000
	mustRun(t, 1, func(c *commlib.Comm) {
		var added, cas, swapped commlib.AtomicInt
		olds := make([][]int64, threads)
		c.Parallel(threads, func(tid int) {
			for range iters {
				added.Add(1)
				for {
					v := cas.Load()
					if cas.CompareAndSwap(v, v+2) {
						break
					}
				}
			}
			olds[tid] = append(olds[tid], swapped.Swap(int64(tid+1)))
		})
		if added.Load() != threads*iters {
			t.Errorf("Add: %d", added.Load())
		}
		if cas.Load() != 2*threads*iters {
			t.Errorf("CompareAndSwap: %d", cas.Load())
		}
		// The swaps form a chain: the old values and the final value are
		// 0 and every tid+1, each once.
		var all []int64
		for _, o := range olds {
			all = append(all, o...)
		}
		all = append(all, swapped.Load())
		slices.Sort(all)
		for i, v := range all {
			if v != int64(i) {
				t.Errorf("Swap chain %v", all)
				break
			}
		}
		var a commlib.AtomicInt
		if a.Add(-5) != -5 || a.CompareAndSwap(0, 1) || !a.CompareAndSwap(-5, 9) || a.Swap(3) != 9 || a.Load() != 3 {
			t.Error("AtomicInt sequential semantics")
		}
		a.Store(11)
		if a.Load() != 11 {
			t.Error("AtomicInt Store")
		}
	})
}

func TestAtomicFloat(t *testing.T) {
	const threads, iters = 8, 1000
	mustRun(t, 1, func(c *commlib.Comm) {
		var sum, swapped commlib.AtomicFloat
		var maxv commlib.AtomicFloat
		maxv.Store(math.Inf(-1))
		olds := make([]float64, threads)
		c.Parallel(threads, func(tid int) {
			for i := range iters {
				sum.Add(0.5) // exact in binary: no rounding in any order
				v := float64(tid*iters + i)
				for {
					m := maxv.Load()
					if v <= m || maxv.CompareAndSwap(m, v) {
						break
					}
				}
			}
			olds[tid] = swapped.Swap(float64(tid + 1))
		})
		if sum.Load() != threads*iters*0.5 {
			t.Errorf("Add: %v", sum.Load())
		}
		if maxv.Load() != threads*iters-1 {
			t.Errorf("CompareAndSwap max: %v", maxv.Load())
		}
		all := append(olds, swapped.Load())
		slices.Sort(all)
		for i, v := range all {
			if v != float64(i) {
				t.Errorf("Swap chain %v", all)
				break
			}
		}
		var f commlib.AtomicFloat
		if f.Load() != 0 || f.Add(1.25) != 1.25 || f.CompareAndSwap(1, 2) || !f.CompareAndSwap(1.25, -2) || f.Swap(4) != -2 {
			t.Error("AtomicFloat sequential semantics")
		}
		// CompareAndSwap is bitwise: 0 and -0 differ, NaN equals itself.
		f.Store(math.Copysign(0, -1))
		if f.CompareAndSwap(0, 1) {
			t.Error("CompareAndSwap(0) matched -0")
		}
		f.Store(math.NaN())
		if !f.CompareAndSwap(math.NaN(), 7) || f.Load() != 7 {
			t.Error("CompareAndSwap(NaN) did not match the stored NaN")
		}
	})
}

func TestThreadErrors(t *testing.T) {
	cases := []struct {
		name, op, marker, msg string
		body                  func(c *commlib.Comm)
	}{
		{"second pool", "NewPool", "pool2", "already has a pool of 2 threads", func(c *commlib.Comm) {
			c.NewPool(2)
			c.NewPool(3) // @site:pool2
		}},
		{"empty pool", "NewPool", "pool0", "0 threads", func(c *commlib.Comm) {
			c.NewPool(0) // @site:pool0
		}},
		{"reduce op", "Pool.SetReduceOp", "setop", "operator Band does not apply to float64", func(c *commlib.Comm) {
			p := c.NewPool(1)
			p.SetReduceOp(commlib.Band) // @site:setop
		}},
		{"nil task", "Pool.SetTask", "niltask", "nil task", func(c *commlib.Comm) {
			p := c.NewPool(1)
			p.SetTask(nil) // @site:niltask
		}},
		{"closed pool", "Pool.SetTask", "closed", "closed", func(c *commlib.Comm) {
			p := c.NewPool(1)
			p.Close()
			p.SetTask(func(int) float64 { return 0 }) // @site:closed
		}},
		{"unlock unlocked", "Mutex.Unlock", "unlock", "unlock of a Mutex that is not locked", func(c *commlib.Comm) {
			m := c.NewMutex()
			m.Lock()
			m.Unlock()
			m.Unlock() // @site:unlock
		}},
		{"parallel zero", "Parallel", "par0", "0 threads", func(c *commlib.Comm) {
			c.Parallel(0, func(int) {}) // @site:par0
		}},
		{"semaphore negative", "NewSemaphore", "sem-neg", "-1 permits", func(c *commlib.Comm) {
			c.NewSemaphore(-1) // @site:sem-neg
		}},
		{"acquire zero", "Semaphore.Acquire", "acq0", "0 permits", func(c *commlib.Comm) {
			c.NewSemaphore(1).Acquire(0) // @site:acq0
		}},
		{"barrier zero", "NewBarrier", "bar0", "0 threads", func(c *commlib.Comm) {
			c.NewBarrier(0) // @site:bar0
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := commlib.Run(1, tc.body)
			wantError(t, err, 0, tc.op, site(t, tc.marker), tc.msg)
		})
	}
}

// TestSerialTakesTurns: with Config.Serial one goroutine of the run
// computes at a time — ranks and pool threads alike — values are right,
// and a deadlock is still found.
func TestSerialTakesTurns(t *testing.T) {
	var running, most atomic.Int32
	busy := func() {
		n := running.Add(1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		for t0 := time.Now(); time.Since(t0) < 200*time.Microsecond; {
		}
		running.Add(-1)
	}
	var sums [3]float64
	err := commlib.RunWith(commlib.Config{NP: 3, Serial: true}, func(c *commlib.Comm) {
		pool := c.NewPool(2)
		out, in := []float64{float64(c.Rank())}, []float64{0}
		for range 20 {
			busy()
			c.Sendrecv(out, (c.Rank()+1)%3, 0, in, (c.Rank()+2)%3, 0)
			sums[c.Rank()] += in[0]
			for range 3 {
				pool.SetTask(func(int) float64 { busy(); return 1 })
			}
			if got := pool.WaitForAll(); got != 3 {
				panic(fmt.Sprintf("the pool's tasks summed to %v, want 3", got))
			}
			c.Barrier()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if m := most.Load(); m != 1 {
		t.Errorf("with Serial, %d goroutines computed at once, want 1", m)
	}
	for r, s := range sums {
		if want := float64(20 * ((r + 2) % 3)); s != want {
			t.Errorf("rank %d received %v in all, want %v", r, s, want)
		}
	}
	err = commlib.RunWith(commlib.Config{NP: 2, Serial: true, DeadlockGrace: 50 * time.Millisecond}, func(c *commlib.Comm) {
		c.Recv([]float64{0}, 1-c.Rank(), 0)
	})
	var dl *commlib.DeadlockError
	if !errors.As(err, &dl) {
		t.Errorf("with Serial, a run where both ranks receive first returned %v, want a deadlock", err)
	}
}
