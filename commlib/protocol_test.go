// This file tests the send protocols: eager and rendezvous standard sends
// around the eager limit, synchronous, buffered and ready sends.
//
// The checks are causal, not timed: "completes at once" is shown by the
// receiver posting its receive only after it saw the send return, which
// would never happen if the send waited; "waits for the receive" is shown by
// the sender's completion flag still being unset when the receiver, after a
// pause, posts its receive (a correct implementation can never set it
// earlier, so the check cannot fail spuriously).

package commlib_test

import (
	"fmt"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/trace"
)

// pause is how long a receiver waits before posting a receive that a
// blocking send must be waiting for.
const pause = 30 * time.Millisecond

// sendMode is a blocking send of commlib by name.
type sendMode struct {
	name string
	send func(c *commlib.Comm, buf any, dest, tag int)
}

var (
	modeSend  = sendMode{"Send", (*commlib.Comm).Send}
	modeSsend = sendMode{"Ssend", (*commlib.Comm).Ssend}
	modeBsend = sendMode{"Bsend", (*commlib.Comm).Bsend}
)

// completesAtOnce checks that mode's send of buf returns before rank 1
// posts the receive, and returns the events of the run.
func completesAtOnce(t *testing.T, cfg commlib.Config, mode sendMode, buf any, attach int) *recorder {
	t.Helper()
	var rec recorder
	cfg.Hook = rec.hook
	var sent atomic.Bool
	mustRunWith(t, cfg, func(c *commlib.Comm) {
		if c.Rank() == 0 {
			if attach > 0 {
				c.BufferAttach(attach)
			}
			mode.send(c, buf, 1, 0)
			sent.Store(true)
			if attach > 0 {
				if got := c.BufferDetach(); got != attach {
					t.Errorf("BufferDetach = %d, want %d", got, attach)
				}
			}
			return
		}
		if !waitFlag(&sent, 5*time.Second) {
			t.Errorf("%s of %d bytes did not return before the receive was posted", mode.name, byteSize(buf))
		}
		got := recvBufFor(buf)
		st := c.Recv(got, 0, 0)
		if st.Count != reflect.ValueOf(buf).Len() {
			t.Errorf("Recv status %+v", st)
		}
		checkReceived(t, mode.name, buf, got)
	})
	return &rec
}

// waitsForRecv checks that mode's send of buf does not return before rank
// 1 posts the receive, and returns the events of the run.
func waitsForRecv(t *testing.T, cfg commlib.Config, mode sendMode, buf any) *recorder {
	t.Helper()
	var rec recorder
	cfg.Hook = rec.hook
	var sent atomic.Bool
	mustRunWith(t, cfg, func(c *commlib.Comm) {
		if c.Rank() == 0 {
			mode.send(c, buf, 1, 0)
			sent.Store(true)
			return
		}
		time.Sleep(pause)
		if sent.Load() {
			t.Errorf("%s of %d bytes returned before the matching receive was posted", mode.name, byteSize(buf))
		}
		got := recvBufFor(buf)
		c.Recv(got, 0, 0)
		checkReceived(t, mode.name, buf, got)
	})
	if !sent.Load() {
		t.Errorf("%s never returned", mode.name)
	}
	return &rec
}

func byteSize(buf any) int {
	v := reflect.ValueOf(buf)
	return v.Len() * int(v.Type().Elem().Size())
}

// wantProtocol checks the protocol of rank 0's only event of op.
func wantProtocol(t *testing.T, rec *recorder, op, protocol string) {
	t.Helper()
	evs := rec.find(0, op)
	if len(evs) != 1 {
		t.Fatalf("%d %s events on rank 0, want 1", len(evs), op)
	}
	if evs[0].Protocol != protocol {
		t.Errorf("%s event protocol %q, want %q", op, evs[0].Protocol, protocol)
	}
}

func TestStandardSendAtOrBelowEagerLimitIsEager(t *testing.T) {
	const limit = 64
	for _, buf := range []any{
		[]float64{1},                   // 8 bytes
		make([]float64, limit/8),       // exactly the limit
		make([]byte, limit),            // exactly the limit, bytes
		[]float64{},                    // empty
		make([]int32, limit/4-1),       // just below
		[]complex128{1i, 2, 3, 4 + 1i}, // 64 bytes
	} {
		t.Run(fmt.Sprintf("%T/%d", buf, byteSize(buf)), func(t *testing.T) {
			rec := completesAtOnce(t, commlib.Config{NP: 2, EagerLimit: limit}, modeSend, buf, 0)
			wantProtocol(t, rec, "Send", "eager")
		})
	}
	// The default limit.
	rec := completesAtOnce(t, commlib.Config{NP: 2}, modeSend, make([]byte, commlib.DefaultEagerLimit), 0)
	wantProtocol(t, rec, "Send", "eager")
}

func TestStandardSendAboveEagerLimitWaits(t *testing.T) {
	const limit = 64
	for _, buf := range []any{
		make([]float64, limit/8+1), // 72 bytes
		make([]byte, limit+1),      // one byte over
		[]complex128{1, 2, 3, 4, 5},
	} {
		t.Run(fmt.Sprintf("%T/%d", buf, byteSize(buf)), func(t *testing.T) {
			rec := waitsForRecv(t, commlib.Config{NP: 2, EagerLimit: limit}, modeSend, buf)
			wantProtocol(t, rec, "Send", "rendezvous")
		})
	}
	t.Run("default limit", func(t *testing.T) {
		rec := waitsForRecv(t, commlib.Config{NP: 2}, modeSend, make([]byte, commlib.DefaultEagerLimit+1))
		wantProtocol(t, rec, "Send", "rendezvous")
	})
	t.Run("negative limit", func(t *testing.T) {
		// A negative limit makes every standard send rendezvous, even one element.
		rec := waitsForRecv(t, commlib.Config{NP: 2, EagerLimit: -1}, modeSend, []byte{1})
		wantProtocol(t, rec, "Send", "rendezvous")
	})
}

func TestSsendAlwaysWaits(t *testing.T) {
	for _, buf := range []any{[]byte{1}, []float64{1, 2}, make([]int, 1000), []bool{}} {
		t.Run(fmt.Sprintf("%T/%d", buf, byteSize(buf)), func(t *testing.T) {
			rec := waitsForRecv(t, commlib.Config{NP: 2}, modeSsend, buf)
			wantProtocol(t, rec, "Ssend", "sync")
		})
	}
}

// pendingUntilRecv checks that a nonblocking send started by start is not
// complete (Test false) while the receiver has not posted its receive, and
// completes once it has.
func pendingUntilRecv(t *testing.T, cfg commlib.Config, start func(c *commlib.Comm, buf any) *commlib.Request, buf any) {
	t.Helper()
	mustRunWith(t, cfg, func(c *commlib.Comm) {
		if c.Rank() == 0 {
			r := start(c, buf)
			if done, _ := c.Test(r); done {
				t.Error("the send completed before the receive was posted")
			}
			c.Send([]int{1}, 1, 1) // tell rank 1 to post its receive
			c.Wait(r)
			return
		}
		c.Recv(make([]int, 1), 0, 1)
		got := recvBufFor(buf)
		c.Recv(got, 0, 0)
		checkReceived(t, "nonblocking send", buf, got)
	})
}

func TestNonblockingSendProtocols(t *testing.T) {
	cfg := commlib.Config{NP: 2, EagerLimit: 64}
	t.Run("Isend rendezvous", func(t *testing.T) {
		pendingUntilRecv(t, cfg, func(c *commlib.Comm, buf any) *commlib.Request { return c.Isend(buf, 1, 0) },
			make([]float64, 9))
	})
	t.Run("Issend", func(t *testing.T) {
		pendingUntilRecv(t, cfg, func(c *commlib.Comm, buf any) *commlib.Request { return c.Issend(buf, 1, 0) },
			[]byte{7})
	})
	t.Run("Isend eager", func(t *testing.T) {
		mustRunWith(t, cfg, func(c *commlib.Comm) {
			if c.Rank() == 0 {
				r := c.Isend(make([]float64, 8), 1, 0)
				if done, st := c.Test(r); !done || st != (commlib.Status{Source: 1, Tag: 0, Count: 8}) {
					t.Errorf("Test of an eager Isend = %v %+v, want complete", done, st)
				}
				c.Send([]int{1}, 1, 1)
				return
			}
			c.Recv(make([]int, 1), 0, 1) // only after the Isend completed
			c.Recv(make([]float64, 8), 0, 0)
		})
	})
}

func TestBsendNeverBlocks(t *testing.T) {
	const limit = 64
	big := make([]float64, 100) // 800 bytes: rendezvous for a standard send
	for i := range big {
		big[i] = float64(i)
	}
	attach := byteSize(big) + commlib.BsendOverhead
	rec := completesAtOnce(t, commlib.Config{NP: 2, EagerLimit: limit}, modeBsend, big, attach)
	wantProtocol(t, rec, "Bsend", "buffered")

	// Ibsend completes at once too, and the buffer is a copy.
	mustRunWith(t, commlib.Config{NP: 2, EagerLimit: limit}, func(c *commlib.Comm) {
		if c.Rank() == 0 {
			c.BufferAttach(2 * attach)
			buf := append([]float64(nil), big...)
			r := c.Ibsend(buf, 1, 0)
			if done, _ := c.Test(r); !done {
				t.Error("Ibsend is not complete at once")
			}
			buf[0] = -1
			c.Bsend(buf, 1, 1)
			c.Send([]int{1}, 1, 2)
			c.BufferDetach()
			return
		}
		c.Recv(make([]int, 1), 0, 2) // both buffered sends have returned
		got := make([]float64, 100)
		c.Recv(got, 0, 0)
		if !reflect.DeepEqual(got, big) {
			t.Errorf("Ibsend data changed after the send: %v", got[:3])
		}
		c.Recv(got, 0, 1)
		if got[0] != -1 || got[1] != 1 {
			t.Errorf("Bsend data %v", got[:3])
		}
	})
}

func TestBufferDetachWaitsForDelivery(t *testing.T) {
	var detached atomic.Bool
	mustRun(t, 2, func(c *commlib.Comm) {
		if c.Rank() == 0 {
			c.BufferAttach(1000)
			c.Bsend([]int{1, 2, 3}, 1, 0)
			c.Bsend([]int{4}, 1, 1)
			if got := c.BufferDetach(); got != 1000 {
				t.Errorf("BufferDetach = %d, want 1000", got)
			}
			detached.Store(true)
			// The buffer may be attached again after detaching.
			c.BufferAttach(100)
			c.Bsend([]int{5}, 1, 2)
			c.BufferDetach()
			return
		}
		time.Sleep(pause)
		if detached.Load() {
			t.Error("BufferDetach returned before the buffered messages were delivered")
		}
		got := make([]int, 3)
		c.Recv(got, 0, 0)
		c.Recv(got[:1], 0, 1)
		c.Recv(got[1:2], 0, 2)
		if !reflect.DeepEqual(got, []int{4, 5, 3}) {
			t.Errorf("received %v", got)
		}
	})
}

func TestBsendReleasesSpaceOnDelivery(t *testing.T) {
	// Space for one message: after it is received, the next one fits.
	mustRun(t, 2, func(c *commlib.Comm) {
		if c.Rank() == 0 {
			c.BufferAttach(8 + commlib.BsendOverhead)
			for i := range 5 {
				c.Bsend([]int{i}, 1, 0)
				c.Recv(make([]int, 1), 1, 1) // the ack: the message was delivered
			}
			c.BufferDetach()
			return
		}
		for i := range 5 {
			got := make([]int, 1)
			c.Recv(got, 0, 0)
			if got[0] != i {
				t.Errorf("message %d: %v", i, got)
			}
			c.Send([]int{0}, 0, 1)
		}
	})
}

func TestBsendErrors(t *testing.T) {
	t.Run("no buffer", func(t *testing.T) {
		err := commlib.Run(2, func(c *commlib.Comm) {
			if c.Rank() == 0 {
				c.Bsend([]int{1}, 1, 0) // @site:bsend-nobuf
			}
			c.Barrier()
		})
		wantError(t, err, 0, "Bsend", site(t, "bsend-nobuf"), "no buffer is attached")
	})
	t.Run("exhausted", func(t *testing.T) {
		err := commlib.Run(1, func(c *commlib.Comm) {
			c.BufferAttach(100)
			c.Bsend([]int{1}, 0, 0)  // 8 + 64 bytes: fits
			c.Ibsend([]int{2}, 0, 0) // @site:bsend-full
		})
		wantError(t, err, 0, "Ibsend", site(t, "bsend-full"), "attached buffer exhausted")
	})
	t.Run("attach twice", func(t *testing.T) {
		err := commlib.Run(1, func(c *commlib.Comm) {
			c.BufferAttach(100)
			c.BufferAttach(100) // @site:attach-twice
		})
		wantError(t, err, 0, "BufferAttach", site(t, "attach-twice"), "already attached")
	})
	t.Run("attach zero", func(t *testing.T) {
		err := commlib.Run(1, func(c *commlib.Comm) {
			c.BufferAttach(0) // @site:attach-zero
		})
		wantError(t, err, 0, "BufferAttach", site(t, "attach-zero"), "buffer size 0")
	})
	t.Run("detach without attach", func(t *testing.T) {
		err := commlib.Run(1, func(c *commlib.Comm) {
			c.BufferDetach() // @site:detach
		})
		wantError(t, err, 0, "BufferDetach", site(t, "detach"), "no buffer is attached")
	})
}

func TestRsendWithoutPostedReceiveFails(t *testing.T) {
	for _, mode := range []string{"Rsend", "Irsend"} {
		t.Run(mode, func(t *testing.T) {
			err, took := timedRun(commlib.Config{NP: 2}, func(c *commlib.Comm) {
				if c.Rank() == 0 {
					if mode == "Rsend" {
						c.Rsend([]int{1}, 1, 3) // @site:rsend
					} else {
						c.Irsend([]int{1}, 1, 3) // @site:irsend
					}
					return
				}
				c.Barrier() // never posts the receive; unwinds when the run fails
			})
			wantError(t, err, 0, mode, site(t, map[string]string{"Rsend": "rsend", "Irsend": "irsend"}[mode]),
				"no matching receive is posted at rank 1 (tag 3")
			if took > time.Second {
				t.Errorf("Run took %v after the failure", took)
			}
		})
	}
}

func TestRsendWithPostedReceive(t *testing.T) {
	var rec recorder
	mustRunWith(t, commlib.Config{NP: 2, Hook: rec.hook}, func(c *commlib.Comm) {
		if c.Rank() == 1 {
			a, b := make([]int, 2), make([]float64, 1)
			ra := c.Irecv(a, 0, 1)
			rb := c.Irecv(b, commlib.AnySource, commlib.AnyTag)
			c.Barrier() // the receives are posted
			if st := c.Wait(ra); st != (commlib.Status{Source: 0, Tag: 1, Count: 2}) || a[1] != 6 {
				t.Errorf("Rsend: %+v %v", st, a)
			}
			if st := c.Wait(rb); st != (commlib.Status{Source: 0, Tag: 2, Count: 1}) || b[0] != 0.5 {
				t.Errorf("Irsend: %+v %v", st, b)
			}
			return
		}
		c.Barrier()
		c.Rsend([]int{5, 6}, 1, 1)
		c.Wait(c.Irsend([]float64{0.5}, 1, 2))
	})
	wantProtocol(t, &rec, "Rsend", "ready")
	wantProtocol(t, &rec, "Irsend", "ready")
}

func TestProtocolOfEachSendInTrace(t *testing.T) {
	var rec recorder
	mustRunWith(t, commlib.Config{NP: 2, EagerLimit: 16, Hook: rec.hook}, func(c *commlib.Comm) {
		if c.Rank() == 0 {
			c.BufferAttach(1000)
			reqs := []*commlib.Request{
				c.Isend([]int{1, 2}, 1, 0),    // 16 bytes: eager
				c.Isend([]int{1, 2, 3}, 1, 1), // 24 bytes: rendezvous
				c.Issend([]int{1}, 1, 2),
				c.Ibsend([]int{1, 2, 3}, 1, 3),
			}
			// The receives are posted only after every Isend returned: see
			// TestTraceOfNonblockingRendezvousSend for the race otherwise.
			c.Send([]int{}, 1, 99)
			c.Waitall(reqs)
			c.BufferDetach()
			return
		}
		c.Recv([]int{}, 0, 99)
		for tag := range 4 {
			c.Recv(make([]int, 3), 0, tag)
		}
	})
	want := []string{"eager", "rendezvous", "sync", "buffered"}
	ops := []string{"Isend", "Isend", "Issend", "Ibsend"}
	var got []string
	for _, ev := range rec.all() {
		if ev.Rank == 0 && ev.Kind == trace.KindOp && (ev.Op == "Isend" || ev.Op == "Issend" || ev.Op == "Ibsend") {
			if ev.Op != ops[ev.Tag] {
				t.Errorf("event with tag %d is %s, want %s", ev.Tag, ev.Op, ops[ev.Tag])
			}
			got = append(got, fmt.Sprintf("%d:%s", ev.Tag, ev.Protocol))
		}
	}
	var wantStr []string
	for i, p := range want {
		wantStr = append(wantStr, fmt.Sprintf("%d:%s", i, p))
	}
	if !reflect.DeepEqual(got, wantStr) {
		t.Errorf("protocols %v, want %v", got, wantStr)
	}
}
