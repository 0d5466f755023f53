// This file tests that the GOAL export of collectives
// (trace.CollectiveRounds) writes the messages the interpreter's
// schedules send, message for message, for every algorithm.

package interp

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/trace"
)

// scheduleMessages runs collective name among n members with the machine's
// choice and returns the algorithm and each member's rounds of messages as
// the schedule sent and received them.
func scheduleMessages(m *machine.Machine, name string, n, root int, bytes []int64) (machine.Algorithm, [][][]trace.CollMsg) {
	zero := func(int64) trace.Time { return 0 }
	legs := func(int64) (trace.Time, trace.Time) { return 0, 0 }
	w := &World{Compiled: &Compiled{mach: m}, nodeOf: make([]int32, n)}
	w.intra = linkCost{transferF: zero, sendOvhF: zero, recvOvhF: zero, gapF: zero, rendezvousF: legs, size: -1}
	w.inter = w.intra
	sim := &schedule{w: w, g: &group{size: n}, t: make([]int64, n), ovh: make([]int64, n)}
	byRound := make([]map[int][]trace.CollMsg, n)
	var rounds []int
	sim.record = func(round, member int, send bool, peer int, b int64) {
		if byRound[member] == nil {
			byRound[member] = map[int][]trace.CollMsg{}
		}
		if byRound[member][round] == nil {
			rounds = append(rounds, round)
		}
		byRound[member][round] = append(byRound[member][round], trace.CollMsg{Send: send, Peer: peer, Size: b})
	}
	alg := sim.run(name, root, bytes)
	slices.Sort(rounds)
	rounds = slices.Compact(rounds)
	out := make([][][]trace.CollMsg, n)
	for r := range n {
		for _, k := range rounds {
			if msgs := byRound[r][k]; msgs != nil {
				// In a round a member sends before it receives, as
				// CollectiveRounds lists them.
				slices.SortStableFunc(msgs, func(a, b trace.CollMsg) int {
					if a.Send == b.Send {
						return 0
					}
					if a.Send {
						return -1
					}
					return 1
				})
				out[r] = append(out[r], msgs)
			}
		}
	}
	return alg, out
}

// TestCollectiveRoundsMatchSchedules: for every collective, every
// algorithm the machine may choose for it, 1 to 12 members, every root and
// sizes from 0 bytes to the long-message algorithms', the GOAL export's
// messages are those the interpreter's schedule sends.
func TestCollectiveRoundsMatchSchedules(t *testing.T) {
	names := make([]string, 0, len(collSpecs))
	for name := range collSpecs {
		names = append(names, name)
	}
	slices.Sort(names)
	checked := 0
	for _, name := range names {
		algs := []machine.Algorithm{machine.Auto}
		algs = append(algs, machine.Algorithms(name)...)
		rooted := collSpecs[name].root >= 0
		for _, alg := range algs {
			m := &machine.Machine{}
			if alg != machine.Auto {
				m.Collectives = map[string]machine.Algorithm{strings.ToLower(name): alg}
			}
			for n := 1; n <= 12; n++ {
				roots := []int{-1}
				if rooted {
					roots = roots[:0]
					for r := range n {
						roots = append(roots, r)
					}
				}
				for _, root := range roots {
					for _, base := range []int64{0, 8, 3000, 100_000} {
						bytes := make([]int64, n)
						for j := range bytes {
							bytes[j] = base * int64(j%3+1)
						}
						ran, want := scheduleMessages(m, name, n, root, bytes)
						if alg != machine.Auto && !collSpecs[name].split && ran != alg {
							t.Fatalf("%s with %s: the schedule ran %s", name, alg, ran)
						}
						for i := range n {
							got, err := trace.CollectiveRounds(name, string(ran), i, n, root, bytes)
							if err != nil {
								t.Fatalf("%s %s n=%d: %v", name, ran, n, err)
							}
							if !reflect.DeepEqual(got, want[i]) {
								t.Fatalf("%s %s n=%d root=%d bytes=%v member %d:\nGOAL     %v\nschedule %v", name, ran, n, root, bytes, i,
									fmt.Sprint(got), fmt.Sprint(want[i]))
							}
						}
						checked++
					}
				}
			}
		}
	}
	t.Logf("%d collective instances matched", checked)
}

// TestCollectiveAlgorithmInTrace: a modeled trace records, on every
// collective event, the algorithm the interpreter ran, and the GOAL
// export replays with it.
func TestCollectiveAlgorithmInTrace(t *testing.T) {
	p := prepare(t, "./testprogs/cg")
	m, err := machine.Preset("local")
	if err != nil {
		t.Fatal(err)
	}
	var events []trace.Event
	if _, err := p.Run(Config{NP: 8, Machine: m, Trace: func(e trace.Event) { events = append(events, e) }}); err != nil {
		t.Fatal(err)
	}
	algs := map[string]int{}
	for _, e := range events {
		if e.Collective == 0 {
			continue
		}
		if e.Algorithm == "" {
			t.Fatalf("collective event without its algorithm: %+v", e)
		}
		algs[e.Op+" "+e.Algorithm]++
	}
	if len(algs) == 0 {
		t.Fatal("cg at np=8 made no collective")
	}
	var goal strings.Builder
	if err := trace.WriteGOAL(&goal, trace.Header{Source: "interp", NP: 8}, events); err != nil {
		t.Fatal(err)
	}
	for key := range algs {
		op, alg, _ := strings.Cut(key, " ")
		if line := fmt.Sprintf("//   %s: %s, ", op, alg); !strings.Contains(goal.String(), line+"") || !strings.Contains(goal.String(), "(recorded in the trace)") {
			t.Errorf("GOAL header lacks %q (recorded in the trace)", line)
		}
	}
}
