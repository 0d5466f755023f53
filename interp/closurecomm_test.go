package interp

import (
	"strings"
	"testing"

	"github.com/predict-tools/predict/trace"
)

// TestCommThroughValues runs a program whose commlib calls go through a
// closure capturing the communicator and a method value (issue 19 item
// 4): every call is counted, and nothing panics; a commlib call through an
// interface stops the run with its site.
func TestCommThroughValues(t *testing.T) {
	p := prepare(t, "./interp/testdata/closurecomm")
	m := handMachine(t)
	const np = 4
	calls := map[string]int64{}
	count := func(e trace.Event) {
		if e.Kind == trace.KindOp {
			calls[e.Op]++
		}
	}
	pf := syntheticProfile(t, p, np, nil)
	if _, err := p.Run(Config{NP: np, Machine: m, Profile: pf, Trace: count}); err != nil {
		t.Fatal(err)
	}
	// Three Alltoall per rank through the closure, one Allreduce through
	// the method value.
	for op, want := range map[string]int64{"Alltoall": 3 * np, "Allreduce": np} {
		if calls[op] != want {
			t.Errorf("%s: %d calls over the ranks, want %d (all: %v)", op, calls[op], want, calls)
		}
	}
	// The interface call is not modeled yet: it stops the run, never
	// skipped in silence.
	_, err := p.Run(Config{NP: np, Machine: m, Profile: pf, Args: []string{"-iface"}})
	if want := "main.go:48:13: rank 0: Comm.Barrier called through an interface"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want one containing %q", err, want)
	}
}
