package patterns_test

import (
	"testing"

	"github.com/predict-tools/predict/patterns"
	"github.com/predict-tools/predict/trace"
)

// collective adds one instance: enters and exits by rank.
func (b *builder) collective(op string, id int64, root int, enters, exits []float64, site string) {
	for r := range enters {
		b.coll(r, op, id, root, enters[r], exits[r], site)
	}
}

// Wait at Barrier and Barrier Completion (seed-000 vectors 6.4, 6.5 with
// Scalasca's completion formula), and the same for an n-to-n collective.
func TestBarrierAndNxN(t *testing.T) {
	for _, tc := range []struct{ op, wait, completion string }{
		{"Barrier", "WaitAtBarrier", "BarrierCompletion"},
		{"Allreduce", "WaitAtNxN", "NxNCompletion"},
		{"Alltoall", "WaitAtNxN", "NxNCompletion"},
	} {
		b := newBuilder()
		b.collective(tc.op, 1, trace.NoPeer, []float64{1, 3, 7, 7}, []float64{8, 8, 8, 9}, "c.go:1")
		rep := b.analyze(t, patterns.Options{})
		expect(t, rep.Findings, tc.wait, 0, "c.go:1", ms(6), 1)
		expect(t, rep.Findings, tc.wait, 1, "c.go:1", ms(4), 1)
		expect(t, rep.Findings, tc.wait, 2, "c.go:1", 0, 0)
		expect(t, rep.Findings, tc.wait, 3, "c.go:1", 0, 0)
		// Exit - max(earliest exit, min(latest enter, exit)): 1 on rank 3.
		expect(t, rep.Findings, tc.completion, 3, "c.go:1", ms(1), 1)
		expect(t, rep.Findings, tc.completion, 0, "c.go:1", 0, 0)
	}
}

// Late Broadcast: the non-roots that enter before the root wait for it
// (seed-000 vector 6.6: root 2, enters 1, 3, 5, 6).
func TestLateBroadcast(t *testing.T) {
	for _, op := range []string{"Bcast", "Scatter", "Scatterv"} {
		b := newBuilder()
		b.collective(op, 7, 2, []float64{1, 3, 5, 6}, []float64{8, 8, 8, 8}, "c.go:1")
		rep := b.analyze(t, patterns.Options{})
		expect(t, rep.Findings, "LateBroadcast", 0, "c.go:1", ms(4), 1)
		expect(t, rep.Findings, "LateBroadcast", 1, "c.go:1", ms(2), 1)
		expect(t, rep.Findings, "LateBroadcast", 2, "c.go:1", 0, 0) // the root
		expect(t, rep.Findings, "LateBroadcast", 3, "c.go:1", 0, 0) // after the root
		if f := rep.Findings[0]; f.Culprit == nil || f.Culprit.Rank != 2 {
			t.Errorf("%s culprit %+v, want the root", op, f.Culprit)
		}
	}
	// The root enters first: nobody waits for it.
	b := newBuilder()
	b.collective("Bcast", 7, 2, []float64{1, 3, 0, 6}, []float64{8, 8, 8, 8}, "c.go:1")
	none(t, b.analyze(t, patterns.Options{}).Findings, "LateBroadcast")
}

// Early Reduce: the root waits for the last sender; the non-roots are not
// charged (Scalasca's direction, not seed-000's literal reading).
func TestEarlyReduce(t *testing.T) {
	for _, op := range []string{"Reduce", "Gather", "Gatherv"} {
		b := newBuilder()
		b.collective(op, 3, 0, []float64{1, 2, 4, 9}, []float64{10, 2.1, 4.1, 9.1}, "c.go:1")
		rep := b.analyze(t, patterns.Options{})
		expect(t, rep.Findings, "EarlyReduce", 0, "c.go:1", ms(8), 1)
		for r := 1; r < 4; r++ {
			expect(t, rep.Findings, "EarlyReduce", r, "c.go:1", 0, 0)
		}
		// UPC: the root is alone in [1,2), [2.1,4), [4.1,9), [9.1,10).
		expect(t, rep.Alternative, "WaitInsideCollective", 0, "c.go:1", ms(8.7), 1)
	}
	// The root enters last: it finds every contribution.
	b := newBuilder()
	b.collective("Reduce", 3, 0, []float64{9, 2, 4, 8}, []float64{10, 2.1, 4.1, 8.1}, "c.go:1")
	none(t, b.analyze(t, patterns.Options{}).Findings, "EarlyReduce")
}

// Early Scan: rank n waits for the last of ranks 0..n (seed-000 vector 6.8:
// enters 5, 1, 3, 6; Scalasca's min(latest, exit) - enter, clamped).
func TestEarlyScan(t *testing.T) {
	for _, op := range []string{"Scan", "Exscan"} {
		b := newBuilder()
		b.collective(op, 1, trace.NoPeer, []float64{5, 1, 3, 6}, []float64{10, 10, 10, 10}, "c.go:1")
		rep := b.analyze(t, patterns.Options{})
		expect(t, rep.Findings, "EarlyScan", 0, "c.go:1", 0, 0) // needs only its own
		expect(t, rep.Findings, "EarlyScan", 1, "c.go:1", ms(4), 1)
		expect(t, rep.Findings, "EarlyScan", 2, "c.go:1", ms(2), 1)
		expect(t, rep.Findings, "EarlyScan", 3, "c.go:1", 0, 0) // enters last
	}
	// Enters non-decreasing with rank: nobody waits.
	b := newBuilder()
	b.collective("Scan", 1, trace.NoPeer, []float64{1, 2, 3, 4}, []float64{10, 10, 10, 10}, "c.go:1")
	none(t, b.analyze(t, patterns.Options{}).Findings, "EarlyScan")
}

// Collective instances are grouped by their id, whatever the input order,
// and inconsistent instances are skipped with a warning.
func TestCollectiveInstances(t *testing.T) {
	b := newBuilder()
	b.collective("Barrier", 2, trace.NoPeer, []float64{20, 25}, []float64{26, 26}, "c.go:2")
	b.collective("Barrier", 1, trace.NoPeer, []float64{1, 10}, []float64{11, 11}, "c.go:1")
	b.coll(0, "Barrier", 3, trace.NoPeer, 30, 40, "c.go:3")
	b.coll(1, "Allreduce", 3, trace.NoPeer, 35, 40, "c.go:3")
	rep := b.analyze(t, patterns.Options{})
	expect(t, rep.Findings, "WaitAtBarrier", 0, "c.go:1", ms(9), 1)
	expect(t, rep.Findings, "WaitAtBarrier", 0, "c.go:2", ms(5), 1)
	none(t, rep.Findings, "WaitAtNxN")
	if len(rep.Warnings) != 1 {
		t.Errorf("warnings %q, want one about collective 3", rep.Warnings)
	}
}

// Lock contention: each waiter is charged until the release it waited for,
// and a rank's lost time is the sum over its threads (seed-000 vector 6.1).
func TestLockContention(t *testing.T) {
	for _, pair := range [][2]string{{"Mutex.Lock", "Mutex.Unlock"}, {"Semaphore.Acquire", "Semaphore.Release"}} {
		lock, unlock := pair[0], pair[1]
		b := newBuilder()
		b.thread(0, 1, lock, 7, 0, 0.1, "l.go:1")
		b.thread(0, 2, lock, 7, 4, 11, "l.go:1")
		b.thread(0, 3, lock, 7, 5, 21, "l.go:1")
		b.thread(0, 1, unlock, 7, 10, 10.5, "l.go:2")
		b.thread(0, 2, unlock, 7, 20, 20.5, "l.go:2")
		b.thread(0, 3, unlock, 7, 30, 30.5, "l.go:2")
		b.thread(0, 1, lock, 8, 12, 12.1, "l.go:3") // another lock: free
		b.thread(0, 4, lock, 7, 31, 31.1, "l.go:1") // after the release: no wait
		rep := b.analyze(t, patterns.Options{})
		// Thread 2 waits 10.5 - 4 for thread 1, thread 3 waits 20.5 - 5 for
		// thread 2: 22 ms on rank 0.
		expect(t, rep.Findings, "LockContention", 0, "l.go:1", ms(22), 2)
		for _, f := range rep.Findings {
			if f.Pattern == "LockContention" && f.Thread == 3 && (f.Culprit == nil || f.Culprit.Thread != 2) {
				t.Errorf("thread 3 waited for %+v, want thread 2", f.Culprit)
			}
		}
		none(t, rep.Findings, "WaitAtThreadBarrier")
	}
}

// Thread barriers: the k-th calls of the threads form round k.
func TestThreadBarrier(t *testing.T) {
	b := newBuilder()
	for th, enter := range []float64{1, 3, 7} {
		b.thread(0, th+1, "Barrier.Wait", 9, enter, 7.1, "t.go:1")
		b.thread(0, th+1, "Barrier.Wait", 9, 10, 10.1, "t.go:1")
	}
	rep := b.analyze(t, patterns.Options{})
	expect(t, rep.Findings, "WaitAtThreadBarrier", 0, "t.go:1", ms(10), 2)
}
