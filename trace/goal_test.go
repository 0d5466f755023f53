package trace

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// replayGOAL runs a schedule with eager messages and no costs, as a check
// that LogGOPSim can complete it: an operation starts once everything it
// requires has completed and everything it irequires has started; sends
// complete at once, receives when a message from their source (or any)
// with their tag (or any) is there, in arrival order, and the sizes match.
// It returns the number of messages.
func replayGOAL(s *GOALSchedule) (int, error) {
	type msg struct {
		src, dst int
		tag      int64
		size     uint64
	}
	started := make([][]bool, len(s.Ranks))
	done := make([][]bool, len(s.Ranks))
	for r, ops := range s.Ranks {
		started[r], done[r] = make([]bool, len(ops)), make([]bool, len(ops))
	}
	var queue []msg
	posted := make([][]int, len(s.Ranks))
	messages := 0
	for changed := true; changed; {
		changed = false
		for r, ops := range s.Ranks {
		next:
			for i, op := range ops {
				if started[r][i] {
					continue
				}
				for _, d := range op.Requires {
					if !done[r][d] {
						continue next
					}
				}
				for _, d := range op.IRequires {
					if !started[r][d] {
						continue next
					}
				}
				started[r][i], changed = true, true
				switch op.Kind {
				case "calc":
					done[r][i] = true
				case "send":
					done[r][i] = true
					queue = append(queue, msg{r, op.Peer, op.Tag, op.Size})
					messages++
				case "recv":
					posted[r] = append(posted[r], i)
				}
			}
		}
		for r := range s.Ranks {
			for k := 0; k < len(posted[r]); k++ {
				op := s.Ranks[r][posted[r][k]]
				for q, m := range queue {
					if m.dst == r && (op.Peer == -1 || m.src == op.Peer) && (op.Tag == -1 || m.tag == op.Tag) {
						if m.size != op.Size {
							return 0, fmt.Errorf("rank %d line %d: recv %db from %d tag %d matches a message of %db",
								r, op.Line, op.Size, m.src, m.tag, m.size)
						}
						queue = append(queue[:q], queue[q+1:]...)
						done[r][posted[r][k]] = true
						posted[r] = append(posted[r][:k], posted[r][k+1:]...)
						k--
						changed = true
						break
					}
				}
			}
		}
	}
	for r, ops := range s.Ranks {
		for i, op := range ops {
			if !done[r][i] {
				return 0, fmt.Errorf("rank %d line %d: %s %d peer %d tag %d never completes", r, op.Line, op.Kind, op.Size, op.Peer, op.Tag)
			}
		}
	}
	if len(queue) > 0 {
		return 0, fmt.Errorf("%d messages never received, the first %+v", len(queue), queue[0])
	}
	return messages, nil
}

// goalTrace has blocking, nonblocking and Sendrecv messages, an Allreduce
// and a pool thread, on two ranks.
func goalTrace() (Header, []Event) {
	send := ev(0, "Send", 1000, 3000, 1)
	send.Peer, send.Tag, send.Bytes, send.Message, send.Protocol = 1, 5, 8, 1, "eager"
	isend := ev(0, "Isend", 5000, 5000, 2)
	isend.Exit += 400
	isend.Peer, isend.Message, isend.Request, isend.Protocol = 1, 2, 3, "eager"
	ar0 := ev(0, "Allreduce", 6000, 8000, 3)
	ar0.Bytes, ar0.Collective = 8, 9
	sr0s := ev(0, "Sendrecv", 9000, 9500, 4)
	sr0s.Peer, sr0s.Tag, sr0s.Bytes, sr0s.Message, sr0s.Protocol = 1, 1, 16, 3, "eager"
	sr0r := ev(0, "Sendrecv", 9000, 9500, 5)
	sr0r.Peer, sr0r.Tag, sr0r.Bytes, sr0r.Message = 1, 1, 16, 4
	wait0 := ev(0, "Wait", 10000, 10100, 6)
	wait0.Request = 3
	done0 := ev(0, "Isend", 10100, 10100, 7)
	done0.Kind, done0.Peer, done0.Request, done0.Message, done0.Protocol = KindComplete, 1, 3, 2, "eager"

	recv := ev(1, "Recv", 500, 4000, 1)
	recv.Peer, recv.Tag, recv.Bytes, recv.Message = 0, 5, 8, 1
	irecv := ev(1, "Irecv", 4500, 4600, 2)
	irecv.Peer, irecv.Request = 0, 4
	wait1 := ev(1, "Wait", 4600, 7000, 3)
	wait1.Request = 4
	done1 := ev(1, "Irecv", 7000, 7000, 4)
	done1.Kind, done1.Peer, done1.Request, done1.Message = KindComplete, 0, 4, 2
	ar1 := ev(1, "Allreduce", 7100, 8000, 5)
	ar1.Bytes, ar1.Collective = 8, 9
	sr1s := ev(1, "Sendrecv", 8500, 9600, 6)
	sr1s.Peer, sr1s.Tag, sr1s.Bytes, sr1s.Message, sr1s.Protocol = 0, 1, 16, 4, "eager"
	sr1r := ev(1, "Sendrecv", 8500, 9600, 7)
	sr1r.Peer, sr1r.Tag, sr1r.Bytes, sr1r.Message = 0, 1, 16, 3
	lock := ev(1, "Mutex.Lock", 2000, 2500, 8)
	lock.Thread, lock.Object = 1, 7
	return Header{NP: 2, Source: "interp", Clock: "virtual"},
		[]Event{send, isend, ar0, sr0s, sr0r, wait0, done0, recv, irecv, wait1, done1, ar1, sr1s, sr1r, lock}
}

func TestGOALSchedule(t *testing.T) {
	h, events := goalTrace()
	var buf bytes.Buffer
	if err := WriteGOAL(&buf, h, events); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	_, body, ok := strings.Cut(out, "num_ranks 2\n")
	if !ok {
		t.Fatalf("no num_ranks line in\n%s", out)
	}
	const want = `
rank 0 {
l1: calc 1000
l2: send 8b to 1 tag 5
l2 requires l1
l3: calc 2000
l3 requires l2
l4: send 1b to 1 tag 0
l4 requires l3
l5: calc 1000
l5 irequires l4
l6: send 8b to 1 tag 2147483648
l6 requires l5
l7: recv 8b from 1 tag 2147483648
l7 requires l5
l8: calc 1000
l8 requires l6
l8 requires l7
l9: send 16b to 1 tag 1
l9 requires l8
l10: recv 16b from 1 tag 1
l10 requires l8
l11: calc 500
l11 requires l9
l11 requires l10
l12: calc 0
l12 requires l11
l12 requires l4
}

rank 1 {
l1: calc 500
l2: recv 8b from 0 tag 5
l2 requires l1
l3: calc 500
l3 requires l2
l4: recv 1b from 0 tag 0
l4 requires l3
l5: calc 0
l5 irequires l4
l5 requires l4
l6: calc 100
l6 requires l5
l7: send 8b to 0 tag 2147483648
l7 requires l6
l8: recv 8b from 0 tag 2147483648
l8 requires l6
l9: calc 500
l9 requires l7
l9 requires l8
l10: send 16b to 0 tag 1
l10 requires l9
l11: recv 16b from 0 tag 1
l11 requires l9
}
`
	if body != want {
		t.Errorf("schedule:\n%s\nwant\n%s", body, want)
	}
	for _, line := range []string{
		"// Approximations: 1 of 1 collective instances expanded; 0 collective calls not expanded",
		"// 1 events of pool threads are not written",
		"; 0 point-to-point calls whose message lacks an end in the trace are calc.",
		"//   Allreduce: recursive-doubling, 1 instances (default (no machine given))\n",
		"// Time unit: nanoseconds.",
	} {
		if !strings.Contains(out, line) {
			t.Errorf("header lacks %q:\n%s", line, out)
		}
	}
	s, err := ReadGOAL(strings.NewReader(out), "small.goal")
	if err != nil {
		t.Fatal(err)
	}
	if n, err := replayGOAL(s); err != nil || n != 6 {
		t.Errorf("replay: %d messages, %v; want 6", n, err)
	}
}

// TestGOALApproximations: a collective whose instance is incomplete, and a
// message without its receive, become calc and are said so.
func TestGOALApproximations(t *testing.T) {
	bar := ev(0, "Barrier", 1000, 2000, 1)
	bar.Collective = 4
	send := ev(0, "Send", 3000, 3500, 2)
	send.Peer, send.Message, send.Protocol = 1, 1, "eager"
	var buf bytes.Buffer
	if err := WriteGOAL(&buf, Header{NP: 2}, []Event{bar, send}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, line := range []string{
		"// Approximations: 0 of 1 collective instances expanded; 1 collective calls not expanded",
		"0 events of pool threads are not written (their rank's main thread waits for them in calc); 1 point-to-point calls whose message lacks an end",
		"rank 0 {\n// Barrier (collective 4) not expanded (unknown operation or incomplete in the trace): calc of its duration\nl1: calc 3500\n}\n",
		"rank 1 {\n}\n",
	} {
		if !strings.Contains(out, line) {
			t.Errorf("output lacks %q:\n%s", line, out)
		}
	}
	if _, err := ReadGOAL(strings.NewReader(out), "a.goal"); err != nil {
		t.Error(err)
	}
}

func TestGOALRealTraces(t *testing.T) {
	for name, tr := range realTraces(t) {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteGOAL(&buf, tr.h, tr.events); err != nil {
				t.Fatal(err)
			}
			s, err := ReadGOAL(bytes.NewReader(buf.Bytes()), name)
			if err != nil {
				t.Fatalf("%v\n%s", err, buf.String())
			}
			if s.NumRanks != tr.h.NP || len(s.Ranks) != tr.h.NP {
				t.Errorf("%d ranks, want %d", s.NumRanks, tr.h.NP)
			}
			n, err := replayGOAL(s)
			if err != nil {
				t.Fatal(err)
			}
			// Every message of the trace's main threads is there, plus those of
			// the collectives.
			x := newIndex(tr.events)
			p2p := 0
			for id := range x.msgs {
				if s, _, ok := x.message(id); ok && tr.events[s].Thread == 0 {
					p2p++
				}
			}
			if n < p2p {
				t.Errorf("%d messages, want at least the trace's %d", n, p2p)
			}
			if strings.Contains(buf.String(), "): calc of its duration") {
				t.Errorf("a collective of a complete real trace was not expanded")
			}
		})
	}
}

// TestCollRounds replays every collective with every algorithm for 1 to
// 9 participants and every root: each must complete with matching sizes.
func TestCollRounds(t *testing.T) {
	for op := range defaultAlgorithms {
		for _, alg := range collAlgorithmNames {
			for n := 1; n <= 9; n++ {
				for root := range n {
					bytes := make([]int64, n)
					for j := range bytes {
						bytes[j] = int64(8*(j+1)) * int64(n)
					}
					msgs := replayRounds(t, op, alg, n, root, bytes)
					if want := map[string]int{"Bcast binomial": n - 1, "Reduce binomial": n - 1, "Allreduce binomial": 2 * (n - 1),
						"Gather linear": n - 1, "Scatter linear": n - 1, "Allgather ring": n * (n - 1), "Alltoall pairwise": n * (n - 1),
					}[op+" "+alg]; want > 0 && msgs != want {
						t.Errorf("%s %s n=%d root=%d: %d messages, want %d", op, alg, n, root, msgs, want)
					}
				}
			}
		}
	}
}

// replayRounds replays the rounds of every participant of a collective
// and returns the number of messages.
func replayRounds(t *testing.T, op, alg string, n, root int, bytes []int64) int {
	t.Helper()
	s := &GOALSchedule{NumRanks: n, Ranks: make([][]GOALOp, n)}
	for i := range n {
		rounds, err := CollectiveRounds(op, alg, i, n, root, bytes)
		if err != nil {
			t.Fatal(err)
		}
		var prev []int
		for _, round := range rounds {
			var this []int
			for _, m := range round {
				kind := "recv"
				if m.Send {
					kind = "send"
				}
				this = append(this, len(s.Ranks[i]))
				s.Ranks[i] = append(s.Ranks[i], GOALOp{Kind: kind, Size: uint64(goalSize(m.Size)), Peer: m.Peer, Requires: prev})
			}
			prev = this
		}
	}
	msgs, err := replayGOAL(s)
	if err != nil {
		t.Fatalf("%s %s n=%d root=%d: %v", op, alg, n, root, err)
	}
	return msgs
}

func TestReadGOAL(t *testing.T) {
	const src = `// comment
/* a block
   comment */
num_ranks 2

rank 0 {
l1: send 8b to 1 tag 3 cpu 1 nic 0
l2: calc 1500 cpu 0
l2 requires l1
recv 4b from -1 tag -1
}
rank 1 { l1: recv 8b from 0 tag 3
  l2: send 4b to 0
  l2 irequires l1
}
`
	s, err := ReadGOAL(strings.NewReader(src), "ok.goal")
	if err != nil {
		t.Fatal(err)
	}
	want := [][]GOALOp{
		{{Label: "l1", Kind: "send", Size: 8, Peer: 1, Tag: 3, CPU: 1, Line: 7},
			{Label: "l2", Kind: "calc", Size: 1500, Requires: []int{0}, Line: 8},
			{Kind: "recv", Size: 4, Peer: -1, Tag: -1, Line: 10}},
		{{Label: "l1", Kind: "recv", Size: 8, Peer: 0, Tag: 3, Line: 12},
			{Label: "l2", Kind: "send", Size: 4, Peer: 0, IRequires: []int{0}, Line: 13}},
	}
	if got, w := fmt.Sprintf("%+v", s.Ranks), fmt.Sprintf("%+v", want); got != w {
		t.Errorf("ReadGOAL:\n got %s\nwant %s", got, w)
	}
	if n, err := replayGOAL(s); err != nil || n != 2 {
		t.Errorf("replay: %d, %v", n, err)
	}

	for _, tc := range []struct{ src, want string }{
		{"", "e.goal:1: no num_ranks"},
		{"rank 0 {\n}\n", "e.goal:1: rank before num_ranks"},
		{"num_ranks 2\nrank 1 {\n}\n", "e.goal:2: rank 1, want rank 0"},
		{"num_ranks 1\nrank 0 {\n}\nrank 1 {\n}\n", "e.goal:4: rank 1, want rank 1 (ranks come in order 0..0)"},
		{"num_ranks 1\nrank 0 {\nl1: calc 5\n", "e.goal:4: end of file inside rank 0"},
		{"num_ranks 2\nrank 0 {\n}\n", "e.goal:4: 1 ranks, num_ranks is 2"},
		{"num_ranks 1\nrank 0 {\nl1: calc 5 // late comment\n}\n", `e.goal:3: unexpected "// late comment", want the end of the line`},
		{"num_ranks 1\nrank 0 {\nl1: calc 5\nl1: calc 6\n}\n", "e.goal:4: label l1 defined twice"},
		{"num_ranks 1\nrank 0 {\nl1: calc 5\nl1 requires l2\n}\n", "e.goal:4: label l2 is not defined"},
		{"num_ranks 1\nrank 0 {\nl1 requires l2\n}\n", "e.goal:3: label l1 is not defined"},
		{"num_ranks 2\nrank 0 {\nl1: send 5b to -1\n}\n", "e.goal:3: unexpected \"-1\", want a rank"},
		{"num_ranks 2\nrank 0 {\nl1: send 5b to 2\n}\n", "e.goal:3: send peer 2 outside 0..1"},
		{"num_ranks 2\nrank 0 {\nl1: send 5 to 1\n}\n", "e.goal:3: unexpected \"to 1\", want b after the size"},
		{"num_ranks 2\nrank 0 {\nl1: send 5b from 1\n}\n", "e.goal:3: send: want to"},
		{"num_ranks 2\nrank 0 {\nl1: recv 5b from 1 nic 0 tag 3\n}\n", "e.goal:3: unexpected tag in recv"},
		{"num_ranks 2\nrank 0 {\nl1: calc 5 tag 3\n}\n", "e.goal:3: unexpected tag in calc"},
		{"num_ranks 2\nrank 0 {\nl1: jump 5\n}\n", `e.goal:3: unexpected "jump 5" after l1:, want send, recv or calc`},
		{"num_ranks 1\nrank 0 {\nl1: calc 99999999999999999999\n}\n", "e.goal:3: a size 99999999999999999999: out of range"},
		{"num_ranks 1\nrank 0 {\n}\n}\n", "e.goal:4: unexpected }, outside a rank"},
		{"num_ranks 1\n/* open\n", "e.goal:2: unterminated /* comment"},
		{"num_ranks 0\n", "e.goal:1: num_ranks 0: want 1.."},
		{"num_ranks 1\nl1: calc 5\n", "e.goal:2: l1 outside a rank"},
		{"num_ranks 1\nrank 0 {\nl1: calc 5 cpu 300\n}\n", "e.goal:3: cpu 300 above 255"},
		{"num_ranks 1\nrank 0 {\n$\n}\n", `e.goal:3: unexpected "$", want a statement`},
	} {
		_, err := ReadGOAL(strings.NewReader(tc.src), "e.goal")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadGOAL(%q) = %v, want an error containing %q", tc.src, err, tc.want)
		}
	}
}

func FuzzReadGOAL(f *testing.F) {
	h, events := goalTrace()
	var buf bytes.Buffer
	if err := WriteGOAL(&buf, h, events); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.String())
	f.Add("num_ranks 1\nrank 0 {\nl1: calc 5\n}\n")
	f.Add("num_ranks 2\nrank 0 { l1: send 1b to 1 tag -1\n} rank 1 {\nrecv 1b from -1\n}")
	f.Fuzz(func(t *testing.T, src string) {
		s, err := ReadGOAL(strings.NewReader(src), "f.goal")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.goal:") {
				t.Errorf("error %q does not name the line", err)
			}
			return
		}
		if len(s.Ranks) != s.NumRanks {
			t.Errorf("%d rank lists for num_ranks %d", len(s.Ranks), s.NumRanks)
		}
	})
}
