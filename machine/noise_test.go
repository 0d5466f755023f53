package machine

import (
	"math"
	"strings"
	"testing"

	"github.com/predict-tools/predict/trace"
)

// TestNoiseAt checks the interpolation by hand: held below the first
// point, linear in log(burst) between points, and decaying beyond the last
// as 1/√burst.
func TestNoiseAt(t *testing.T) {
	us := trace.Microsecond
	n := Noise{
		{10 * us, []float64{-0.4, 0, 0.4}},
		{1000 * us, []float64{-0.1, 0, 0.1}},
	}
	near := func(got, want float64) bool { return math.Abs(got-want) < 1e-12 }
	for _, c := range []struct {
		j    int
		b    trace.Time
		want float64
	}{
		{0, 1 * us, -0.4},   // below the first point: held
		{2, 10 * us, 0.4},   // at it
		{2, 100 * us, 0.25}, // half way in log: 0.4 + (0.1 − 0.4)/2
		{0, 100 * us, -0.25},
		{1, 100 * us, 0},
		{2, 1000 * us, 0.1},
		// Beyond: at 100 000 us, 0.1 · √(1000/100 000) = 0.01.
		{2, 100000 * us, 0.01},
	} {
		if got := n.At(c.j, c.b); !near(got, c.want) {
			t.Errorf("At(%d, %s) = %v, want %v", c.j, FormatDuration(c.b), got, c.want)
		}
	}
	// One point: likewise beyond it.
	one := Noise{{10 * us, []float64{-0.2, 0.2}}}
	if got := one.At(1, 40*us); !near(got, 0.1) {
		t.Errorf("one point: At(1, 40us) = %v, want 0.1", got)
	}
	if got := n.Outcomes(); got != 3 {
		t.Errorf("Outcomes = %d, want 3", got)
	}
}

// TestNoiseMeanZero: every burst length's outcomes keep a mean of 0, so the
// noise moves no rank's mean compute (property over the interpolation).
func TestNoiseMeanZero(t *testing.T) {
	us := trace.Microsecond
	n := Noise{
		{10 * us, []float64{-0.5, -0.1, 0.05, 0.55}},
		{200 * us, []float64{-0.2, -0.05, 0.05, 0.2}},
		{3000 * us, []float64{-0.1, -0.02, 0.0, 0.12}},
	}
	if err := (&Machine{Name: "x", Origin: OriginUser, CoresPerNode: 1, RanksPerNode: 1, CPUFactor: 1, Noise: n}).Validate(); err != nil && strings.Contains(err.Error(), "noise") {
		t.Fatal(err)
	}
	for b := us; b < 100*trace.Millisecond; b = b * 3 / 2 {
		sum := 0.0
		for j := range n.Outcomes() {
			sum += n.At(j, b)
		}
		if math.Abs(sum) > 1e-12 {
			t.Errorf("burst %s: outcomes sum to %v, want 0", FormatDuration(b), sum)
		}
	}
}

func TestDescribeNoise(t *testing.T) {
	n := Noise{{10 * trace.Microsecond, []float64{-0.1, 0.1}}}
	if got, want := n.Describe(), "±10.0 % at 10us"; !strings.Contains(got, want) {
		t.Errorf("Describe = %q, want it to contain %q", got, want)
	}
}
