package machine

import (
	"testing"

	"github.com/predict-tools/predict/trace"
)

// TestWakeupAt checks the curve's interpolation by hand: from (0, 0) to
// the first point, linear between points, flat beyond the last.
func TestWakeupAt(t *testing.T) {
	us := trace.Microsecond
	w := Wakeup{{10 * us, 4 * us}, {50 * us, 12 * us}, {1000 * us, 2 * us}}
	for _, c := range []struct{ d, want trace.Time }{
		{-5 * us, 0},
		{0, 0},
		{5 * us, 2 * us},    // half of the first point's delay
		{10 * us, 4 * us},   // on a point
		{30 * us, 8 * us},   // 4 + (12 − 4)·20/40
		{525 * us, 7 * us},  // a decreasing segment: 12 − 10·475/950
		{1000 * us, 2 * us}, // the last point
		{trace.Second, 2 * us},
	} {
		if got := w.At(c.d); got != c.want {
			t.Errorf("At(%s) = %s, want %s", FormatDuration(c.d), FormatDuration(got), FormatDuration(c.want))
		}
	}
	if got := (Wakeup{}).At(trace.Second); got != 0 {
		t.Errorf("an empty curve gives %s, want 0", FormatDuration(got))
	}
	// Property: between two points the delay stays between their delays.
	for d := trace.Time(1); d < 2000*us; d = d*3/2 + 1 {
		got := w.At(d)
		if got < 0 || got > 12*us {
			t.Fatalf("At(%s) = %s: outside the curve's range", FormatDuration(d), FormatDuration(got))
		}
	}
}
