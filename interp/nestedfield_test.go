// This file defines the test of tables held in struct fields of struct
// fields (testdata/nestedfield).

package interp

import "testing"

// TestNestedFieldTable checks a table held in a struct field of a struct
// field (s.part.starts, bfs's partition): the reduction keeps its length
// and contents, which count the Allreduces (starts[1] = 8/np of them) and
// size a Gatherv, where the model used to hold an empty slice and fail
// with an index out of range. Owner lookups through sort.SearchInts on
// random vertices only read the table: it stays known. An Allreduce at
// np = 2^k is k rounds of np messages; the Gatherv sends np-1.
func TestNestedFieldTable(t *testing.T) {
	p := prepare(t, "./interp/testdata/nestedfield")
	m := handMachine(t)
	for _, c := range []struct{ np, rounds int }{{2, 1}, {4, 2}, {8, 3}} {
		r, err := p.Run(Config{NP: c.np, Machine: m})
		if err != nil {
			t.Fatalf("np=%d: %v", c.np, err)
		}
		allreduces := 8 / c.np
		if want := int64(allreduces*c.np*c.rounds + c.np - 1); r.Messages != want {
			t.Errorf("np=%d: %d messages, want %d (%d Allreduces of %d rounds of np messages, a Gatherv of np-1)", c.np, r.Messages, want, allreduces, c.rounds)
		}
	}
}
