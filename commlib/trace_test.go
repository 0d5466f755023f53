// This file tests tracing: the trace file written with Config.TraceFile
// (header, events, call sites, message, request and collective ids,
// threads) and the events Config.Hook receives.

package commlib_test

import (
	"cmp"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/trace"
)

// tracedProgram exercises most kinds of events on 3 ranks. Each call whose
// event the test checks carries a site marker.
func tracedProgram(tidRuns *[2]atomic.Int32) func(c *commlib.Comm) {
	return func(c *commlib.Comm) {
		me := c.Rank()
		small := []int{1, 2}
		big := make([]float64, 20) // 160 bytes > the eager limit of 64
		switch me {
		case 0:
			c.Send(small, 1, 7) // @site:tr-send
		case 1:
			c.Recv(make([]int, 2), 0, 7) // @site:tr-recv
		}

		// Irecv + Wait on rank 1, a rendezvous Isend + Wait on rank 2. The
		// Isend starts after the Irecv is posted (rank 1 says so with a
		// message on tag 12): see TestTraceOfNonblockingRendezvousSend for
		// the race otherwise.
		switch me {
		case 1:
			r := c.Irecv(make([]float64, 20), 2, 8) // @site:tr-irecv
			c.Send([]int{}, 2, 12)
			c.Wait(r) // @site:tr-wait
		case 2:
			c.Recv([]int{}, 1, 12)
			r := c.Isend(big, 1, 8) // @site:tr-isend
			c.Wait(r)
		}

		// Waitall on rank 0 of two receives.
		if me == 0 {
			r1 := c.Irecv(make([]int, 1), 1, 9)   // @site:tr-irecv1
			r2 := c.Irecv(make([]int, 1), 2, 9)   // @site:tr-irecv2
			c.Waitall([]*commlib.Request{r1, r2}) // @site:tr-waitall
		} else {
			c.Send([]int{me}, 0, 9)
		}

		c.Bcast(make([]int, 3), 1)                          // @site:tr-bcast
		c.Allreduce([]int{me}, make([]int, 1), commlib.Sum) // @site:tr-allreduce

		// On a communicator in reverse order, root 0 is world rank 2.
		rev := c.Split(0, -me)
		rev.Bcast(make([]byte, 4), 0) // @site:tr-revbcast

		right, left := (me+1)%3, (me+2)%3
		c.Sendrecv([]int{me}, right, 11, make([]int, 1), left, 11) // @site:tr-sendrecv

		// Thread primitives from pool threads on rank 0.
		if me == 0 {
			m := c.NewMutex()
			p := c.NewPool(2) // @site:tr-newpool
			for range 10 {
				p.SetTask(func(tid int) float64 {
					tidRuns[tid].Add(1)
					m.Lock() // @site:tr-lock
					m.Unlock()
					return 0
				})
			}
			p.WaitForAll() // @site:tr-waitforall
		}
		c.Barrier()
	}
}

func TestTraceFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "run.trace")
	var rec recorder
	var tidRuns [2]atomic.Int32
	cfg := commlib.Config{NP: 3, EagerLimit: 64, TraceFile: file, Hook: rec.hook,
		Program: "tracedProgram", Args: []string{"-x", "1"}}
	mustRunWith(t, cfg, tracedProgram(&tidRuns))

	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, events, err := trace.ReadJSONL(f, file)
	if err != nil {
		t.Fatalf("ReadJSONL: %v", err)
	}

	// The header.
	if h.Format != trace.FormatName || h.Version != trace.FormatVersion || h.Source != "commlib" || h.NP != 3 ||
		h.Clock != "monotonic" || h.EagerLimit != 64 || h.Program != "tracedProgram" || !slices.Equal(h.Args, []string{"-x", "1"}) {
		t.Errorf("header %+v", h)
	}
	if h.Start == "" {
		t.Error("header has no start time")
	}

	// Every event: rank, op, kind, times; call events carry the test's site.
	me := thisFile()
	seqs := map[[2]int64]bool{}
	for _, ev := range events {
		if ev.Rank < 0 || ev.Rank >= 3 || ev.Op == "" || ev.Enter > ev.Exit || ev.Enter < 0 {
			t.Errorf("bad event %+v", ev)
		}
		if !strings.HasPrefix(ev.Site, me+":") {
			t.Errorf("%s %s event of rank %d has site %q, want a line of %s", ev.Kind, ev.Op, ev.Rank, ev.Site, me)
		}
		switch ev.Kind {
		case trace.KindOp:
		case trace.KindComplete:
			if ev.Enter != ev.Exit || ev.Request == 0 {
				t.Errorf("completion event %+v", ev)
			}
		default:
			t.Errorf("event kind %q", ev.Kind)
		}
		key := [2]int64{int64(ev.Rank), ev.Seq}
		if seqs[key] {
			t.Errorf("rank %d: sequence number %d used twice", ev.Rank, ev.Seq)
		}
		seqs[key] = true
	}
	// The file's order: enter time, then rank, thread, sequence.
	if !slices.IsSortedFunc(events, func(a, b trace.Event) int {
		return cmp.Or(cmp.Compare(a.Enter, b.Enter), cmp.Compare(a.Rank, b.Rank), cmp.Compare(a.Thread, b.Thread), cmp.Compare(a.Seq, b.Seq))
	}) {
		t.Error("events are not sorted by enter time, rank, thread and sequence")
	}

	// one returns the only call event of rank with op, and checks its site.
	one := func(rank int, op, marker string) trace.Event {
		t.Helper()
		var found []trace.Event
		for _, ev := range events {
			if ev.Rank == rank && ev.Op == op && ev.Kind == trace.KindOp && (marker == "" || ev.Site == site(t, marker)) {
				found = append(found, ev)
			}
		}
		if len(found) != 1 {
			t.Fatalf("%d %s events of rank %d at %s, want 1", len(found), op, rank, marker)
		}
		return found[0]
	}

	// A Send and its Recv share the message id.
	send, recv := one(0, "Send", "tr-send"), one(1, "Recv", "tr-recv")
	if send.Message == 0 || send.Message != recv.Message {
		t.Errorf("Send message %d, Recv message %d: want the same id", send.Message, recv.Message)
	}
	if send.Peer != 1 || recv.Peer != 0 || send.Tag != 7 || recv.Tag != 7 || send.Bytes != 16 || recv.Bytes != 16 ||
		send.Protocol != "eager" || send.Root != trace.NoPeer || send.Comm != 0 {
		t.Errorf("Send %+v\nRecv %+v", send, recv)
	}

	// Irecv + Wait: the completion carries the Isend's message id.
	isend, irecv, wait := one(2, "Isend", "tr-isend"), one(1, "Irecv", "tr-irecv"), one(1, "Wait", "tr-wait")
	if irecv.Request == 0 || wait.Request != irecv.Request || isend.Protocol != "rendezvous" || isend.Bytes != 160 {
		t.Errorf("Isend %+v\nIrecv %+v\nWait %+v", isend, irecv, wait)
	}
	var completion *trace.Event
	for i, ev := range events {
		if ev.Kind == trace.KindComplete && ev.Rank == 1 && ev.Request == irecv.Request {
			if completion != nil {
				t.Errorf("two completions of request %d", irecv.Request)
			}
			completion = &events[i]
		}
	}
	if completion == nil {
		t.Fatalf("no completion event for the Irecv's request %d", irecv.Request)
	}
	if completion.Op != "Irecv" || completion.Message != isend.Message || isend.Message == 0 ||
		completion.Peer != 2 || completion.Tag != 8 || completion.Bytes != 160 {
		t.Errorf("completion %+v\nIsend %+v", *completion, isend)
	}

	// The completion is observed by the Wait: its exit time, site and thread.
	if completion.Enter != wait.Exit || completion.Exit != wait.Exit || completion.Site != wait.Site ||
		completion.Thread != wait.Thread || completion.Seq <= wait.Seq {
		t.Errorf("completion %+v\nobserved by Wait %+v", *completion, wait)
	}

	// Waitall lists the requests it waited for, in order.
	r1, r2 := one(0, "Irecv", "tr-irecv1"), one(0, "Irecv", "tr-irecv2")
	waitall := one(0, "Waitall", "tr-waitall")
	if !slices.Equal(waitall.Requests, []int64{r1.Request, r2.Request}) || r1.Request == r2.Request {
		t.Errorf("Waitall requests %v, want [%d %d]", waitall.Requests, r1.Request, r2.Request)
	}
	completed := 0
	for _, ev := range events {
		if ev.Kind == trace.KindComplete && ev.Rank == 0 && (ev.Request == r1.Request || ev.Request == r2.Request) {
			completed++
			if ev.Site != waitall.Site || ev.Exit != waitall.Exit || ev.Op != "Irecv" || ev.Peer != map[int64]int{r1.Request: 1, r2.Request: 2}[ev.Request] {
				t.Errorf("completion %+v observed by Waitall %+v", ev, waitall)
			}
		}
	}
	if completed != 2 {
		t.Errorf("%d completion events for the Waitall's requests, want 2", completed)
	}

	// Every rank's event of one collective shares its id and root.
	collective := func(op, marker string, root int) int64 {
		t.Helper()
		var id int64
		for r := range 3 {
			ev := one(r, op, marker)
			if ev.Collective == 0 || (r > 0 && ev.Collective != id) {
				t.Errorf("%s of rank %d: collective id %d, rank 0's is %d", op, r, ev.Collective, id)
			}
			id = ev.Collective
			if ev.Root != root || ev.Peer != trace.NoPeer {
				t.Errorf("%s of rank %d: root %d peer %d, want root %d", op, r, ev.Root, ev.Peer, root)
			}
		}
		return id
	}
	ids := []int64{
		collective("Bcast", "tr-bcast", 1),
		collective("Allreduce", "tr-allreduce", trace.NoPeer),
		collective("Bcast", "tr-revbcast", 2), // world rank of the split's root
		collective("Barrier", "", trace.NoPeer),
	}
	slices.Sort(ids)
	if len(slices.Compact(slices.Clone(ids))) != len(ids) {
		t.Errorf("collective ids %v are not distinct", ids)
	}
	if rb := one(0, "Bcast", "tr-revbcast"); rb.Comm == 0 {
		t.Error("the split communicator's Bcast has the world's id")
	}

	// Sendrecv: one event per direction, each tied to its message.
	for r := range 3 {
		var out, in *trace.Event
		for i, ev := range events {
			if ev.Rank == r && ev.Op == "Sendrecv" {
				if ev.Peer == (r+1)%3 {
					out = &events[i]
				} else if ev.Peer == (r+2)%3 {
					in = &events[i]
				}
			}
		}
		if out == nil || in == nil {
			t.Fatalf("rank %d: Sendrecv events missing", r)
		}
		if out.Site != site(t, "tr-sendrecv") || in.Site != out.Site || in.Enter != out.Enter || out.Protocol != "eager" {
			t.Errorf("rank %d Sendrecv events %+v %+v", r, *out, *in)
		}
		// The message rank r received is the one its left neighbour sent.
		left := (r + 2) % 3
		for _, ev := range events {
			if ev.Rank == left && ev.Op == "Sendrecv" && ev.Peer == r && ev.Message != in.Message {
				t.Errorf("rank %d received message %d, rank %d sent %d", r, in.Message, left, ev.Message)
			}
		}
	}

	// Thread primitives of pool threads carry Thread = 1+tid; the main
	// thread's pool calls carry 0.
	locks := map[int]int{}
	var mutexID int64
	for _, ev := range events {
		if ev.Op == "Mutex.Lock" {
			if ev.Rank != 0 || ev.Site != site(t, "tr-lock") {
				t.Errorf("Mutex.Lock event %+v", ev)
			}
			locks[ev.Thread]++
			if mutexID != 0 && ev.Object != mutexID {
				t.Errorf("Mutex.Lock object %d, want %d", ev.Object, mutexID)
			}
			mutexID = ev.Object
		}
	}
	for tid := range 2 {
		if locks[1+tid] != int(tidRuns[tid].Load()) {
			t.Errorf("%d Mutex.Lock events on thread %d, thread tid %d ran %d tasks", locks[1+tid], 1+tid, tid, tidRuns[tid].Load())
		}
	}
	if locks[0] != 0 || mutexID == 0 {
		t.Errorf("Mutex.Lock events by thread: %v, object %d", locks, mutexID)
	}
	np, wfa := one(0, "NewPool", "tr-newpool"), one(0, "Pool.WaitForAll", "tr-waitforall")
	if np.Thread != 0 || wfa.Thread != 0 || np.Object == 0 || wfa.Object != np.Object || np.Object == mutexID {
		t.Errorf("NewPool %+v\nWaitForAll %+v", np, wfa)
	}
	if n := len(rec.find(0, "Pool.SetTask")); n != 10 {
		t.Errorf("%d SetTask events, want 10", n)
	}

	// The hook received exactly the events of the file.
	key := func(a, b trace.Event) int { return cmp.Or(cmp.Compare(a.Rank, b.Rank), cmp.Compare(a.Seq, b.Seq)) }
	hooked := rec.all()
	slices.SortFunc(hooked, key)
	fromFile := slices.Clone(events)
	slices.SortFunc(fromFile, key)
	if !reflect.DeepEqual(hooked, fromFile) {
		t.Errorf("the hook received %d events, the file has %d, and they differ", len(hooked), len(fromFile))
	}
}

func TestTraceHookOnly(t *testing.T) {
	// With a hook and no file, events are delivered as they happen, from
	// the rank's own goroutine: a rank sees its Send before it returns from
	// the following Barrier.
	var rec recorder
	mustRunWith(t, commlib.Config{NP: 2, Hook: rec.hook}, func(c *commlib.Comm) {
		c.Send([]int{1}, 1-c.Rank(), 0)
		if len(rec.find(c.Rank(), "Send")) != 1 {
			t.Errorf("rank %d: the Send event was not delivered before Send returned", c.Rank())
		}
		c.Recv(make([]int, 1), 1-c.Rank(), 0)
	})
	if n := len(rec.all()); n != 4 {
		t.Errorf("%d events, want 4", n)
	}
}

func TestTraceFileError(t *testing.T) {
	file := filepath.Join(t.TempDir(), "no", "such", "dir", "run.trace")
	err := commlib.RunWith(commlib.Config{NP: 1, TraceFile: file}, func(c *commlib.Comm) { c.Barrier() })
	if err == nil || !strings.Contains(err.Error(), "trace") {
		t.Errorf("RunWith with an unwritable trace file: %v", err)
	}
}

func TestTraceOfFailedRun(t *testing.T) {
	// The trace is written when the run fails too, with the events up to
	// the failure.
	file := filepath.Join(t.TempDir(), "fail.trace")
	err := commlib.RunWith(commlib.Config{NP: 2, TraceFile: file}, func(c *commlib.Comm) {
		c.Barrier()
		c.Recv(make([]int, 1), 1-c.Rank(), 0)
	})
	if err == nil {
		t.Fatal("the deadlocked run succeeded")
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, events, err := trace.ReadJSONL(f, file)
	if err != nil {
		t.Fatal(err)
	}
	if h.NP != 2 || len(events) != 2 || events[0].Op != "Barrier" || events[1].Op != "Barrier" {
		t.Errorf("header %+v, events %+v", h, events)
	}
}

func TestTraceWaitanyTestAndParallel(t *testing.T) {
	var rec recorder
	var parallelLocks atomic.Int32
	mustRunWith(t, commlib.Config{NP: 3, Hook: rec.hook}, func(c *commlib.Comm) {
		if c.Rank() != 0 {
			c.Recv(make([]int, 1), 0, 0) // wait for rank 0's Test below
			c.Send([]int{c.Rank()}, 0, 1)
			return
		}
		reqs := []*commlib.Request{
			c.Irecv(make([]int, 1), 1, 1), // @site:tw-irecv1
			c.Irecv(make([]int, 1), 2, 1), // @site:tw-irecv2
		}
		if done, _ := c.Test(reqs[0]); done { // @site:tw-test-pending
			t.Error("Test of a pending request = true")
		}
		c.Send([]int{0}, 1, 0)
		c.Send([]int{0}, 2, 0)
		for range 2 {
			c.Waitany(reqs) // @site:tw-waitany
		}
		// A completed send observed by Test.
		r := c.Isend([]int{5}, 0, 3) // @site:tw-isend
		for done := false; !done; {
			done, _ = c.Test(r) // @site:tw-test
		}
		c.Recv(make([]int, 1), 0, 3)

		m := c.NewMutex()
		c.Parallel(3, func(tid int) {
			m.Lock() // @site:tw-plock
			parallelLocks.Add(1)
			m.Unlock()
		})
	})
	evs := rec.all()
	ids := map[string]int64{}
	for _, ev := range evs {
		if ev.Kind == trace.KindOp && ev.Op == "Irecv" {
			ids[ev.Site] = ev.Request
		}
	}
	id1, id2 := ids[site(t, "tw-irecv1")], ids[site(t, "tw-irecv2")]
	if id1 == 0 || id2 == 0 {
		t.Fatalf("Irecv request ids %v", ids)
	}

	var waitanys, pendingTests, parallel int
	var firstDone int64
	completions := map[int64]trace.Event{}
	for _, ev := range evs {
		switch {
		case ev.Kind == trace.KindComplete:
			if _, dup := completions[ev.Request]; dup {
				t.Errorf("request %d completed twice", ev.Request)
			}
			completions[ev.Request] = ev
		case ev.Op == "Waitany":
			waitanys++
			if ev.Site != site(t, "tw-waitany") || (ev.Request != id1 && ev.Request != id2) {
				t.Errorf("Waitany event %+v", ev)
			}
			// The first Waitany waits on both requests, the second on the one left.
			want := []int64{id1, id2}
			if waitanys == 2 {
				want = []int64{id1 + id2 - firstDone}
			}
			firstDone = ev.Request
			if !slices.Equal(ev.Requests, want) {
				t.Errorf("Waitany %d lists requests %v, want %v", waitanys, ev.Requests, want)
			}
		case ev.Op == "Test" && ev.Site == site(t, "tw-test-pending"):
			pendingTests++
			if ev.Request != id1 {
				t.Errorf("pending Test event %+v", ev)
			}
		case ev.Op == "Mutex.Lock":
			parallel++
			if ev.Site != site(t, "tw-plock") || ev.Thread < 1 || ev.Thread > 3 {
				t.Errorf("Mutex.Lock in a Parallel thread: %+v", ev)
			}
		}
	}
	if waitanys != 2 || pendingTests != 1 || parallel != 3 || parallelLocks.Load() != 3 {
		t.Errorf("%d Waitany, %d pending Test, %d Mutex.Lock events", waitanys, pendingTests, parallel)
	}
	for _, id := range []int64{id1, id2} {
		if ev, ok := completions[id]; !ok || ev.Site != site(t, "tw-waitany") || ev.Op != "Irecv" {
			t.Errorf("completion of request %d: %+v", id, ev)
		}
	}
	// The Isend's completion is observed by the Test that returned true.
	var isend trace.Event
	for _, ev := range evs {
		if ev.Op == "Isend" && ev.Kind == trace.KindOp {
			isend = ev
		}
	}
	if ev, ok := completions[isend.Request]; !ok || ev.Site != site(t, "tw-test") || ev.Op != "Isend" ||
		ev.Protocol != "eager" || ev.Message != isend.Message || ev.Peer != 0 || ev.Tag != 3 || ev.Bytes != 8 {
		t.Errorf("completion of the Isend %+v: %+v", isend, ev)
	}
}

func TestTraceOfNonblockingRendezvousSend(t *testing.T) {
	// Issend and rendezvous Isend while the receiver posts its receives
	// concurrently, with tracing on: each send event carries the message id
	// its receive gets.
	// Under -race this also checks that reading the send's message id for
	// the event does not race with the receiver completing the request.
	const rounds = 200
	var rec recorder
	mustRunWith(t, commlib.Config{NP: 2, EagerLimit: 8, Hook: rec.hook}, func(c *commlib.Comm) {
		for k := range rounds {
			if c.Rank() == 0 {
				var r *commlib.Request
				if k%2 == 0 {
					r = c.Issend([]int{k}, 1, k) // @site:race-send
				} else {
					r = c.Isend([]int{k, k}, 1, k) // @site:race-isend
				}
				c.Wait(r)
			} else {
				c.Recv(make([]int, 2), 0, k)
			}
		}
	})
	sent := map[int]int64{}
	received := map[int]int64{}
	for _, ev := range rec.all() {
		switch {
		case ev.Kind == trace.KindOp && (ev.Op == "Issend" || ev.Op == "Isend"):
			sent[ev.Tag] = ev.Message
		case ev.Kind == trace.KindOp && ev.Op == "Recv":
			received[ev.Tag] = ev.Message
		}
	}
	for k := range rounds {
		if sent[k] == 0 || sent[k] != received[k] {
			t.Errorf("round %d: send message id %d, receive %d", k, sent[k], received[k])
		}
	}
}
