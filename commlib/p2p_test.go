// This file tests point-to-point messaging: data and status for every
// element type, wildcards, ProcNull, ordering, communicator isolation,
// nonblocking requests and Sendrecv.

package commlib_test

import (
	"errors"
	"fmt"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/predict-tools/predict/commlib"
)

// elementCases holds one send buffer of every element type commlib accepts.
var elementCases = []struct {
	name string
	send any
}{
	{"int", []int{1, -2, 3, 1 << 40}},
	{"int8", []int8{-128, 0, 127}},
	{"int16", []int16{-300, 7}},
	{"int32", []int32{1 << 30, -5, 6, 7, 8}},
	{"int64", []int64{-1 << 62, 2}},
	{"uint", []uint{^uint(0), 3}},
	{"uint8", []uint8{0, 1, 255, 42}},
	{"uint16", []uint16{65535}},
	{"uint32", []uint32{1 << 31, 9, 10}},
	{"uint64", []uint64{1 << 63, 11}},
	{"float32", []float32{1.5, -2.25, 3e30}},
	{"float64", []float64{0.1, -1e300, 2.5}},
	{"complex64", []complex64{1 + 2i, -3i}},
	{"complex128", []complex128{1 + 2i, -3 - 4i, 5}},
	{"bool", []bool{true, false, true}},
	{"empty", []float64{}},
}

// recvBufFor makes a receive buffer of the send buffer's type with extra
// room, so that Count is checked against the message, not the buffer.
func recvBufFor(send any) any {
	v := reflect.ValueOf(send)
	return reflect.MakeSlice(v.Type(), v.Len()+3, v.Len()+3).Interface()
}

// checkReceived compares the first len(send) elements of recv with send and
// checks that the rest is still zero.
func checkReceived(t *testing.T, what string, send, recv any) {
	t.Helper()
	sv, rv := reflect.ValueOf(send), reflect.ValueOf(recv)
	n := sv.Len()
	if got := rv.Slice(0, n).Interface(); !reflect.DeepEqual(got, send) {
		t.Errorf("%s: received %v, want %v", what, got, send)
	}
	for i := n; i < rv.Len(); i++ {
		if !rv.Index(i).IsZero() {
			t.Errorf("%s: element %d beyond the message was written: %v", what, i, rv.Index(i))
		}
	}
}

func TestSendRecvEveryElementType(t *testing.T) {
	mustRun(t, 2, func(c *commlib.Comm) {
		if c.Rank() == 0 {
			for i, tc := range elementCases {
				c.Send(tc.send, 1, 10+i)
			}
			for i, tc := range elementCases {
				c.Send(tc.send, 1, 100+i)
			}
			return
		}
		// By tag, in reverse order: matching picks the message by tag.
		for i := len(elementCases) - 1; i >= 0; i-- {
			tc := elementCases[i]
			buf := recvBufFor(tc.send)
			st := c.Recv(buf, 0, 10+i)
			want := commlib.Status{Source: 0, Tag: 10 + i, Count: reflect.ValueOf(tc.send).Len()}
			if st != want {
				t.Errorf("%s: Recv status %+v, want %+v", tc.name, st, want)
			}
			checkReceived(t, tc.name, tc.send, buf)
		}
		// With wildcards, in arrival order.
		for i, tc := range elementCases {
			buf := recvBufFor(tc.send)
			st := c.Recv(buf, commlib.AnySource, commlib.AnyTag)
			want := commlib.Status{Source: 0, Tag: 100 + i, Count: reflect.ValueOf(tc.send).Len()}
			if st != want {
				t.Errorf("%s: Recv(AnySource, AnyTag) status %+v, want %+v", tc.name, st, want)
			}
			checkReceived(t, tc.name+" (wildcards)", tc.send, buf)
		}
	})
}

func TestNonblockingEveryElementType(t *testing.T) {
	mustRun(t, 2, func(c *commlib.Comm) {
		var reqs []*commlib.Request
		bufs := make([]any, len(elementCases))
		for i, tc := range elementCases {
			if c.Rank() == 0 {
				reqs = append(reqs, c.Isend(tc.send, 1, i))
			} else {
				bufs[i] = recvBufFor(tc.send)
				reqs = append(reqs, c.Irecv(bufs[i], 0, i))
			}
		}
		sts := c.Waitall(reqs)
		if c.Rank() == 0 {
			return
		}
		for i, tc := range elementCases {
			want := commlib.Status{Source: 0, Tag: i, Count: reflect.ValueOf(tc.send).Len()}
			if sts[i] != want {
				t.Errorf("%s: Waitall status %+v, want %+v", tc.name, sts[i], want)
			}
			checkReceived(t, tc.name, tc.send, bufs[i])
		}
	})
}

func TestSendBufferIsCopied(t *testing.T) {
	// An eager send returns at once; overwriting the buffer afterwards must
	// not change the message.
	mustRun(t, 2, func(c *commlib.Comm) {
		buf := []int{1, 2, 3}
		if c.Rank() == 0 {
			c.Send(buf, 1, 0)
			buf[0], buf[1], buf[2] = -1, -1, -1
			c.Barrier()
			return
		}
		c.Barrier() // the sender has overwritten its buffer
		got := make([]int, 3)
		c.Recv(got, 0, 0)
		if !reflect.DeepEqual(got, []int{1, 2, 3}) {
			t.Errorf("received %v, want [1 2 3]", got)
		}
	})
}

func TestAnySourceAnyTag(t *testing.T) {
	const np = 5
	mustRun(t, np, func(c *commlib.Comm) {
		if c.Rank() != 0 {
			c.Send([]int{c.Rank() * 11}, 0, c.Rank()+20)
			return
		}
		seen := map[int]bool{}
		for range np - 1 {
			buf := make([]int, 1)
			st := c.Recv(buf, commlib.AnySource, commlib.AnyTag)
			if st.Source < 1 || st.Source >= np || seen[st.Source] {
				t.Errorf("Recv(AnySource): source %d (seen %v)", st.Source, seen)
				continue
			}
			seen[st.Source] = true
			if st.Tag != st.Source+20 || st.Count != 1 || buf[0] != st.Source*11 {
				t.Errorf("Recv(AnySource): status %+v, data %v", st, buf)
			}
		}
	})
	// AnySource with a fixed tag, AnyTag with a fixed source.
	mustRun(t, 3, func(c *commlib.Comm) {
		switch c.Rank() {
		case 1:
			c.Send([]int{1}, 0, 5)
			c.Send([]int{2}, 0, 6)
		case 2:
			c.Send([]int{3}, 0, 6)
		case 0:
			buf := make([]int, 1)
			// Tag 5 comes only from rank 1.
			if st := c.Recv(buf, commlib.AnySource, 5); st.Source != 1 || st.Tag != 5 || buf[0] != 1 {
				t.Errorf("Recv(AnySource, 5): %+v %v", st, buf)
			}
			// Only rank 2 is left on source 2.
			if st := c.Recv(buf, 2, commlib.AnyTag); st.Source != 2 || st.Tag != 6 || buf[0] != 3 {
				t.Errorf("Recv(2, AnyTag): %+v %v", st, buf)
			}
			if st := c.Recv(buf, commlib.AnySource, commlib.AnyTag); st.Source != 1 || st.Tag != 6 || buf[0] != 2 {
				t.Errorf("Recv(AnySource, AnyTag): %+v %v", st, buf)
			}
		}
	})
}

func TestProcNull(t *testing.T) {
	empty := commlib.Status{Source: commlib.ProcNull, Tag: commlib.AnyTag}
	mustRun(t, 3, func(c *commlib.Comm) {
		buf := []float64{7, 8}
		c.Send(buf, commlib.ProcNull, 1)
		c.Ssend(buf, commlib.ProcNull, 1)
		c.Rsend(buf, commlib.ProcNull, 1) // no receive needed
		if st := c.Recv(buf, commlib.ProcNull, 1); st != empty {
			t.Errorf("Recv(ProcNull) status %+v, want %+v", st, empty)
		}
		if buf[0] != 7 || buf[1] != 8 {
			t.Errorf("Recv(ProcNull) wrote the buffer: %v", buf)
		}
		rs := c.Isend(buf, commlib.ProcNull, 0)
		rr := c.Irecv(buf, commlib.ProcNull, commlib.AnyTag)
		if done, st := c.Test(rs); !done || st != empty {
			t.Errorf("Test(Isend to ProcNull) = %v %+v, want true %+v", done, st, empty)
		}
		if st := c.Wait(rr); st != empty {
			t.Errorf("Wait(Irecv from ProcNull) = %+v, want %+v", st, empty)
		}
		// A non-periodic chain: the ends send to and receive from ProcNull.
		left, right := c.Rank()-1, c.Rank()+1
		if left < 0 {
			left = commlib.ProcNull
		}
		if right >= c.Size() {
			right = commlib.ProcNull
		}
		ghost := []int{-1}
		st := c.Sendrecv([]int{c.Rank()}, right, 3, ghost, left, 3)
		if left == commlib.ProcNull {
			if st != empty || ghost[0] != -1 {
				t.Errorf("rank %d: Sendrecv from ProcNull: %+v %v", c.Rank(), st, ghost)
			}
		} else if st != (commlib.Status{Source: left, Tag: 3, Count: 1}) || ghost[0] != left {
			t.Errorf("rank %d: Sendrecv: %+v %v", c.Rank(), st, ghost)
		}
	})
}

func TestNonOvertaking(t *testing.T) {
	// Ranks 1 and 2 each send 400 messages to rank 0 on tags 0 and 1, of
	// mixed sizes (some above the eager limit, so both protocols are in
	// flight at once). Per source and tag, rank 0 must get them in order,
	// whatever mix of specific and wildcard receives it uses.
	const perSender = 400
	cfg := commlib.Config{NP: 3, EagerLimit: 16}
	mustRunWith(t, cfg, func(c *commlib.Comm) {
		if c.Rank() != 0 {
			var reqs []*commlib.Request
			for k := range perSender {
				n := 1 + k%3*3 // 1, 4 or 7 ints: eager and rendezvous
				msg := make([]int, n)
				msg[0] = k
				reqs = append(reqs, c.Isend(msg, 0, k%2))
			}
			c.Waitall(reqs)
			return
		}
		next := map[[2]int]int{{1, 0}: 0, {1, 1}: 1, {2, 0}: 0, {2, 1}: 1}
		check := func(st commlib.Status, buf []int) {
			key := [2]int{st.Source, st.Tag}
			want, ok := next[key]
			if !ok {
				t.Errorf("unexpected status %+v", st)
				return
			}
			if buf[0] != want {
				t.Errorf("source %d tag %d: got message %d, want %d (overtaken)", st.Source, st.Tag, buf[0], want)
			}
			if wantN := 1 + buf[0]%3*3; st.Count != wantN {
				t.Errorf("message %d: count %d, want %d", buf[0], st.Count, wantN)
			}
			next[key] = buf[0] + 2
		}
		buf := make([]int, 8)
		// Half of rank 1's tag-1 messages first, by exact match.
		for range perSender / 4 {
			check(c.Recv(buf, 1, 1), buf)
		}
		// Then rank 2's tag-0 messages with AnySource.
		for range perSender / 2 {
			check(c.Recv(buf, commlib.AnySource, 0), buf)
		}
		// The rest with full wildcards.
		for range 2*perSender - perSender/4 - perSender/2 {
			check(c.Recv(buf, commlib.AnySource, commlib.AnyTag), buf)
		}
		for key, n := range next {
			if n != perSender+key[1] {
				t.Errorf("source %d tag %d: next expected message %d, want all %d received", key[0], key[1], n, perSender)
			}
		}
	})
}

func TestMessagesStayInTheirCommunicator(t *testing.T) {
	mustRun(t, 2, func(c *commlib.Comm) {
		d := c.Dup()
		if d.Rank() != c.Rank() || d.Size() != c.Size() {
			t.Errorf("Dup: rank %d size %d, want %d %d", d.Rank(), d.Size(), c.Rank(), c.Size())
		}
		dd := d.Dup()
		if c.Rank() == 0 {
			d.Send([]int{1}, 1, 0)
			dd.Send([]int{3}, 1, 0)
			c.Send([]int{2}, 1, 0)
			return
		}
		buf := make([]int, 1)
		// The world's wildcards must not see the messages of d and dd,
		// though they arrived first.
		if st := c.Recv(buf, commlib.AnySource, commlib.AnyTag); buf[0] != 2 || st.Source != 0 {
			t.Errorf("world Recv got %v (%+v), want the world's message 2", buf, st)
		}
		if dd.Recv(buf, 0, 0); buf[0] != 3 {
			t.Errorf("second Dup Recv got %v, want 3", buf)
		}
		if d.Recv(buf, commlib.AnySource, commlib.AnyTag); buf[0] != 1 {
			t.Errorf("Dup Recv got %v, want 1", buf)
		}
	})
}

func TestStatusSourceIsCommunicatorRank(t *testing.T) {
	// In a Split communicator with reversed order, Source is the rank in
	// that communicator, not in the world.
	mustRun(t, 4, func(c *commlib.Comm) {
		s := c.Split(0, -c.Rank()) // world rank 3 is rank 0 of s
		if s.Rank() != 3-c.Rank() {
			c.Abort(fmt.Errorf("Split: rank %d, want %d", s.Rank(), 3-c.Rank()))
		}
		if s.Rank() == 0 {
			buf := make([]int, 1)
			for range 3 {
				st := s.Recv(buf, commlib.AnySource, commlib.AnyTag)
				if buf[0] != 3-st.Source || st.Tag != st.Source {
					t.Errorf("Recv in split: status %+v, data %v", st, buf)
				}
			}
			return
		}
		s.Send([]int{c.Rank()}, 0, s.Rank())
	})
}

func TestWaitany(t *testing.T) {
	const np = 4
	mustRun(t, np, func(c *commlib.Comm) {
		if c.Rank() != 0 {
			c.Send([]int{c.Rank() * 10}, 0, 7)
			return
		}
		bufs := [][]int{make([]int, 1), nil, make([]int, 1), make([]int, 1)}
		reqs := []*commlib.Request{c.Irecv(bufs[0], 1, 7), nil, c.Irecv(bufs[2], 2, 7), c.Irecv(bufs[3], 3, 7)}
		source := map[int]int{0: 1, 2: 2, 3: 3}
		seen := map[int]bool{}
		for range 3 {
			i, st := c.Waitany(reqs)
			if _, ok := source[i]; !ok || seen[i] {
				t.Errorf("Waitany returned index %d (seen %v)", i, seen)
				continue
			}
			seen[i] = true
			if st.Source != source[i] || st.Tag != 7 || st.Count != 1 || bufs[i][0] != source[i]*10 {
				t.Errorf("Waitany index %d: status %+v data %v", i, st, bufs[i])
			}
		}
		for range 2 {
			if i, st := c.Waitany(reqs); i != -1 || st != (commlib.Status{Source: commlib.ProcNull, Tag: commlib.AnyTag}) {
				t.Errorf("Waitany with no active request = %d %+v, want -1 and the empty status", i, st)
			}
		}
		if i, _ := c.Waitany(nil); i != -1 {
			t.Errorf("Waitany(nil) = %d, want -1", i)
		}
	})
}

func TestTestPolling(t *testing.T) {
	mustRun(t, 2, func(c *commlib.Comm) {
		if c.Rank() == 1 {
			// Wait for rank 0 to have seen the request pending.
			buf := make([]int, 1)
			c.Recv(buf, 0, 1)
			c.Send([]int{99}, 0, 2)
			return
		}
		buf := make([]int, 1)
		r := c.Irecv(buf, 1, 2)
		if done, st := c.Test(r); done {
			c.Abort(fmt.Errorf("Test before the message was sent = true %+v", st))
		}
		c.Send([]int{0}, 1, 1) // now rank 1 may send
		polls := 0
		deadline := time.Now().Add(5 * time.Second)
		for {
			polls++
			done, st := c.Test(r)
			if done {
				if st != (commlib.Status{Source: 1, Tag: 2, Count: 1}) || buf[0] != 99 {
					t.Errorf("Test: status %+v data %v", st, buf)
				}
				break
			}
			if st != (commlib.Status{}) {
				t.Errorf("Test of a pending request returned status %+v", st)
			}
			if time.Now().After(deadline) {
				c.Abort(errors.New("Test never reported the request done"))
			}
			time.Sleep(100 * time.Microsecond)
		}
		// The request is now inactive.
		empty := commlib.Status{Source: commlib.ProcNull, Tag: commlib.AnyTag}
		if done, st := c.Test(r); !done || st != empty {
			t.Errorf("Test of a completed request = %v %+v, want true %+v", done, st, empty)
		}
		if st := c.Wait(r); st != empty {
			t.Errorf("Wait of a completed request = %+v, want %+v", st, empty)
		}
		if st := c.Wait(nil); st != empty {
			t.Errorf("Wait(nil) = %+v, want %+v", st, empty)
		}
	})
}

func TestSendrecvRing(t *testing.T) {
	for _, np := range []int{1, 2, 3, 5, 8} {
		for _, n := range []int{1, 1000} { // eager and rendezvous (8000 bytes > limit 64)
			t.Run(fmt.Sprintf("np=%d/n=%d", np, n), func(t *testing.T) {
				cfg := commlib.Config{NP: np, EagerLimit: 64}
				mustRunWith(t, cfg, func(c *commlib.Comm) {
					r := c.Rank()
					right, left := (r+1)%np, (r+np-1)%np
					send := make([]float64, n)
					for i := range send {
						send[i] = float64(r*n + i)
					}
					recv := make([]float64, n)
					st := c.Sendrecv(send, right, 4, recv, left, 4)
					if st != (commlib.Status{Source: left, Tag: 4, Count: n}) {
						t.Errorf("rank %d: Sendrecv status %+v", r, st)
					}
					for i, v := range recv {
						if v != float64(left*n+i) {
							t.Errorf("rank %d: recv[%d] = %v, want %v", r, i, v, left*n+i)
							break
						}
					}
				})
			})
		}
	}
}

func TestSelfSend(t *testing.T) {
	// Eager and rendezvous sizes to self: Isend does not block, so the
	// following Recv matches it.
	cfg := commlib.Config{NP: 2, EagerLimit: 64}
	mustRunWith(t, cfg, func(c *commlib.Comm) {
		me := c.Rank()
		for _, n := range []int{3, 100} {
			send := make([]int, n)
			for i := range send {
				send[i] = me*1000 + i
			}
			r := c.Isend(send, me, n)
			recv := make([]int, n)
			st := c.Recv(recv, me, n)
			if st != (commlib.Status{Source: me, Tag: n, Count: n}) || !reflect.DeepEqual(recv, send) {
				t.Errorf("self Isend/Recv of %d: status %+v", n, st)
			}
			if st := c.Wait(r); st != (commlib.Status{Source: me, Tag: n, Count: n}) {
				t.Errorf("Wait of self Isend: %+v", st)
			}
		}
		// A blocking eager Send to self, then Recv.
		c.Send([]int{5}, me, 0)
		buf := make([]int, 1)
		if c.Recv(buf, commlib.AnySource, commlib.AnyTag); buf[0] != 5 {
			t.Errorf("self Send/Recv got %v", buf)
		}
		// Irecv first, then a blocking rendezvous Send to self.
		big := make([]int, 100)
		big[99] = 42
		got := make([]int, 100)
		rr := c.Irecv(got, me, 9)
		c.Send(big, me, 9)
		if st := c.Wait(rr); st.Count != 100 || got[99] != 42 {
			t.Errorf("self Irecv/Send: %+v %v", st, got[99])
		}
	})
}

func TestWaitallStatusesInOrder(t *testing.T) {
	mustRun(t, 4, func(c *commlib.Comm) {
		if c.Rank() != 0 {
			c.Send(make([]byte, c.Rank()), 0, 100+c.Rank())
			return
		}
		reqs := make([]*commlib.Request, 5)
		for src := 3; src >= 1; src-- { // posted in reverse, listed by source
			reqs[src] = c.Irecv(make([]byte, 10), src, commlib.AnyTag)
		}
		reqs[4] = c.Isend([]byte{1}, commlib.ProcNull, 0)
		sts := c.Waitall(reqs)
		empty := commlib.Status{Source: commlib.ProcNull, Tag: commlib.AnyTag}
		if sts[0] != empty || sts[4] != empty {
			t.Errorf("Waitall statuses of nil and ProcNull requests: %+v %+v", sts[0], sts[4])
		}
		for src := 1; src <= 3; src++ {
			if want := (commlib.Status{Source: src, Tag: 100 + src, Count: src}); sts[src] != want {
				t.Errorf("Waitall status %d = %+v, want %+v", src, sts[src], want)
			}
		}
		// Waiting again: every request is inactive.
		for i, st := range c.Waitall(reqs) {
			if st != empty {
				t.Errorf("second Waitall status %d = %+v, want %+v", i, st, empty)
			}
		}
	})
}

func TestCommIdentity(t *testing.T) {
	for _, np := range []int{1, 3, 6} {
		var ranks [8]atomic.Int32
		mustRun(t, np, func(c *commlib.Comm) {
			if c.Size() != np || c.WorldRank() != c.Rank() {
				t.Errorf("Size %d WorldRank %d Rank %d", c.Size(), c.WorldRank(), c.Rank())
			}
			ranks[c.Rank()].Add(1)
		})
		for r := range np {
			if ranks[r].Load() != 1 {
				t.Errorf("np=%d: rank %d ran %d times", np, r, ranks[r].Load())
			}
		}
	}
	if err := commlib.Run(0, func(c *commlib.Comm) {}); err == nil {
		t.Error("Run(0) succeeded, want an error")
	}
}

func TestPostedReceivesMatchInPostingOrder(t *testing.T) {
	// A message goes to the first posted receive that accepts it, whether
	// that one is a wildcard or not.
	mustRun(t, 2, func(c *commlib.Comm) {
		if c.Rank() == 1 {
			c.Recv(make([]int, 1), 0, 0) // the receives are posted
			for k := range 4 {
				c.Send([]int{k}, 0, 5)
			}
			c.Recv(make([]int, 1), 0, 1)
			c.Send([]int{10}, 0, 6)
			c.Send([]int{11}, 0, 6)
			return
		}
		bufs := make([][]int, 4)
		for i := range bufs {
			bufs[i] = []int{-1}
		}
		reqs := []*commlib.Request{
			c.Irecv(bufs[0], commlib.AnySource, 5),
			c.Irecv(bufs[1], 1, 5),
			c.Irecv(bufs[2], 1, commlib.AnyTag),
			c.Irecv(bufs[3], commlib.AnySource, commlib.AnyTag),
		}
		c.Send([]int{0}, 1, 0)
		c.Waitall(reqs)
		for i, b := range bufs {
			if b[0] != i {
				t.Errorf("receive %d (posted %d-th) got message %d", i, i, b[0])
			}
		}
		// A blocking Recv after an Irecv of the same pattern: the Irecv,
		// posted first, gets the first message.
		first, second := []int{-1}, []int{-1}
		r := c.Irecv(first, 1, 6)
		c.Send([]int{0}, 1, 1)
		c.Recv(second, 1, 6)
		c.Wait(r)
		if first[0] != 10 || second[0] != 11 {
			t.Errorf("Irecv got %v, the later Recv %v; want 10 and 11", first, second)
		}
	})
}
