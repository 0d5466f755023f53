// This file defines a replayer of GOAL schedules for tests and
// measurements that follows LogGOPSim's simulation loop (LogGOPSim.cpp of
// spcl/LogGOPSim, eager messages, no network model, no noise), so that a
// schedule's replayed time can be compared with the prediction where
// LogGOPSim itself is not installed.

package trace

import (
	"cmp"
	"container/heap"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

type logGOPS struct{ L, o, g, G, O int64 }

// The operation types of LogGOPSim, in its order of issue (sends, then
// receives, then local operations, of the nodes that become executable
// together).
const (
	lgSend = iota + 1
	lgRecv
	lgCalc
	lgMsg
)

type lgElem struct {
	time, ts  int64
	typ       int
	host, op  int // op: index in the host's schedule (of the receive for lgMsg: the sender's send)
	src       int // lgMsg: the sender
	tag       int64
	size      int64
	starttime int64
}

type lgQueue []lgElem

func (q lgQueue) Len() int { return len(q) }
func (q lgQueue) Less(i, j int) bool {
	if q[i].time != q[j].time {
		return q[i].time < q[j].time
	}
	return q[i].ts < q[j].ts
}
func (q lgQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *lgQueue) Push(x any)   { *q = append(*q, x.(lgElem)) }
func (q *lgQueue) Pop() (x any) { x, *q = (*q)[len(*q)-1], (*q)[:len(*q)-1]; return }

// replayLogGOPS runs s as LogGOPSim's main loop does and returns the
// largest CPU time of a host (what LogGOPSim prints as the maximum
// finishing time). As there: an operation that becomes executable starts
// at its host's next free CPU time (a send also waits for the NIC's send
// gap); a send occupies the CPU o+(s-1)·O and the NIC g+(s-1)·G, and its
// message arrives o+L after it started; an arriving message waits for
// the receiver's CPU and receive gap, then occupies the CPU o +
// max((s-1)·O, (s-1)·G) and the gap g+(s-1)·G, and completes a posted
// receive, or waits as unexpected for a receive, which then completes at
// once; dependencies are satisfied when an operation is processed.
func replayLogGOPS(s *GOALSchedule, p logGOPS) (int64, error) {
	n := len(s.Ranks)
	type node struct {
		pending          int
		issued, started  bool
		done             bool
		needs, startNeed []int
	}
	nodes := make([][]node, n)
	for r, ops := range s.Ranks {
		nodes[r] = make([]node, len(ops))
		for i, op := range ops {
			nodes[r][i].pending = len(op.Requires) + len(op.IRequires)
			for _, d := range op.Requires {
				nodes[r][d].needs = append(nodes[r][d].needs, i)
			}
			for _, d := range op.IRequires {
				nodes[r][d].startNeed = append(nodes[r][d].startNeed, i)
			}
		}
	}
	nexto, nextgs, nextgr := make([]int64, n), make([]int64, n), make([]int64, n)
	type queued struct {
		src  int
		tag  int64
		op   int
		size int64
	}
	rq, uq := make([][]queued, n), make([][]queued, n)
	q := &lgQueue{}
	var aqtime int64
	typeOf := map[string]int{"send": lgSend, "recv": lgRecv, "calc": lgCalc}
	ready := make([][]int, n) // executable, not yet issued
	markStarted := func(r, i int) {
		if nodes[r][i].started {
			return
		}
		nodes[r][i].started = true
		for _, j := range nodes[r][i].startNeed {
			if nodes[r][j].pending--; nodes[r][j].pending == 0 {
				ready[r] = append(ready[r], j)
			}
		}
	}
	completed := 0
	markDone := func(r, i int) {
		markStarted(r, i)
		nodes[r][i].done = true
		completed++
		for _, j := range nodes[r][i].needs {
			if nodes[r][j].pending--; nodes[r][j].pending == 0 {
				ready[r] = append(ready[r], j)
			}
		}
	}
	issue := func(r int, initial bool) {
		list := ready[r]
		ready[r] = nil
		slices.Sort(list)
		slices.SortStableFunc(list, func(a, b int) int { return cmp.Compare(typeOf[s.Ranks[r][a].Kind], typeOf[s.Ranks[r][b].Kind]) })
		for _, i := range list {
			op := s.Ranks[r][i]
			e := lgElem{ts: aqtime, typ: typeOf[op.Kind], host: r, op: i, src: op.Peer, tag: op.Tag, size: int64(op.Size)}
			aqtime++
			switch {
			case initial:
			case e.typ == lgSend:
				e.time = max(nexto[r], nextgs[r])
			default:
				e.time = nexto[r]
			}
			heap.Push(q, e)
		}
	}
	for r, ops := range s.Ranks {
		for i := range ops {
			if nodes[r][i].pending == 0 {
				ready[r] = append(ready[r], i)
			}
		}
		issue(r, true)
	}
	matches := func(list []queued, src int, tag int64) int {
		return slices.IndexFunc(list, func(m queued) bool {
			return (m.src == -1 || src == -1 || m.src == src) && (m.tag == -1 || tag == -1 || m.tag == tag)
		})
	}
	for q.Len() > 0 {
		e := heap.Pop(q).(lgElem)
		h := e.host
		var check []int
		switch e.typ {
		case lgCalc:
			if nexto[h] > e.time {
				e.time = nexto[h]
				heap.Push(q, e)
				break
			}
			nexto[h] = e.time + e.size
			markDone(h, e.op)
			check = append(check, h)
		case lgSend:
			if max(nexto[h], nextgs[h]) > e.time {
				e.time = max(nexto[h], nextgs[h])
				heap.Push(q, e)
				break
			}
			markStarted(h, e.op)
			nexto[h] = e.time + p.o + (e.size-1)*p.O
			nextgs[h] = e.time + p.g + (e.size-1)*p.G
			msg := lgElem{time: e.time + p.o + p.L, ts: aqtime, typ: lgMsg, host: e.src, op: e.op, src: h, tag: e.tag, size: e.size, starttime: e.time}
			aqtime++
			heap.Push(q, msg)
			markDone(h, e.op) // eager
			check = append(check, h)
		case lgRecv:
			markStarted(h, e.op)
			check = append(check, h)
			if k := matches(uq[h], e.src, e.tag); k >= 0 {
				if m := uq[h][k]; m.size != e.size {
					return 0, fmt.Errorf("rank %d line %d: recv %db matches a message of %db", h, s.Ranks[h][e.op].Line, e.size, m.size)
				}
				uq[h] = slices.Delete(uq[h], k, k+1)
				markDone(h, e.op)
			} else {
				rq[h] = append(rq[h], queued{e.src, e.tag, e.op, e.size})
			}
		case lgMsg:
			if max(nexto[h], nextgr[h]) > e.time {
				e.time = max(nexto[h], nextgr[h])
				heap.Push(q, e)
				break
			}
			nexto[h] = e.time + p.o + max((e.size-1)*p.O, (e.size-1)*p.G)
			nextgr[h] = e.time + p.g + (e.size-1)*p.G
			if k := matches(rq[h], e.src, e.tag); k >= 0 {
				m := rq[h][k]
				if m.size != e.size {
					return 0, fmt.Errorf("rank %d line %d: recv %db matches a message of %db", h, s.Ranks[h][m.op].Line, m.size, e.size)
				}
				rq[h] = slices.Delete(rq[h], k, k+1)
				markDone(h, m.op)
				check = append(check, h)
			} else {
				uq[h] = append(uq[h], queued{e.src, e.tag, -1, e.size})
			}
		}
		for _, r := range check {
			issue(r, false)
		}
	}
	total := 0
	for _, ops := range s.Ranks {
		total += len(ops)
	}
	if completed != total {
		return 0, fmt.Errorf("%d of %d operations never complete", total-completed, total)
	}
	return slices.Max(nexto), nil
}

// TestReplayLogGOPS: L=1000, o=100, g=50, G=2, O=1. Rank 0 computes 500,
// then sends 101 bytes: CPU busy until 500+100+100·1 = 700, arrival at
// 500+100+1000 = 1600, where rank 1's receive (posted at 0) takes its CPU
// until 1600+100+max(100·1, 100·2) = 1900; rank 1's reply of 1 byte
// starts at 1900, arrives at 1900+100+1000 = 3000, and rank 0's CPU ends
// at 3000+100 = 3100: the finishing time.
func TestReplayLogGOPS(t *testing.T) {
	const src = `num_ranks 2
rank 0 {
l1: calc 500
l2: send 101b to 1 tag 1
l2 requires l1
l3: recv 1b from 1 tag 2
}
rank 1 {
l1: recv 101b from 0 tag 1
l2: send 1b to 0 tag 2
l2 requires l1
}
`
	s, err := ReadGOAL(strings.NewReader(src), "pp.goal")
	if err != nil {
		t.Fatal(err)
	}
	got, err := replayLogGOPS(s, logGOPS{L: 1000, o: 100, g: 50, G: 2, O: 1})
	if err != nil || got != 3100 {
		t.Errorf("replay: %d, %v; want 3100", got, err)
	}
}

var replayLine = regexp.MustCompile(`LogGOPSim -f FILE\.bin -L (\d+) -o (\d+) -g (\d+) -G (\d+) -O (\d+)`)

// TestReplayFiles replays the GOAL files listed in PREDICT_GOAL_REPLAY
// (space-separated) with the LogGOPS parameters of their header (written
// with --machine) and prints the time the last operation completes: the
// measurement of how a predicted trace replays.
func TestReplayFiles(t *testing.T) {
	files := strings.Fields(os.Getenv("PREDICT_GOAL_REPLAY"))
	if len(files) == 0 {
		t.Skip("PREDICT_GOAL_REPLAY names no GOAL file to replay")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m := replayLine.FindStringSubmatch(string(data))
		if m == nil {
			t.Fatalf("%s: no LogGOPSim command line with parameters in the header (convert with --machine)", f)
		}
		var v [5]int64
		for i := range v {
			v[i], _ = strconv.ParseInt(m[i+1], 10, 64)
		}
		s, err := ReadGOAL(strings.NewReader(string(data)), f)
		if err != nil {
			t.Fatal(err)
		}
		end, err := replayLogGOPS(s, logGOPS{L: v[0], o: v[1], g: v[2], G: v[3], O: v[4]})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		fmt.Printf("%s\t%d\n", f, end)
	}
}
