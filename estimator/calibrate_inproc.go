// This file defines the tester of the in-process runtime: ranks of one
// commlib.Run that stay up between measurements and run what they are
// given, the stage runner of the slot schedule on them, the clock sync,
// and the samplers of ping-pongs, send calls and streams.

package estimator

import (
	"fmt"
	"time"

	"github.com/predict-tools/predict/commlib"
)

// calEpoch makes calNow positive (clock-sync answers use −1 as a sentinel).
var calEpoch = time.Now().Add(-time.Second)

// calNow is the tester's clock in nanoseconds: the monotonic clock that
// the goroutines of the process share.
func calNow() int64 { return int64(time.Since(calEpoch)) }

// inprocRanks are np ranks of one commlib.Run, each running the functions
// sent to it and answering with their results.
type inprocRanks struct {
	np      int
	cmds    []chan func(*commlib.Comm) any
	answers chan rankAnswer
	done    chan error
	bufs    [][]byte // each rank's message buffer, kept between batches
}

type rankAnswer struct {
	rank int
	v    any
}

func startInproc(np int) *inprocRanks {
	w := &inprocRanks{np: np, cmds: make([]chan func(*commlib.Comm) any, np), answers: make(chan rankAnswer, np), done: make(chan error, 1),
		bufs: make([][]byte, np)}
	for r := range w.cmds {
		w.cmds[r] = make(chan func(*commlib.Comm) any, 1)
	}
	go func() {
		w.done <- commlib.RunWith(commlib.Config{NP: np, DeadlockGrace: 10 * time.Second}, func(c *commlib.Comm) {
			for f := range w.cmds[c.Rank()] {
				w.answers <- rankAnswer{c.Rank(), f(c)}
			}
		})
	}()
	return w
}

// all runs f on every rank and returns their results by rank.
func (w *inprocRanks) all(f func(c *commlib.Comm) any) ([]any, error) {
	for _, ch := range w.cmds {
		ch <- f
	}
	out := make([]any, w.np)
	for range w.np {
		select {
		case a := <-w.answers:
			out[a.rank] = a.v
		case err := <-w.done:
			w.done <- err
			return nil, fmt.Errorf("the in-process runtime stopped: %v", err)
		}
	}
	return out, nil
}

func (w *inprocRanks) close() error {
	for _, ch := range w.cmds {
		close(ch)
	}
	return <-w.done
}

// Tags of the tester's messages.
const (
	tagSync = 1 + iota
	tagPing
	tagReady
	tagStream
)

// commExchanger is a rank's clock-sync partner, rank 0, over commlib.
type commExchanger struct {
	c   *commlib.Comm
	buf []int64
}

func (x *commExchanger) exchange() (int64, int64, int64, error) {
	sent := calNow()
	x.buf[0] = sent
	x.c.Send(x.buf, 0, tagSync)
	x.c.Recv(x.buf, 0, tagSync)
	return sent, x.buf[0], calNow(), nil
}

// syncClocks estimates every rank's offset against rank 0, one rank after
// the other (MPIPerf's linear scheme). Rank 0's is 0.
func (w *inprocRanks) syncClocks() ([]ClockOffset, error) {
	out := make([]ClockOffset, w.np)
	for peer := 1; peer < w.np; peer++ {
		res, err := w.all(func(c *commlib.Comm) any {
			buf := make([]int64, 1)
			switch c.Rank() {
			case 0:
				for {
					c.Recv(buf, peer, tagSync)
					if buf[0] < 0 {
						return nil
					}
					buf[0] = calNow()
					c.Send(buf, peer, tagSync)
				}
			case peer:
				off, err := syncClock(&commExchanger{c, buf}, syncPatience)
				buf[0] = -1
				c.Send(buf, 0, tagSync)
				if err != nil {
					return err
				}
				return off
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		switch v := res[peer].(type) {
		case error:
			return nil, fmt.Errorf("rank %d: %v", peer, v)
		case ClockOffset:
			out[peer] = v
		}
	}
	return out, nil
}

// inprocStage runs an operation in slots on the ranks: op(c) returns the
// function that launch l calls on c's rank.
type inprocStage struct {
	w  *inprocRanks
	op func(c *commlib.Comm) func(l int)
}

func (s inprocStage) ranks() int { return s.w.np }
func (s inprocStage) now() int64 { return calNow() }

func (s inprocStage) stage(start int64, offsets []int64, window int64, k int) ([][]launch, error) {
	res, err := s.w.all(func(c *commlib.Comm) any {
		return runSlots(calNow, s.op(c), start-offsets[c.Rank()], window, k)
	})
	if err != nil {
		return nil, err
	}
	out := make([][]launch, len(res))
	for r, v := range res {
		out[r] = v.([]launch)
	}
	return out, nil
}

// buffer is rank's message buffer of size bytes: the same one for every
// batch at a size (hot: in cache where it fits, its pages touched), a new
// one when the size changes. Only rank's goroutine calls it.
func (w *inprocRanks) buffer(rank, size int) []byte {
	if len(w.bufs[rank]) != size {
		w.bufs[rank] = make([]byte, size)
	}
	return w.bufs[rank]
}

// rank0 runs f on every rank and returns rank 0's []float64.
func (w *inprocRanks) rank0(f func(c *commlib.Comm) any) ([]float64, error) {
	res, err := w.all(f)
	if err != nil {
		return nil, err
	}
	return res[0].([]float64), nil
}

// pingPongs are n round trips of buf between ranks 0 and 1, each timed on
// rank 0: one-way times (half of each), ns.
func (w *inprocRanks) pingPongs(size, n int) ([]float64, error) {
	return w.rank0(func(c *commlib.Comm) any {
		buf := w.buffer(c.Rank(), size)
		out := make([]float64, 0, n)
		for range n {
			switch c.Rank() {
			case 0:
				t0 := calNow()
				c.Send(buf, 1, tagPing)
				c.Recv(buf, 1, tagPing)
				out = append(out, float64(calNow()-t0)/2)
			case 1:
				c.Recv(buf, 0, tagPing)
				c.Send(buf, 0, tagPing)
			}
		}
		return out
	})
}

// sendCalls times n standard Sends of size bytes on rank 0, each with
// rank 1 about to wait for it (it said so first), ns.
func (w *inprocRanks) sendCalls(size, n int) ([]float64, error) {
	return w.rank0(func(c *commlib.Comm) any {
		buf, one := w.buffer(c.Rank(), size), make([]byte, 1)
		out := make([]float64, 0, n)
		for range n {
			switch c.Rank() {
			case 0:
				c.Recv(one, 1, tagReady)
				t0 := calNow()
				c.Send(buf, 1, tagPing)
				out = append(out, float64(calNow()-t0))
			case 1:
				c.Send(one, 0, tagReady)
				c.Recv(buf, 0, tagPing)
			}
		}
		return out
	})
}

// streamGaps are n samples of the gap per message g (throughput-derived,
// seed-001 §6.8): the time per message of a stream of m sends of 1 B on
// rank 0, rank 1 receiving them as they come and acknowledging the end
// (outside the timed part), as MeasureLocal measures it.
func (w *inprocRanks) streamGaps(m, n int) ([]float64, error) {
	return w.rank0(func(c *commlib.Comm) any {
		one := make([]byte, 1)
		out := make([]float64, 0, n)
		for range n {
			if c.Rank() == 0 {
				t0 := calNow()
				for range m {
					c.Send(one, 1, tagStream)
				}
				out = append(out, float64(calNow()-t0)/float64(m))
				c.Recv(one, 1, tagReady)
			} else if c.Rank() == 1 {
				for range m {
					c.Recv(one, 0, tagStream)
				}
				c.Send(one, 0, tagReady)
			}
		}
		return out
	})
}
