package interp

import "testing"

// TestCommInStructField checks a communicator held in a struct field and
// queried in a method: the reduction keeps it (the interpreter answers
// Comm.Size from it), where it used to be dropped and dereferenced as nil.
// An Allreduce at np = 2^k is k rounds of recursive doubling, np messages
// each.
func TestCommInStructField(t *testing.T) {
	p := prepare(t, "./interp/testdata/structcomm")
	m := handMachine(t)
	for _, c := range []struct{ np, rounds int }{{2, 1}, {4, 2}, {8, 3}} {
		r, err := p.Run(Config{NP: c.np, Machine: m})
		if err != nil {
			t.Fatalf("np=%d: %v", c.np, err)
		}
		if want := int64(3 * c.np * c.np * c.rounds); r.Messages != want {
			t.Errorf("np=%d: %d messages, want %d (3·np Allreduces of %d rounds of np messages)", c.np, r.Messages, want, c.rounds)
		}
	}
}
