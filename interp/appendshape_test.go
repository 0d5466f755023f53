// This file defines the test of appends whose elements the model does not
// need (testdata/appendshape): they grow shapes, not data.

package interp

import "testing"

// TestAppendShapeBounded checks that the model's memory does not grow with
// the number of values a program appends per step when only the length of
// the appended slice is needed (it sizes a message): the reduction makes
// the append shape-only and the interpreter keeps its length and capacity,
// no elements. With its elements, the 2·100 000 values live at a send
// would take more than 4.8 MB of the interpreter's heap.
func TestAppendShapeBounded(t *testing.T) {
	p := prepare(t, "./interp/testdata/appendshape")
	m := handMachine(t)
	cfg := func(n string) Config { return Config{NP: 2, Machine: m, Args: []string{"-n", n}} }
	r, err := p.Run(cfg("1000"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Messages != 2*10 { // a message a rank each step, 10 steps
		t.Errorf("%d messages, want 20", r.Messages)
	}
	interpreting.Lock()
	defer interpreting.Unlock()
	var peak [2]int64
	for i, n := range []string{"1000", "100000"} {
		if peak[i], err = p.peakLive(cfg(n), nil); err != nil {
			t.Fatalf("-n %s: %v", n, err)
		}
	}
	t.Logf("live heap: %d B at -n 1000, %d B at -n 100000", peak[0], peak[1])
	if grew := peak[1] - peak[0]; grew > 1<<20 {
		t.Errorf("the model's live heap grew by %d B from -n 1000 (%d B) to -n 100000 (%d B): the appended values are held", grew, peak[0], peak[1])
	}
}
