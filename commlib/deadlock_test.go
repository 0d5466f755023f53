// This file tests deadlock detection: programs in which no blocked call
// can complete are reported within moments with every blocked call, its
// call site and whom it waits for; programs that only wait for a rank that
// computes are not.

package commlib_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/predict-tools/predict/commlib"
)

// detectWithin is how fast a deadlock must be reported (the default grace
// period is 200 ms).
const detectWithin = 2 * time.Second

// blocked describes one expected entry of DeadlockError.Blocked.
type blocked struct {
	rank, thread int // thread -1: any pool thread (1+tid)
	op, marker   string
	waitsFor     string // part of WaitsFor; "" to skip the check
}

// wantDeadlock runs body and checks that it fails with a *DeadlockError
// within detectWithin listing exactly the expected blocked calls (in rank,
// thread order) and the finished ranks.
func wantDeadlock(t *testing.T, cfg commlib.Config, body func(c *commlib.Comm), want []blocked, finished []int) *commlib.DeadlockError {
	t.Helper()
	err, took := timedRun(cfg, body)
	if took > detectWithin {
		t.Errorf("the deadlock was reported after %v, want within %v", took, detectWithin)
	}
	var d *commlib.DeadlockError
	if !errors.As(err, &d) {
		t.Fatalf("got %v (%T), want a *commlib.DeadlockError", err, err)
	}
	text := d.Error()
	if len(d.Blocked) != len(want) {
		t.Fatalf("%d blocked calls, want %d:\n%s", len(d.Blocked), len(want), text)
	}
	for i, w := range want {
		b := d.Blocked[i]
		wantSite := site(t, w.marker)
		if b.Rank != w.rank || b.Op != w.op || b.Site != wantSite {
			t.Errorf("blocked call %d: rank %d %s at %s, want rank %d %s at %s", i, b.Rank, b.Op, b.Site, w.rank, w.op, wantSite)
		}
		if (w.thread >= 0 && b.Thread != w.thread) || (w.thread < 0 && b.Thread < 1) {
			t.Errorf("blocked call %d (%s): thread %d, want %d (-1: a pool thread)", i, b.Op, b.Thread, w.thread)
		}
		if !strings.Contains(b.WaitsFor, w.waitsFor) {
			t.Errorf("blocked call %d (%s): waits for %q, want it to contain %q", i, b.Op, b.WaitsFor, w.waitsFor)
		}
		for _, part := range []string{w.op, shortName(wantSite)} {
			if !strings.Contains(text, part) {
				t.Errorf("report does not mention %q:\n%s", part, text)
			}
		}
	}
	if !equalInts(d.Finished, finished) {
		t.Errorf("finished ranks %v, want %v", d.Finished, finished)
	}
	return d
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestDeadlockReceiveFromEachOther(t *testing.T) {
	d := wantDeadlock(t, commlib.Config{NP: 2}, func(c *commlib.Comm) {
		buf := make([]int, 1)
		if c.Rank() == 0 {
			c.Recv(buf, 1, 5) // @site:dl-recv0
		} else {
			c.Recv(buf, 0, 6) // @site:dl-recv1
		}
		c.Send(buf, 1-c.Rank(), 0)
	}, []blocked{
		{0, 0, "Recv", "dl-recv0", "rank 1 (blocked in Recv)"},
		{1, 0, "Recv", "dl-recv1", "rank 0 (blocked in Recv)"},
	}, nil)
	if d != nil && (!strings.Contains(d.Blocked[0].Detail, "peer=1 tag=5 comm=world") ||
		!strings.Contains(d.Blocked[1].Detail, "peer=0 tag=6")) {
		t.Errorf("details %q, %q", d.Blocked[0].Detail, d.Blocked[1].Detail)
	}
}

func TestDeadlockBarrierMissedByFinishedRank(t *testing.T) {
	d := wantDeadlock(t, commlib.Config{NP: 3}, func(c *commlib.Comm) {
		if c.Rank() == 2 {
			return
		}
		c.Barrier() // @site:dl-barrier
	}, []blocked{
		{0, 0, "Barrier", "dl-barrier", "rank 2 (finished)"},
		{1, 0, "Barrier", "dl-barrier", "ranks that have not entered it: rank 2 (finished)"},
	}, []int{2})
	if d != nil && !strings.Contains(d.Error(), "finished: ranks 2") {
		t.Errorf("report does not list the finished rank:\n%s", d.Error())
	}
}

func TestDeadlockSsendToSelf(t *testing.T) {
	wantDeadlock(t, commlib.Config{NP: 1}, func(c *commlib.Comm) {
		c.Ssend([]int{1}, 0, 0) // @site:dl-ssend
		c.Recv(make([]int, 1), 0, 0)
	}, []blocked{
		{0, 0, "Ssend", "dl-ssend", "rank 0 (blocked in Ssend)"},
	}, nil)
}

func TestDeadlockRendezvousSendPair(t *testing.T) {
	// Both ranks send first; above the eager limit neither send can
	// complete before the other rank receives.
	wantDeadlock(t, commlib.Config{NP: 2, EagerLimit: 64}, func(c *commlib.Comm) {
		big := make([]float64, 100)
		c.Send(big, 1-c.Rank(), 0) // @site:dl-send
		c.Recv(big, 1-c.Rank(), 0)
	}, []blocked{
		{0, 0, "Send", "dl-send", "rank 1 (blocked in Send)"},
		{1, 0, "Send", "dl-send", "rank 0 (blocked in Send)"},
	}, nil)
	// The same pair below the limit is fine.
	mustRunWith(t, commlib.Config{NP: 2, EagerLimit: 64}, func(c *commlib.Comm) {
		small := make([]float64, 8)
		c.Send(small, 1-c.Rank(), 0)
		c.Recv(small, 1-c.Rank(), 0)
	})
}

func TestDeadlockPoolThreadOnMutex(t *testing.T) {
	// One task takes the mutex and finishes without unlocking; the other
	// task blocks on it forever, and the main thread waits for both.
	err, took := timedRun(commlib.Config{NP: 1}, func(c *commlib.Comm) {
		m := c.NewMutex()
		p := c.NewPool(2)
		task := func(int) float64 {
			m.Lock() // @site:dl-lock
			return 0
		}
		p.SetTask(task)
		p.SetTask(task)
		p.WaitForAll() // @site:dl-waitall
	})
	if took > detectWithin {
		t.Errorf("the deadlock was reported after %v", took)
	}
	var d *commlib.DeadlockError
	if !errors.As(err, &d) {
		t.Fatalf("got %v, want a *commlib.DeadlockError", err)
	}
	var main, lock *commlib.BlockedCall
	for i := range d.Blocked {
		switch b := &d.Blocked[i]; b.Op {
		case "Pool.WaitForAll":
			main = b
		case "Mutex.Lock":
			lock = b
		}
	}
	if len(d.Blocked) != 2 || main == nil || lock == nil {
		t.Fatalf("blocked calls %+v, want Pool.WaitForAll and Mutex.Lock:\n%v", d.Blocked, d)
	}
	if main.Rank != 0 || main.Thread != 0 || main.Site != site(t, "dl-waitall") {
		t.Errorf("WaitForAll entry %+v, want rank 0 thread 0 at %s", *main, site(t, "dl-waitall"))
	}
	if lock.Rank != 0 || lock.Site != site(t, "dl-lock") {
		t.Errorf("Mutex.Lock entry %+v, want rank 0 at %s", *lock, site(t, "dl-lock"))
	}
	for _, part := range []string{"Pool.WaitForAll", "Mutex.Lock", shortName(site(t, "dl-lock")), shortName(site(t, "dl-waitall"))} {
		if !strings.Contains(d.Error(), part) {
			t.Errorf("report does not mention %q:\n%s", part, d.Error())
		}
	}
	if lock.Thread < 1 || lock.Thread > 2 {
		t.Errorf("the Mutex.Lock blocked in a pool thread is reported as Thread %d, want 1+tid (1 or 2):\n%v", lock.Thread, d)
	}
}

func TestDeadlockAnySourceAfterOthersFinished(t *testing.T) {
	wantDeadlock(t, commlib.Config{NP: 3}, func(c *commlib.Comm) {
		if c.Rank() == 1 {
			r := c.Irecv(make([]int, 1), commlib.AnySource, commlib.AnyTag)
			c.Wait(r) // @site:dl-anysource
		}
	}, []blocked{
		{1, 0, "Wait", "dl-anysource", "any rank of world"},
	}, []int{0, 2})
}

func TestDeadlockCollectiveAgainstRecv(t *testing.T) {
	// Rank 0 waits in Bcast for root 1, which waits in Recv for rank 0.
	wantDeadlock(t, commlib.Config{NP: 2}, func(c *commlib.Comm) {
		buf := make([]int, 1)
		if c.Rank() == 0 {
			c.Bcast(buf, 1) // @site:dl-bcast
			c.Send(buf, 1, 0)
		} else {
			c.Recv(buf, 0, 0) // @site:dl-bcast-recv
			c.Bcast(buf, 1)
		}
	}, []blocked{
		{0, 0, "Bcast", "dl-bcast", "rank 1 (blocked in Recv)"},
		{1, 0, "Recv", "dl-bcast-recv", "rank 0 (blocked in Bcast)"},
	}, nil)
}

func TestDeadlockInSubcommunicator(t *testing.T) {
	// Two groups; group 1's ranks receive from each other while group 0
	// finishes. The report names the communicator.
	d := wantDeadlock(t, commlib.Config{NP: 4}, func(c *commlib.Comm) {
		g := c.Split(c.Rank()/2, 0)
		if c.Rank() < 2 {
			return
		}
		g.Recv(make([]int, 1), 1-g.Rank(), 0) // @site:dl-split
	}, []blocked{
		{2, 0, "Recv", "dl-split", "rank 3 (blocked in Recv)"},
		{3, 0, "Recv", "dl-split", "rank 2 (blocked in Recv)"},
	}, []int{0, 1})
	if d != nil && !strings.Contains(d.Blocked[0].Detail, "Split(color=1)") {
		t.Errorf("detail %q does not name the communicator", d.Blocked[0].Detail)
	}
}

func TestNoDeadlockWhileARankComputes(t *testing.T) {
	// Every other rank blocks (in a collective, a receive, a Wait) for
	// 300 ms, longer than the deadlock grace period, behind rank 0 which
	// computes: not a deadlock.
	busy := func(d time.Duration) int {
		n := 0
		for start := time.Now(); time.Since(start) < d; n++ {
		}
		return n
	}
	mustRun(t, 4, func(c *commlib.Comm) {
		buf := make([]int, 1)
		switch c.Rank() {
		case 0:
			buf[0] = busy(300 * time.Millisecond)
			c.Send(buf, 1, 0)
			c.Send(buf, 2, 0)
		case 1:
			c.Recv(buf, 0, 0)
		case 2:
			c.Wait(c.Irecv(buf, commlib.AnySource, commlib.AnyTag))
		}
		c.Bcast(buf, 0)
	})
	// A pool task that computes while the main thread waits in WaitForAll
	// and the other rank waits in Recv.
	mustRun(t, 2, func(c *commlib.Comm) {
		buf := make([]int, 1)
		if c.Rank() == 0 {
			p := c.NewPool(1)
			p.SetTask(func(int) float64 { return float64(busy(300 * time.Millisecond)) })
			p.WaitForAll()
			c.Send(buf, 1, 0)
		} else {
			c.Recv(buf, 0, 0)
		}
	})
}

func TestDeadlockGraceIsConfigurable(t *testing.T) {
	// Config.DeadlockGrace is how long everything must stay blocked before
	// the report: a short one reports sooner, a long one is honoured.
	start := time.Now()
	err := commlib.RunWith(commlib.Config{NP: 2, DeadlockGrace: 20 * time.Millisecond}, func(c *commlib.Comm) {
		c.Recv(make([]int, 1), 1-c.Rank(), 0)
	})
	var d *commlib.DeadlockError
	if !errors.As(err, &d) {
		t.Fatalf("got %v, want a deadlock", err)
	}
	short := time.Since(start)
	start = time.Now()
	err = commlib.RunWith(commlib.Config{NP: 2, DeadlockGrace: 600 * time.Millisecond}, func(c *commlib.Comm) {
		c.Recv(make([]int, 1), 1-c.Rank(), 0)
	})
	if !errors.As(err, &d) {
		t.Fatalf("got %v, want a deadlock", err)
	}
	long := time.Since(start)
	if long < 600*time.Millisecond || long > detectWithin {
		t.Errorf("with a 600 ms grace the deadlock was reported after %v", long)
	}
	if short >= long {
		t.Errorf("a 20 ms grace reported after %v, a 600 ms grace after %v", short, long)
	}
}

func TestDeadlockParallelThreadsAtBarrier(t *testing.T) {
	// Two Parallel threads wait at a thread barrier for three; the main
	// thread waits for them in Parallel; rank 1 waits for rank 0.
	err, took := timedRun(commlib.Config{NP: 2}, func(c *commlib.Comm) {
		if c.Rank() == 1 {
			c.Recv(make([]int, 1), 0, 0) // @site:dl-par-recv
			return
		}
		b := c.NewBarrier(3)
		c.Parallel(2, func(int) { // @site:dl-parallel
			b.Wait() // @site:dl-par-wait
		})
		c.Send([]int{1}, 1, 0)
	})
	if took > detectWithin {
		t.Errorf("the deadlock was reported after %v", took)
	}
	var d *commlib.DeadlockError
	if !errors.As(err, &d) {
		t.Fatalf("got %v, want a *commlib.DeadlockError", err)
	}
	ops := map[string]int{}
	for _, b := range d.Blocked {
		ops[b.Op]++
		want := map[string]string{"Barrier.Wait": "dl-par-wait", "Parallel": "dl-parallel", "Recv": "dl-par-recv"}[b.Op]
		if want == "" || b.Site != site(t, want) {
			t.Errorf("blocked call %+v", b)
		}
	}
	if ops["Barrier.Wait"] != 2 || ops["Parallel"] != 1 || ops["Recv"] != 1 {
		t.Fatalf("blocked calls %v:\n%v", ops, d)
	}
	var threads []int
	var recvWaitsFor string
	for _, b := range d.Blocked {
		switch b.Op {
		case "Barrier.Wait":
			threads = append(threads, b.Thread)
		case "Recv":
			recvWaitsFor = b.WaitsFor
		}
	}
	if !(threads[0] >= 1 && threads[1] >= 1 && threads[0] != threads[1]) {
		t.Errorf("threads blocked in Barrier.Wait are reported as Thread %v, want two distinct 1+tid "+
			"(rank 1's Recv is said to wait for %q):\n%v", threads, recvWaitsFor, d)
	}
	// Rank 1 waits for rank 0, whose main thread is in Parallel.
	if recvWaitsFor != "rank 0 (blocked in Parallel)" {
		t.Errorf("Recv waits for %q, want %q", recvWaitsFor, "rank 0 (blocked in Parallel)")
	}
}

// TestSpinWaitModes: whether blocked calls park at once, poll for the
// default time or poll long, messages arrive, values are right, and a
// deadlock is still found (a polling call counts as blocked).
func TestSpinWaitModes(t *testing.T) {
	for _, spin := range []time.Duration{-1, 0, 20 * time.Millisecond} {
		var sums [3]float64
		err := commlib.RunWith(commlib.Config{NP: 3, SpinWait: spin}, func(c *commlib.Comm) {
			right, left := (c.Rank()+1)%3, (c.Rank()+2)%3
			out, in := []float64{float64(c.Rank())}, []float64{0}
			for i := range 300 {
				if i%50 == 0 && c.Rank() == 1 {
					time.Sleep(time.Millisecond) // others wait past the default poll
				}
				c.Sendrecv(out, right, 0, in, left, 0)
				sums[c.Rank()] += in[0]
			}
		})
		if err != nil {
			t.Fatalf("SpinWait %v: %v", spin, err)
		}
		for r, s := range sums {
			if want := float64(300 * ((r + 2) % 3)); s != want {
				t.Errorf("SpinWait %v: rank %d received %v in all, want %v", spin, r, s, want)
			}
		}
		start := time.Now()
		err = commlib.RunWith(commlib.Config{NP: 2, SpinWait: spin, DeadlockGrace: 50 * time.Millisecond}, func(c *commlib.Comm) {
			c.Recv([]float64{0}, 1-c.Rank(), 0)
		})
		var dl *commlib.DeadlockError
		if !errors.As(err, &dl) {
			t.Errorf("SpinWait %v: a run where both ranks receive first returned %v, want a deadlock", spin, err)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("SpinWait %v: the deadlock took %v to find", spin, took)
		}
	}
}
