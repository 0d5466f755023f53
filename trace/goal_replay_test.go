// This file defines a LogGOPS replayer of GOAL schedules for tests and
// measurements: LogGOPSim's model of eager messages without network
// congestion (a CPU charged o + (s-1)·O per send and receive, a NIC gap
// g + (s-1)·G between injections, arrival o + L + (s-1)·G after the send
// starts), for comparing a replayed schedule with the prediction.

package trace

import (
	"container/heap"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

type logGOPS struct{ L, o, g, G, O int64 }

type replayEvent struct {
	t         int64
	rank, op  int
	arrival   bool // a message arriving at rank from op's sender
	src       int
	tag       int64
	size      uint64
	seq       int64
	matchDone bool // a receive whose message is there: complete it
}

type replayQueue []replayEvent

func (q replayQueue) Len() int { return len(q) }
func (q replayQueue) Less(i, j int) bool {
	if q[i].t != q[j].t {
		return q[i].t < q[j].t
	}
	return q[i].seq < q[j].seq
}
func (q replayQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *replayQueue) Push(x any)   { *q = append(*q, x.(replayEvent)) }
func (q *replayQueue) Pop() (x any) { x, *q = (*q)[len(*q)-1], (*q)[:len(*q)-1]; return }

// replayLogGOPS returns the time the last operation of s completes.
func replayLogGOPS(s *GOALSchedule, p logGOPS) (int64, error) {
	n := len(s.Ranks)
	type opState struct {
		pending     int // dependencies not resolved
		ready       int64
		start, done int64
	}
	state := make([][]opState, n)
	needs := make([][][]int, n)  // op -> ops that require it
	ineeds := make([][][]int, n) // op -> ops that irequire it
	cpu, nic := make([]int64, n), make([]int64, n)
	q := &replayQueue{}
	var seq int64
	push := func(e replayEvent) { seq++; e.seq = seq; heap.Push(q, e) }
	for r, ops := range s.Ranks {
		state[r] = make([]opState, len(ops))
		needs[r], ineeds[r] = make([][]int, len(ops)), make([][]int, len(ops))
		for i, op := range ops {
			state[r][i].pending = len(op.Requires) + len(op.IRequires)
			for _, d := range op.Requires {
				needs[r][d] = append(needs[r][d], i)
			}
			for _, d := range op.IRequires {
				ineeds[r][d] = append(ineeds[r][d], i)
			}
			if state[r][i].pending == 0 {
				push(replayEvent{rank: r, op: i})
			}
		}
	}
	resolve := func(r int, list []int, t int64) {
		for _, i := range list {
			st := &state[r][i]
			st.ready = max(st.ready, t)
			if st.pending--; st.pending == 0 {
				push(replayEvent{t: st.ready, rank: r, op: i})
			}
		}
	}
	type arrived struct {
		src  int
		tag  int64
		size uint64
		t    int64
	}
	unexpected := make([][]arrived, n)
	posted := make([][]int, n)
	finish, completed := int64(0), 0
	done := func(r, i int, start, end int64) {
		state[r][i].start, state[r][i].done = start, end
		finish = max(finish, end)
		completed++
		resolve(r, ineeds[r][i], start)
		resolve(r, needs[r][i], end)
	}
	matches := func(op GOALOp, src int, tag int64) bool {
		return (op.Peer == -1 || op.Peer == src) && (op.Tag == -1 || op.Tag == tag)
	}
	for q.Len() > 0 {
		e := heap.Pop(q).(replayEvent)
		r := e.rank
		switch {
		case e.arrival:
			k := -1
			for j, i := range posted[r] {
				if matches(s.Ranks[r][i], e.src, e.tag) {
					k = j
					break
				}
			}
			if k < 0 {
				unexpected[r] = append(unexpected[r], arrived{e.src, e.tag, e.size, e.t})
				continue
			}
			i := posted[r][k]
			posted[r] = append(posted[r][:k], posted[r][k+1:]...)
			push(replayEvent{t: e.t, rank: r, op: i, matchDone: true, size: e.size})
		case e.matchDone:
			start := max(e.t, cpu[r])
			cpu[r] = start + p.o + int64(e.size-1)*p.O
			done(r, e.op, state[r][e.op].ready, cpu[r])
		default:
			op := s.Ranks[r][e.op]
			switch op.Kind {
			case "calc":
				start := max(e.t, cpu[r])
				cpu[r] = start + int64(op.Size)
				done(r, e.op, start, cpu[r])
			case "send":
				start := max(e.t, cpu[r], nic[r])
				extra := int64(op.Size - 1)
				cpu[r] = start + p.o + extra*p.O
				nic[r] = start + p.g + extra*p.G
				push(replayEvent{t: start + p.o + p.L + extra*p.G, rank: op.Peer, arrival: true, src: r, tag: op.Tag, size: op.Size})
				done(r, e.op, start, cpu[r])
			case "recv":
				k := -1
				for j, m := range unexpected[r] {
					if matches(op, m.src, m.tag) {
						k = j
						break
					}
				}
				if k < 0 {
					posted[r] = append(posted[r], e.op)
					continue
				}
				m := unexpected[r][k]
				unexpected[r] = append(unexpected[r][:k], unexpected[r][k+1:]...)
				push(replayEvent{t: max(e.t, m.t), rank: r, op: e.op, matchDone: true, size: m.size})
			}
		}
	}
	total := 0
	for _, ops := range s.Ranks {
		total += len(ops)
	}
	if completed != total {
		return 0, fmt.Errorf("%d of %d operations never complete", total-completed, total)
	}
	return finish, nil
}

// TestReplayLogGOPS: an eager message of 101 bytes with L=1000, o=100,
// g=50, G=2, O=1 after a calc of 500 on the sender: arrival at
// 500+100+1000+200 = 1800, received at 1800+100+100 = 2000; a reply of
// 1 byte sent then arrives at 2000+100+1000 = 3100, received at 3200.
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
	if err != nil || got != 3200 {
		t.Errorf("replay: %d, %v; want 3200", got, err)
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
