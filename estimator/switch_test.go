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
// and at np = 1 the prediction sends the particles the recorded outcomes
// send, not every particle (unrecorded, the cases read false: a 3 MiB
// Sendrecv a step at class W).
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
	var largest int64
	if _, err := prog.Run(interp.Config{NP: 1, Machine: m, Profile: p, Args: args, Trace: func(e trace.Event) {
		if e.Kind == trace.KindOp && e.Op == "Sendrecv" && strings.Contains(e.Site, "plasma.go:174") {
			largest = max(largest, e.Bytes)
		}
	}}); err != nil {
		t.Fatal(err)
	}
	// A step moves the particles that crossed a boundary: at np = 2 the
	// recorded steps moved owns' false outcomes over their entries.
	moved := owns[1] * 3 * 8 // id, x, v: 3 float64 a particle
	if largest <= 0 || largest > moved {
		t.Errorf("np=1: largest particle Sendrecv %d bytes, want between 1 and the %d bytes all recorded steps moved", largest, moved)
	}
}
