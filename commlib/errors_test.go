// This file tests how misuse, panics and Abort stop a run: the error's
// type, the operation, rank and call site it names, and that ranks blocked
// elsewhere unwind so that Run returns promptly.

package commlib_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/predict-tools/predict/commlib"
)

// prompt is how fast Run must return once a rank failed: well below the
// 2 s Run waits for ranks stuck in their own computation, so a run that
// returns within it has unwound every blocked rank.
const prompt = time.Second

type errorCase struct {
	name   string
	np     int
	rank   int    // the rank at fault; -1 when any rank may report it first
	op     string // the operation named
	marker string // the @site marker of the call at fault
	msg    string // part of the message
	body   func(c *commlib.Comm)
}

func runErrorCases(t *testing.T, cases []errorCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err, took := timedRun(commlib.Config{NP: tc.np}, tc.body)
			wantError(t, err, tc.rank, tc.op, site(t, tc.marker), tc.msg)
			if took > prompt {
				t.Errorf("Run returned %v after the start, want the blocked ranks to unwind promptly", took)
			}
		})
	}
}

func TestPointToPointErrors(t *testing.T) {
	runErrorCases(t, []errorCase{
		{"invalid destination", 2, 0, "Send", "dest", "invalid destination rank 5: communicator world has ranks 0..1",
			func(c *commlib.Comm) {
				if c.Rank() == 0 {
					c.Send([]int{1}, 5, 0) // @site:dest
				} else {
					c.Recv(make([]int, 1), 0, 0) // blocked; unwinds
				}
			}},
		{"negative destination", 2, 1, "Isend", "dest-neg", "invalid destination rank -7",
			func(c *commlib.Comm) {
				if c.Rank() == 1 {
					c.Isend([]int{1}, -7, 0) // @site:dest-neg
				} else {
					c.Barrier()
				}
			}},
		{"AnySource as destination", 2, 0, "Ssend", "dest-any", "invalid destination rank -1",
			func(c *commlib.Comm) {
				if c.Rank() == 0 {
					c.Ssend([]int{1}, commlib.AnySource, 0) // @site:dest-any
				} else {
					c.Barrier()
				}
			}},
		{"invalid source", 3, 2, "Recv", "src", "invalid source rank 3",
			func(c *commlib.Comm) {
				if c.Rank() == 2 {
					c.Recv(make([]int, 1), 3, 0) // @site:src
				} else {
					c.Barrier()
				}
			}},
		{"invalid source of Irecv", 2, 1, "Irecv", "isrc", "invalid source rank -9",
			func(c *commlib.Comm) {
				if c.Rank() == 1 {
					c.Irecv(make([]int, 1), -9, 0) // @site:isrc
				} else {
					c.Recv(make([]int, 1), 1, 0)
				}
			}},
		{"negative tag", 2, 0, "Send", "tag-neg", "invalid tag -1: want 0..",
			func(c *commlib.Comm) {
				if c.Rank() == 0 {
					c.Send([]int{1}, 1, -1) // @site:tag-neg
				} else {
					c.Barrier()
				}
			}},
		{"tag above TagUB", 2, 0, "Isend", "tag-big", fmt.Sprintf("invalid tag %d", commlib.TagUB+1),
			func(c *commlib.Comm) {
				if c.Rank() == 0 {
					c.Isend([]int{1}, 1, commlib.TagUB+1) // @site:tag-big
				} else {
					c.Barrier()
				}
			}},
		{"invalid receive tag", 2, 1, "Recv", "rtag", "invalid tag -4",
			func(c *commlib.Comm) {
				if c.Rank() == 1 {
					c.Recv(make([]int, 1), 0, -4) // @site:rtag
				} else {
					c.Barrier()
				}
			}},
		{"invalid Sendrecv tag", 2, 0, "Sendrecv", "srtag", "invalid tag -2",
			func(c *commlib.Comm) {
				if c.Rank() == 0 {
					c.Sendrecv([]int{1}, 1, -2, make([]int, 1), 1, 0) // @site:srtag
				} else {
					c.Barrier()
				}
			}},
		{"type mismatch", 2, 1, "Recv", "mismatch",
			"type mismatch: the message from rank 0 (tag 4) carries []int, the receive buffer is []float64",
			func(c *commlib.Comm) {
				if c.Rank() == 0 {
					c.Send([]int{1, 2}, 1, 4)
					c.Barrier()
				} else {
					c.Recv(make([]float64, 2), 0, 4) // @site:mismatch
				}
			}},
		{"type mismatch of a posted receive", 2, 1, "Wait", "mismatch-wait",
			"carries []int32, the receive buffer is []int64",
			func(c *commlib.Comm) {
				if c.Rank() == 0 {
					c.Ssend([]int32{1}, 1, 0)
				} else {
					r := c.Irecv(make([]int64, 1), 0, 0)
					c.Wait(r) // @site:mismatch-wait
				}
			}},
		{"truncation", 2, 1, "Recv", "trunc",
			"message truncated: the message from rank 0 (tag 0) has 5 elements, the receive buffer holds 3",
			func(c *commlib.Comm) {
				if c.Rank() == 0 {
					c.Send(make([]byte, 5), 1, 0)
					c.Barrier()
				} else {
					c.Recv(make([]byte, 3), commlib.AnySource, commlib.AnyTag) // @site:trunc
				}
			}},
		{"truncation at Waitall", 2, 0, "Waitall", "trunc-waitall", "has 100 elements, the receive buffer holds 99",
			func(c *commlib.Comm) {
				if c.Rank() == 1 {
					c.Send(make([]float64, 100), 0, 0) // rendezvous
					c.Barrier()
				} else {
					r := c.Irecv(make([]float64, 99), 1, 0)
					c.Waitall([]*commlib.Request{r}) // @site:trunc-waitall
				}
			}},
		{"not a buffer", 2, 0, "Send", "badbuf", "send buffer of type []string: want a slice of a numeric type",
			func(c *commlib.Comm) {
				if c.Rank() == 0 {
					c.Send([]string{"x"}, 1, 0) // @site:badbuf
				} else {
					c.Barrier()
				}
			}},
		{"nil receive buffer", 1, 0, "Irecv", "nilbuf", "receive buffer of type nil",
			func(c *commlib.Comm) {
				c.Irecv(nil, 0, 0) // @site:nilbuf
			}},
	})
}

func TestRequestOfAnotherRank(t *testing.T) {
	shared := make(chan *commlib.Request, 1)
	err, took := timedRun(commlib.Config{NP: 2}, func(c *commlib.Comm) {
		if c.Rank() == 0 {
			shared <- c.Irecv(make([]int, 1), 1, 0)
			c.Barrier()
			return
		}
		r := <-shared
		c.Wait(r) // @site:foreign
	})
	wantError(t, err, 1, "Wait", site(t, "foreign"), "the request was started by rank 0")
	if took > prompt {
		t.Errorf("Run took %v", took)
	}
}

func TestCollectiveArgumentErrors(t *testing.T) {
	runErrorCases(t, []errorCase{
		{"invalid root", 3, -1, "Bcast", "root", "invalid root 3: communicator world has ranks 0..2",
			func(c *commlib.Comm) {
				c.Bcast(make([]int, 1), 3) // @site:root
			}},
		{"negative root on one rank", 3, 1, "Reduce", "root-neg", "invalid root -1",
			func(c *commlib.Comm) {
				if c.Rank() == 1 {
					c.Reduce([]int{1}, nil, commlib.Sum, -1) // @site:root-neg
				} else {
					c.Reduce([]int{1}, make([]int, 1), commlib.Sum, 0) // the root waits; unwinds
				}
			}},
		{"Gatherv negative count", 3, 0, "Gatherv", "gatherv-neg", "recvcounts[1]=-1 at displs[1]=1 does not fit",
			func(c *commlib.Comm) {
				if c.Rank() == 0 {
					c.Gatherv([]int{1}, make([]int, 3), []int{1, -1, 1}, []int{0, 1, 2}, 0) // @site:gatherv-neg
				} else {
					c.Gatherv([]int{1}, nil, nil, nil, 0)
				}
			}},
		{"Gatherv count disagrees with the sender", 3, 2, "Gatherv", "gatherv-count",
			"rank 1 sends 2 elements, recvcounts[1] at the root is 1",
			func(c *commlib.Comm) {
				if c.Rank() == 2 {
					c.Gatherv([]int{1}, make([]int, 3), []int{1, 1, 1}, []int{0, 1, 2}, 2) // @site:gatherv-count
				} else {
					c.Gatherv(make([]int, c.Rank()+1), nil, nil, nil, 2)
				}
			}},
		{"Gatherv counts length", 2, 0, "Gatherv", "gatherv-len", "recvcounts has 3 entries and displs 2: want 2",
			func(c *commlib.Comm) {
				if c.Rank() == 0 {
					c.Gatherv([]int{1}, make([]int, 3), []int{1, 1, 1}, []int{0, 1}, 0) // @site:gatherv-len
				} else {
					c.Gatherv([]int{1}, nil, nil, nil, 0)
				}
			}},
		{"Scatterv displacement beyond the buffer", 2, 1, "Scatterv", "scatterv-disp",
			"sendcounts[1]=2 at displs[1]=3 does not fit the buffer of 4 elements",
			func(c *commlib.Comm) {
				if c.Rank() == 1 {
					c.Scatterv(make([]int, 4), []int{1, 2}, []int{0, 3}, make([]int, 2), 1) // @site:scatterv-disp
				} else {
					c.Scatterv(nil, nil, nil, make([]int, 2), 1) // waits for the root; unwinds
				}
			}},
		{"Scatterv truncation", 2, 0, "Scatterv", "scatterv-trunc", "the root sends 3 elements, the receive buffer holds 1",
			func(c *commlib.Comm) {
				if c.Rank() == 1 {
					c.Scatterv(make([]int, 4), []int{3, 1}, []int{0, 3}, make([]int, 1), 1)
					c.Barrier()
				} else {
					c.Scatterv(nil, nil, nil, make([]int, 1), 1) // @site:scatterv-trunc
				}
			}},
		{"Allgatherv negative count", 3, -1, "Allgatherv", "allgatherv-neg", "recvcounts[2]=-3",
			func(c *commlib.Comm) {
				c.Allgatherv([]int{1}, make([]int, 3), []int{1, 1, -3}, []int{0, 1, 2}) // @site:allgatherv-neg
			}},
		{"Allgatherv own count", 2, -1, "Allgatherv", "allgatherv-own", "this rank sends 1 elements but recvcounts",
			func(c *commlib.Comm) {
				c.Allgatherv([]int{1}, make([]int, 4), []int{2, 2}, []int{0, 2}) // @site:allgatherv-own
			}},
		{"Alltoallv pair counts disagree", 2, -1, "Alltoallv", "alltoallv",
			"rank 0 sends 1 elements to rank 1, which expects 2 (recvcounts[0])",
			func(c *commlib.Comm) {
				send, recv := make([]int, 4), make([]int, 4)
				counts := []int{1, 1}
				if c.Rank() == 1 {
					counts = []int{2, 1}
				}
				c.Alltoallv(send, []int{1, 1}, []int{0, 1}, recv, counts, []int{0, 2}) // @site:alltoallv
			}},
		{"Alltoallv negative count", 2, 1, "Alltoallv", "alltoallv-neg", "sendcounts[0]=-1",
			func(c *commlib.Comm) {
				send, recv := make([]int, 4), make([]int, 4)
				if c.Rank() == 1 {
					c.Alltoallv(send, []int{-1, 1}, []int{0, 1}, recv, []int{1, 1}, []int{0, 1}) // @site:alltoallv-neg
				} else {
					c.Alltoallv(send, []int{1, 1}, []int{0, 1}, recv, []int{1, 1}, []int{0, 1})
				}
			}},
		{"Band on float64", 2, -1, "Allreduce", "band", "operator Band does not apply to []float64",
			func(c *commlib.Comm) {
				c.Allreduce([]float64{1}, make([]float64, 1), commlib.Band) // @site:band
			}},
		{"Max on complex128", 2, -1, "Scan", "cmax", "operator Max does not apply to []complex128",
			func(c *commlib.Comm) {
				c.Scan([]complex128{1}, make([]complex128, 1), commlib.Max) // @site:cmax
			}},
		{"Sum on bool", 1, 0, "Reduce", "bsum", "operator Sum does not apply to []bool",
			func(c *commlib.Comm) {
				c.Reduce([]bool{true}, make([]bool, 1), commlib.Sum, 0) // @site:bsum
			}},
		{"unknown operator", 2, -1, "Exscan", "unknown-op", "unknown reduction operator Op(42)",
			func(c *commlib.Comm) {
				c.Exscan([]int{1}, make([]int, 1), commlib.Op(42)) // @site:unknown-op
			}},
		{"receive buffer too small", 2, -1, "Allgather", "allgather-small", "receive buffer too small: it holds 3 elements, 4 are needed",
			func(c *commlib.Comm) {
				c.Allgather([]int{1, 2}, make([]int, 3)) // @site:allgather-small
			}},
		{"receive type", 2, -1, "Allreduce", "allreduce-type", "the send buffer is []int, the receive buffer is []int64",
			func(c *commlib.Comm) {
				c.Allreduce([]int{1}, make([]int64, 1), commlib.Sum) // @site:allreduce-type
			}},
		{"Alltoall blocks", 3, -1, "Alltoall", "alltoall", "send buffer of 4 elements does not split into 3 equal blocks",
			func(c *commlib.Comm) {
				c.Alltoall(make([]int, 4), make([]int, 4)) // @site:alltoall
			}},
		{"Scatter send buffer", 2, 0, "Scatter", "scatter-small", "send buffer too small: it holds 3 elements, 2 ranks × 2 are needed",
			func(c *commlib.Comm) {
				if c.Rank() == 0 {
					c.Scatter(make([]int, 3), make([]int, 2), 0) // @site:scatter-small
				} else {
					c.Scatter(nil, make([]int, 2), 0)
				}
			}},
	})
}

// TestCollectiveMismatches covers ranks that call different collectives,
// or the same one with different arguments. Either rank may be the one that
// notices, so each case says what each rank calls and where.
func TestCollectiveMismatches(t *testing.T) {
	type call struct{ op, marker string }
	cases := []struct {
		name  string
		calls [2]call
		msg   string // part of the message, whichever rank reports
		body  func(c *commlib.Comm)
	}{
		{"different operations", [2]call{{"Barrier", "mm-barrier"}, {"Bcast", "mm-bcast"}}, "does not match",
			func(c *commlib.Comm) {
				if c.Rank() == 0 {
					c.Barrier() // @site:mm-barrier
				} else {
					c.Bcast(make([]int, 1), 0) // @site:mm-bcast
				}
			}},
		{"different roots", [2]call{{"Bcast", "mm-root0"}, {"Bcast", "mm-root1"}}, "root=",
			func(c *commlib.Comm) {
				if c.Rank() == 0 {
					c.Bcast(make([]int, 1), 0) // @site:mm-root0
				} else {
					c.Bcast(make([]int, 1), 1) // @site:mm-root1
				}
			}},
		{"different counts", [2]call{{"Allreduce", "mm-count2"}, {"Allreduce", "mm-count3"}}, "×int",
			func(c *commlib.Comm) {
				if c.Rank() == 0 {
					c.Allreduce(make([]int, 2), make([]int, 2), commlib.Sum) // @site:mm-count2
				} else {
					c.Allreduce(make([]int, 3), make([]int, 3), commlib.Sum) // @site:mm-count3
				}
			}},
		{"different reduce ops", [2]call{{"Allreduce", "mm-sum"}, {"Allreduce", "mm-max"}}, "op=",
			func(c *commlib.Comm) {
				if c.Rank() == 0 {
					c.Allreduce(make([]float64, 1), make([]float64, 1), commlib.Sum) // @site:mm-sum
				} else {
					c.Allreduce(make([]float64, 1), make([]float64, 1), commlib.Max) // @site:mm-max
				}
			}},
		{"different element types", [2]call{{"Reduce", "mm-int"}, {"Reduce", "mm-float"}}, "does not match",
			func(c *commlib.Comm) {
				if c.Rank() == 0 {
					c.Reduce(make([]int, 1), make([]int, 1), commlib.Sum, 0) // @site:mm-int
				} else {
					c.Reduce(make([]float64, 1), nil, commlib.Sum, 0) // @site:mm-float
				}
			}},
		{"Split against Barrier", [2]call{{"Split", "mm-split"}, {"Barrier", "mm-barrier2"}}, "does not match",
			func(c *commlib.Comm) {
				if c.Rank() == 0 {
					c.Split(0, 0) // @site:mm-split
				} else {
					c.Barrier() // @site:mm-barrier2
				}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err, took := timedRun(commlib.Config{NP: 2}, tc.body)
			r := errRank(err)
			if r != 0 && r != 1 {
				t.Fatalf("got %v, want an *Error of rank 0 or 1", err)
			}
			mine, other := tc.calls[r], tc.calls[1-r]
			e := wantError(t, err, r, mine.op, site(t, mine.marker), tc.msg)
			// The message also names the other rank's call and where it was made.
			for _, want := range []string{fmt.Sprintf("rank %d called %s", 1-r, other.op), shortName(site(t, other.marker))} {
				if !strings.Contains(e.Msg, want) {
					t.Errorf("message %q does not contain %q", e.Msg, want)
				}
			}
			if took > prompt {
				t.Errorf("Run took %v", took)
			}
		})
	}
}

func TestPanicInRank(t *testing.T) {
	// Rank 2 panics while the others are blocked in a Barrier and a Recv.
	err, took := timedRun(commlib.Config{NP: 4}, func(c *commlib.Comm) {
		switch c.Rank() {
		case 2:
			time.Sleep(10 * time.Millisecond) // let the others block first
			panic(fmt.Sprintf("boom %d", 42)) // @site:panic
		case 3:
			c.Recv(make([]int, 1), 2, 0)
		default:
			c.Barrier()
		}
	})
	var e *commlib.Error
	if !errors.As(err, &e) {
		t.Fatalf("got %v (%T), want a *commlib.Error", err, err)
	}
	if e.Rank != 2 || e.Thread != 0 || e.Msg != "panic: boom 42" {
		t.Errorf("Error rank %d thread %d msg %q, want rank 2 thread 0 %q", e.Rank, e.Thread, e.Msg, "panic: boom 42")
	}
	if !strings.Contains(e.Stack, shortName(site(t, "panic"))) {
		t.Errorf("stack does not show the panic's site %s:\n%s", shortName(site(t, "panic")), e.Stack)
	}
	if text := err.Error(); !strings.HasPrefix(text, "rank 2: panic: boom 42") {
		t.Errorf("error text %q", firstLine(text))
	}
	if took > prompt {
		t.Errorf("Run returned after %v, want the blocked ranks to unwind promptly", took)
	}
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

func TestPanicWithError(t *testing.T) {
	cause := errors.New("disk on fire")
	err := commlib.Run(2, func(c *commlib.Comm) {
		if c.Rank() == 1 {
			panic(cause)
		}
		c.Barrier()
	})
	var e *commlib.Error
	if !errors.As(err, &e) || e.Rank != 1 || e.Msg != "panic: disk on fire" {
		t.Fatalf("got %v, want rank 1's panic with the error's text", err)
	}
}

func TestPanicInThreads(t *testing.T) {
	t.Run("pool", func(t *testing.T) {
		err, took := timedRun(commlib.Config{NP: 2}, func(c *commlib.Comm) {
			if c.Rank() == 1 {
				p := c.NewPool(2)
				p.SetTask(func(tid int) float64 {
					panic(fmt.Sprintf("task on thread %d", tid))
				})
				p.WaitForAll() // unwinds
				return
			}
			c.Barrier()
		})
		var e *commlib.Error
		if !errors.As(err, &e) {
			t.Fatalf("got %v, want a *commlib.Error", err)
		}
		tid := e.Thread - 1
		if e.Rank != 1 || tid < 0 || tid > 1 || e.Msg != fmt.Sprintf("panic: task on thread %d", tid) {
			t.Errorf("Error rank %d thread %d msg %q", e.Rank, e.Thread, e.Msg)
		}
		if !strings.HasPrefix(err.Error(), fmt.Sprintf("rank 1 thread %d: panic", tid)) {
			t.Errorf("error text %q", firstLine(err.Error()))
		}
		if took > prompt {
			t.Errorf("Run took %v", took)
		}
	})
	t.Run("parallel", func(t *testing.T) {
		err := commlib.Run(1, func(c *commlib.Comm) {
			c.Parallel(3, func(tid int) {
				if tid == 2 {
					panic("parallel thread")
				}
			})
		})
		var e *commlib.Error
		if !errors.As(err, &e) {
			t.Fatalf("got %v, want a *commlib.Error", err)
		}
		if e.Rank != 0 || e.Thread != 3 || e.Msg != "panic: parallel thread" {
			t.Errorf("got %q (Thread %d), want rank 0, Thread 3 (tid 2)", firstLine(err.Error()), e.Thread)
		}
	})
}

func TestMisuseInPoolThreadNamesTheThread(t *testing.T) {
	// Error.Thread is documented as "0 for the rank's main thread, 1+tid for
	// a pool thread"; a misuse inside a pool task must name the thread.
	err := commlib.Run(1, func(c *commlib.Comm) {
		m := c.NewMutex()
		p := c.NewPool(1)
		p.SetTask(func(tid int) float64 {
			m.Unlock() // @site:pool-unlock
			return 0
		})
		p.WaitForAll()
	})
	e := wantError(t, err, 0, "Mutex.Unlock", site(t, "pool-unlock"), "not locked")
	if e.Thread != 1 {
		t.Errorf("a misuse in pool thread 0 is reported with Error.Thread = %d, want 1: %q", e.Thread, firstLine(err.Error()))
	}
}

func TestAbort(t *testing.T) {
	cause := errors.New("bad input")
	err, took := timedRun(commlib.Config{NP: 3}, func(c *commlib.Comm) {
		switch c.Rank() {
		case 1:
			c.Abort(cause) // @site:abort
		case 0:
			c.Recv(make([]int, 1), 1, 0) // blocked: unwinds
		default:
			c.Barrier()
		}
	})
	var ae *commlib.AbortError
	if !errors.As(err, &ae) {
		t.Fatalf("got %v (%T), want a *commlib.AbortError", err, err)
	}
	if ae.Rank != 1 || ae.Site != site(t, "abort") || ae.Err != cause {
		t.Errorf("AbortError %+v, want rank 1 at %s with the cause", ae, site(t, "abort"))
	}
	if !errors.Is(err, cause) {
		t.Error("errors.Is(err, cause) = false: AbortError must unwrap to the cause")
	}
	text := err.Error()
	for _, want := range []string{"rank 1 aborted the run", shortName(site(t, "abort")), "bad input"} {
		if !strings.Contains(text, want) {
			t.Errorf("error text %q does not contain %q", text, want)
		}
	}
	if took > prompt {
		t.Errorf("Run took %v", took)
	}

	// Abort(nil) still aborts, with a default cause.
	err = commlib.Run(1, func(c *commlib.Comm) { c.Abort(nil) })
	if !errors.As(err, &ae) || ae.Err == nil || ae.Err.Error() != "aborted" {
		t.Errorf("Abort(nil): %v", err)
	}
}

func TestFirstFailureWins(t *testing.T) {
	// Every rank fails; Run returns one of the failures, not a deadlock or a
	// combination, and all ranks are gone.
	err, took := timedRun(commlib.Config{NP: 8}, func(c *commlib.Comm) {
		c.Send([]int{1}, 100+c.Rank(), 0) // @site:all-fail
	})
	e := wantError(t, err, -1, "Send", site(t, "all-fail"), "invalid destination rank")
	if !strings.Contains(e.Msg, fmt.Sprintf("rank %d", 100+e.Rank)) {
		t.Errorf("message %q is not the one of rank %d", e.Msg, e.Rank)
	}
	if took > prompt {
		t.Errorf("Run took %v", took)
	}
}
