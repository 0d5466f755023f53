package estimator

import (
	"strings"
	"testing"

	"github.com/predict-tools/predict/interp"
	"github.com/predict-tools/predict/trace"
)

// TestSwitchCases profiles the corpus's pic (class S, np 2), whose
// particles leave a rank by the cases of a switch without a tag
// (plasma.go:157, case p.owns(q.x); :159, case q.v > 0): both decisions
// are recorded per rank, every particle of every step tested by the first,
// and the prediction sends the particles the recorded outcomes send, not
// every particle (unrecorded, the cases read false: a 3 MiB Sendrecv a
// step at class W): at np = 1 those of the record at np = 1, and at
// np = 4 more than none (the share of particles a rank owns falls with
// np, replays.go).
func TestSwitchCases(t *testing.T) {
	args := []string{"-class", "S"}
	prog, p, m := profileCorpus(t, "pic", args)
	outcomes := map[string][2]int64{} // line → true, false over the ranks
	for _, d := range p.Decisions {
		for _, line := range []string{"plasma.go:157:", "plasma.go:159:"} {
			if strings.Contains(d.Pos, line) {
				for _, r := range d.Ranks {
					o := outcomes[line]
					outcomes[line] = [2]int64{o[0] + r.True, o[1] + r.False}
				}
			}
		}
	}
	owns, right := outcomes["plasma.go:157:"], outcomes["plasma.go:159:"]
	if owns[0] == 0 || owns[1] == 0 || right[0]+right[1] != owns[1] {
		t.Fatalf("case outcomes: owns %v (true, false), moving right %v: want both outcomes of owns recorded, and the second case tested for every particle the first did not keep", owns, right)
	}
	largest := func(np int) int64 {
		var largest int64
		if _, err := prog.Run(interp.Config{NP: np, Machine: m, Profile: p, Args: args, Trace: func(e trace.Event) {
			if e.Kind == trace.KindOp && e.Op == "Sendrecv" && strings.Contains(e.Site, "plasma.go:174") {
				largest = max(largest, e.Bytes)
			}
		}}); err != nil {
			t.Fatal(err)
		}
		return largest
	}
	// A step moves the particles that crossed a boundary: the recorded
	// steps moved owns' false outcomes over their entries.
	var owns1 int64 // at np = 1
	if len(p.Replays) != 1 || p.Replays[0].NP != 1 {
		t.Fatalf("want one record at np=1, got %+v", p.Replays)
	}
	for _, d := range p.Replays[0].Decisions {
		if strings.Contains(d.Pos, "plasma.go:157:") {
			for _, r := range d.Ranks {
				owns1 += r.False
			}
		}
	}
	if got, moved := largest(1), owns1*3*8; got > moved || (moved > 0) != (got > 0) {
		t.Errorf("np=1: largest particle Sendrecv %d bytes, want between 1 and the %d bytes all recorded steps moved at np=1 (0 if none)", got, moved)
	}
	if got := largest(4); got <= 0 {
		t.Errorf("np=4: largest particle Sendrecv %d bytes, want some", got)
	}
}
