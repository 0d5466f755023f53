// This file defines the tester's ranks: every rank of a commlib job (the
// in-process runtime's goroutines, or one MPI process each under a
// launcher) runs the same code; rank 0 leads, broadcasting each command
// to the others and gathering what it needs. On them: the clock sync, the
// stage runner of the slot schedule, and the samplers of ping-pongs, send
// calls and streams.

package estimator

import (
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/predict-tools/predict/commlib"
)

// calEpoch makes calNow positive (clock-sync answers use −1 as a sentinel).
var calEpoch = time.Now().Add(-time.Second)

// calNow is the tester's clock in nanoseconds: the process's monotonic
// clock (one for all the goroutines of a process; each MPI process has
// its own epoch, which the clock sync measures).
func calNow() int64 { return int64(time.Since(calEpoch)) }

// The commands rank 0 gives: cmdDone ends the others' service; the rest
// run on every rank at once.
const (
	cmdDone     = iota
	cmdSync     // [peer]: the peer's clock against rank 0's
	cmdStage    // [op, start, window, k]: a stage of launches of a self-test or a collective
	cmdPingPong // [size, n]: n round trips between ranks 0 and 1
	cmdSend     // [size, n]: n Send calls of rank 0, rank 1 waiting
	cmdStream   // [m, n]: n streams of m messages from rank 0 to rank 1
	cmdRecv     // [n]: n receives of 1 B that have arrived, on rank 1
	cmdAnnounce // [sent]: the time of this command's broadcast to the latest rank
	cmdWords    = 5
)

// Tags of the tester's messages.
const (
	tagSync = 1 + iota
	tagPing
	tagReady
	tagStream
)

// rankState is one rank's side of the tester.
type rankState struct {
	c      *commlib.Comm
	offset int64 // this rank's clock against rank 0's (global = local + offset)
	cold   bool  // the buffer policy: a pool beyond the caches, not one buffer
	bufs   *bufferPool
	meet   *bufferPool // 1 B, for the meeting after a set-up
	cmd    []int64
}

func newRankState(c *commlib.Comm, cold bool) *rankState {
	return &rankState{c: c, cold: cold, meet: newBufferPool(1, false), cmd: make([]int64, cmdWords)}
}

// buffers is the rank's message buffers of size bytes, kept while the
// size stays the same.
func (s *rankState) buffers(size int) *bufferPool {
	if s.bufs == nil || s.bufs.size != size {
		s.bufs = newBufferPool(size, s.cold)
	}
	return s.bufs
}

// coldBytes is what a cold pool spans: beyond the last-level cache of the
// machines predict runs on (MPIPerf's 8 blocks leave small messages in
// cache; seed-001 §6.4 item 17).
const coldBytes = 64 << 20

// maxColdBuffers bounds the buffers of a cold pool.
const maxColdBuffers = 1 << 16

// bufferPool gives the buffers of the messages of one size under the
// buffer policy (seed-001 §2.4): hot, the same buffer every time (in cache
// where it fits, its pages touched: what iterative programs do); cold, a
// rotation through buffers spanning coldBytes, each on cache lines of its
// own (64-byte aligned strides), so that a message's data is not in cache.
type bufferPool struct {
	slab         []byte
	size, stride int
	n, next      int
}

func newBufferPool(size int, cold bool) *bufferPool {
	p := &bufferPool{size: size, stride: (size + 63) &^ 63, n: 1}
	if cold {
		// At most maxColdBuffers buffers, spread over coldBytes even for
		// small messages (a stride of coldBytes/maxColdBuffers at least):
		// 65536 buffers of 1 B side by side would span 4 MiB, in cache.
		p.stride = max(p.stride, coldBytes/maxColdBuffers)
		p.n = max(coldBytes/p.stride, 2)
	}
	p.slab = make([]byte, p.n*p.stride)
	for i := range p.slab { // touch every page now, not in a timed call
		p.slab[i] = byte(i)
	}
	return p
}

// get returns the next buffer.
func (p *bufferPool) get() []byte {
	i := p.next
	p.next = (p.next + 1) % p.n
	return p.slab[i*p.stride : i*p.stride+p.size]
}

// command is rank 0's: it broadcasts cmd and runs it, returning its result.
func (s *rankState) command(cmd ...int64) any {
	clear(s.cmd)
	copy(s.cmd, cmd)
	s.c.Bcast(s.cmd, 0)
	if s.cmd[0] == cmdDone {
		return nil
	}
	return s.do()
}

// serve is the other ranks': they run rank 0's commands until cmdDone.
func (s *rankState) serve() {
	for {
		s.c.Bcast(s.cmd, 0)
		if s.cmd[0] == cmdDone {
			return
		}
		s.do()
	}
}

// do runs the current command on this rank; rank 0's result is the
// command's.
func (s *rankState) do() any {
	c, a := s.c, s.cmd[1:]
	switch s.cmd[0] {
	case cmdSync:
		return s.sync(int(a[0]))
	case cmdStage:
		ls := runSlots(calNow, stageOp(c, int(a[0])), a[1]-s.offset, a[2], int(a[3]))
		return gatherLaunches(c, ls)
	case cmdPingPong:
		bufs := s.buffers(int(a[0]))
		if a[1] == 0 {
			// The set-up of a size (calibrate.go): collect the garbage
			// (the previous size's buffers) between test points, not
			// during them (seed-001 §6.11), then meet, so that both
			// ranks are running when the next command comes.
			runtime.GC()
			pingPongs(c, s.meet, 1)
		}
		return pingPongs(c, bufs, int(a[1]))
	case cmdSend:
		return sendCalls(c, s.buffers(int(a[0])), int(a[1]))
	case cmdStream:
		return streamGaps(c, int(a[0]), int(a[1]))
	case cmdRecv:
		return recvCalls(c, int(a[0]))
	case cmdAnnounce:
		return s.announced(a[0])
	}
	panic(fmt.Sprintf("calibrate: unknown command %d", s.cmd[0]))
}

// announced is one sample of a command's announcement, as a stage's is
// announced: the time from rank 0's clock when it broadcast the command
// (sent, in it) to each rank's receipt, on the global clock; rank 0 gets
// the latest rank's, ns (the others nil).
func (s *rankState) announced(sent int64) any {
	d := []int64{0}
	if s.c.Rank() != 0 {
		d[0] = calNow() + s.offset - sent
	}
	var all []int64
	if s.c.Rank() == 0 {
		all = make([]int64, s.c.Size())
	}
	s.c.Gather(d, all, 0)
	if s.c.Rank() != 0 {
		return nil
	}
	return float64(slices.Max(all))
}

// stageOp is rank c's operation i of the slot stages: the self-tests,
// then the collectives.
func stageOp(c *commlib.Comm, i int) func(int) {
	if i < len(selfTestNames) {
		return waitOps(calNow, c.Rank())[selfTestNames[i]]
	}
	return collectiveOp(c, i-len(selfTestNames))
}

// sync measures peer's clock against rank 0's: rank 0 answers, peer
// measures (and keeps its offset), then tells rank 0.
func (s *rankState) sync(peer int) any {
	c := s.c
	buf := make([]int64, 3)
	switch c.Rank() {
	case 0:
		for {
			c.Recv(buf[:1], peer, tagSync)
			if buf[0] < 0 {
				break
			}
			buf[0] = calNow()
			c.Send(buf[:1], peer, tagSync)
		}
		c.Recv(buf, peer, tagSync)
		if buf[1] < 0 {
			return fmt.Errorf("rank %d: clock sync found no round trip", peer)
		}
		return ClockOffset{Offset: buf[0], RTT: buf[1], Exchanges: int(buf[2])}
	case peer:
		off, err := syncClock(&commExchanger{c, make([]int64, 1)}, syncPatience)
		c.Send([]int64{-1}, 0, tagSync)
		if err != nil {
			off.RTT = -1
		}
		s.offset = off.Offset
		c.Send([]int64{off.Offset, off.RTT, int64(off.Exchanges)}, 0, tagSync)
	}
	return nil
}

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

// gatherLaunches gathers every rank's launches at rank 0 (by rank), four
// words a launch; the others get nil.
func gatherLaunches(c *commlib.Comm, ls []launch) [][]launch {
	send := make([]int64, 0, 4*len(ls))
	for _, l := range ls {
		late := int64(0)
		if l.Late {
			late = 1
		}
		send = append(send, l.Slot, l.Start, l.End, late)
	}
	var all []int64
	if c.Rank() == 0 {
		all = make([]int64, c.Size()*len(send))
	}
	c.Gather(send, all, 0)
	if c.Rank() != 0 {
		return nil
	}
	out := make([][]launch, c.Size())
	for r := range out {
		for i := range ls {
			w := all[(r*len(ls)+i)*4:]
			out[r] = append(out[r], launch{Slot: w[0], Start: w[1], End: w[2], Late: w[3] == 1})
		}
	}
	return out
}

// pingPongs are n round trips between ranks 0 and 1, each with the next
// buffer of bufs and timed on rank 0: one-way times (half of each), ns.
func pingPongs(c *commlib.Comm, bufs *bufferPool, n int) []float64 {
	out := make([]float64, 0, n)
	for range n {
		buf := bufs.get()
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
}

// sendCalls times n standard Sends on rank 0, each of the next buffer of
// bufs and with rank 1 about to wait for it (it said so first), ns.
func sendCalls(c *commlib.Comm, bufs *bufferPool, n int) []float64 {
	one := make([]byte, 1)
	out := make([]float64, 0, n)
	for range n {
		buf := bufs.get()
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
}

// recvCalls times n receives of 1 B on rank 1 of messages that have
// arrived (an eager Send has queued its message at
// the receiver when it returns, so once the marker sent after a batch is
// in, the batch is there) and sends the times to rank 0, ns.
func recvCalls(c *commlib.Comm, n int) []float64 {
	const batch = 50
	one := make([]byte, 1)
	out := make([]float64, 0, n)
	for len(out) < n {
		k := min(batch, n-len(out))
		switch c.Rank() {
		case 0:
			for range k {
				c.Send(one, 1, tagPing)
			}
			c.Send(one, 1, tagReady)
			out = append(out, make([]float64, k)...)
		case 1:
			c.Recv(one, 0, tagReady)
			for range k {
				t0 := calNow()
				c.Recv(one, 0, tagPing)
				out = append(out, float64(calNow()-t0))
			}
		default:
			return nil
		}
	}
	switch c.Rank() {
	case 0:
		c.Recv(out, 1, tagReady)
	case 1:
		c.Send(out, 0, tagReady)
	}
	return out
}

// streamGaps are n samples of the gap per message g (throughput-derived,
// seed-001 §6.8): the time per message of a stream of m sends of 1 B on
// rank 0, rank 1 receiving them as they come and acknowledging the end
// (outside the timed part).
func streamGaps(c *commlib.Comm, m, n int) []float64 {
	one := make([]byte, 1)
	out := make([]float64, 0, n)
	for range n {
		switch c.Rank() {
		case 0:
			t0 := calNow()
			for range m {
				c.Send(one, 1, tagStream)
			}
			out = append(out, float64(calNow()-t0)/float64(m))
			c.Recv(one, 1, tagReady)
		case 1:
			for range m {
				c.Recv(one, 0, tagStream)
			}
			c.Send(one, 0, tagReady)
		}
	}
	return out
}

// leader is rank 0's handle on the job's ranks.
type leader struct{ s *rankState }

func (l leader) np() int { return l.s.c.Size() }

// syncClocks estimates every rank's offset against rank 0, one rank after
// the other (MPIPerf's linear scheme). Rank 0's is 0.
func (l leader) syncClocks() ([]ClockOffset, error) {
	out := make([]ClockOffset, l.np())
	for peer := 1; peer < l.np(); peer++ {
		switch v := l.s.command(cmdSync, int64(peer)).(type) {
		case error:
			return nil, v
		case ClockOffset:
			out[peer] = v
		}
	}
	return out, nil
}

func (l leader) pingPongs(size, n int) ([]float64, error) {
	return l.s.command(cmdPingPong, int64(size), int64(n)).([]float64), nil
}

// pingPongSamples are n one-way times of a batch of n+1 round trips, the
// first left out: rank 1 comes to it from the command's broadcast (it may
// have parked there, and it wakes up during that round trip), not from a
// round trip before, as in the others.
func (l leader) pingPongSamples(size, n int) ([]float64, error) {
	xs, err := l.pingPongs(size, n+1)
	if err != nil {
		return nil, err
	}
	return xs[1:], nil
}

// announcements are n samples of the time a command takes to reach the
// latest rank (announced), ns.
func (l leader) announcements(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = l.s.command(cmdAnnounce, calNow()).(float64)
	}
	return out
}

func (l leader) sendCalls(size, n int) ([]float64, error) {
	return l.s.command(cmdSend, int64(size), int64(n)).([]float64), nil
}

func (l leader) recvCalls(n int) ([]float64, error) {
	return l.s.command(cmdRecv, int64(n)).([]float64), nil
}

func (l leader) streamGaps(m, n int) ([]float64, error) {
	return l.s.command(cmdStream, int64(m), int64(n)).([]float64), nil
}

// leaderStage runs a self-test's stages on the ranks (each rank starts at
// the global start less its own offset, which it measured).
type leaderStage struct {
	l  leader
	op int // index in selfTestNames, then in CalibrationCollectives
}

func (s leaderStage) ranks() int { return s.l.np() }
func (s leaderStage) now() int64 { return calNow() }

func (s leaderStage) stage(start int64, _ []int64, window int64, k int) ([][]launch, error) {
	return s.l.s.command(cmdStage, int64(s.op), start, window, int64(k)).([][]launch), nil
}
