package interp

import (
	"testing"

	"github.com/predict-tools/predict/trace"
)

// TestCommThroughValues runs a program whose commlib calls go through a
// closure capturing the communicator, a method value and, with -iface, an
// interface holding it (issue 19 item 4): every call is counted, and
// nothing panics.
func TestCommThroughValues(t *testing.T) {
	p := prepare(t, "./interp/testdata/closurecomm")
	m := handMachine(t)
	const np = 4
	pf := syntheticProfile(t, p, np, nil)
	for _, iface := range []bool{false, true} {
		calls := map[string]int64{}
		count := func(e trace.Event) {
			if e.Kind == trace.KindOp {
				calls[e.Op]++
			}
		}
		var args []string
		if iface {
			args = []string{"-iface"}
		}
		if _, err := p.Run(Config{NP: np, Machine: m, Profile: pf, Args: args, Trace: count}); err != nil {
			t.Fatal(err)
		}
		// Three Alltoall per rank through the closure, one Allreduce
		// through the method value, one Barrier through the interface.
		want := map[string]int64{"Alltoall": 3 * np, "Allreduce": np}
		if iface {
			want["Barrier"] = np
		}
		for op, n := range want {
			if calls[op] != n {
				t.Errorf("iface %v: %s: %d calls over the ranks, want %d (all: %v)", iface, op, calls[op], n, calls)
			}
		}
		if !iface && calls["Barrier"] != 0 {
			t.Errorf("%d Barrier calls without -iface", calls["Barrier"])
		}
	}
}
