// This file tests the sweep (sweep.go): the baseline, the failures and
// the limits, with hand-made predictors.

package scale

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/predict-tools/predict/trace"
)

// countingPredictor predicts T(np) = 1 s/np, fails at the process counts
// of fail and records the process counts it was asked for.
type countingPredictor struct {
	mu     sync.Mutex
	asked  []int
	fail   map[int]bool
	limits map[int][]string
}

func (c *countingPredictor) predict(_ context.Context, np int) (Point, error) {
	c.mu.Lock()
	c.asked = append(c.asked, np)
	c.mu.Unlock()
	if c.fail[np] {
		return Point{}, fmt.Errorf("np=%d: want a power of two", np)
	}
	t := trace.Time(1e12 / np)
	return Point{NP: np, Time: t, Compute: t, Args: []string{"-n", fmt.Sprint(np)}, Limits: c.limits[np]}, nil
}

func (c *countingPredictor) sortedAsked() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Sorted(slices.Values(c.asked))
}

func rowNPs(a Analysis) []int {
	var nps []int
	for _, r := range a.Rows {
		nps = append(nps, r.NP)
	}
	return nps
}

// TestSweepBaselineOutsideRange: the baseline is predicted once, speedups
// are relative to it, and it gets no row.
func TestSweepBaselineOutsideRange(t *testing.T) {
	c := &countingPredictor{}
	a, err := Sweep(context.Background(), SweepOptions{NPs: []int{8, 4}, Baseline: 2, Workers: 2}, c.predict)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.sortedAsked(); !reflect.DeepEqual(got, []int{2, 4, 8}) {
		t.Errorf("predicted at %v, want [2 4 8]", got)
	}
	if a.BaselineNP != 2 || a.Baseline != 500*trace.Millisecond {
		t.Errorf("baseline np=%d %v, want np=2 500ms", a.BaselineNP, a.Baseline)
	}
	if got := rowNPs(a); !reflect.DeepEqual(got, []int{4, 8}) {
		t.Errorf("rows at %v, want [4 8]", got)
	}
	// T = 1 s/np: speedup 2 at np=4 against np=2.
	if a.Rows[0].Speedup != 2 || a.Rows[0].Efficiency != 1 {
		t.Errorf("np=4: speedup %v efficiency %v, want 2 and 1", a.Rows[0].Speedup, a.Rows[0].Efficiency)
	}
}

// TestSweepDefaultBaseline: with no baseline it is np=1; a process count
// given twice, or the baseline inside the range, is predicted once.
func TestSweepDefaultBaseline(t *testing.T) {
	c := &countingPredictor{}
	a, err := Sweep(context.Background(), SweepOptions{NPs: []int{1, 2, 2, 4}}, c.predict)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.sortedAsked(); !reflect.DeepEqual(got, []int{1, 2, 4}) {
		t.Errorf("predicted at %v, want [1 2 4]", got)
	}
	if a.BaselineNP != 1 || a.Baseline != trace.Second {
		t.Errorf("baseline np=%d %v, want np=1 1s", a.BaselineNP, a.Baseline)
	}
	if got := rowNPs(a); !reflect.DeepEqual(got, []int{1, 2, 4}) {
		t.Errorf("rows at %v, want [1 2 4]", got)
	}
	if a.Limits == nil || len(a.Limits) != 0 {
		t.Errorf("Limits = %#v, want empty and not nil (JSON [])", a.Limits)
	}
	if a.Rows[1].Args != nil {
		t.Errorf("strong scaling: np=2 has args %v", a.Rows[1].Args)
	}
}

// TestSweepSomeFail: the failed process counts of the range are Failed,
// the others rows; no error.
func TestSweepSomeFail(t *testing.T) {
	c := &countingPredictor{fail: map[int]bool{3: true, 5: true}}
	a, err := Sweep(context.Background(), SweepOptions{NPs: []int{1, 2, 3, 4, 5}}, c.predict)
	if err != nil {
		t.Fatal(err)
	}
	if got := rowNPs(a); !reflect.DeepEqual(got, []int{1, 2, 4}) {
		t.Errorf("rows at %v, want [1 2 4]", got)
	}
	want := []Failure{{NP: 3, Error: "np=3: want a power of two"}, {NP: 5, Error: "np=5: want a power of two"}}
	if !reflect.DeepEqual(a.Failed, want) {
		t.Errorf("Failed = %v, want %v", a.Failed, want)
	}
}

// TestSweepErrors: every np of the range failed, or the baseline did.
func TestSweepErrors(t *testing.T) {
	for _, c := range []struct {
		name     string
		nps      []int
		baseline int
		want     string
	}{
		{"every np", []int{3, 5}, 0, "the prediction failed at every np:\n  np=3: np=3: want a power of two\n  np=5: np=5: want a power of two"},
		// The baseline outside the range failed too: listed with them.
		{"every np and the baseline", []int{5, 6}, 3, "the prediction failed at every np:\n  np=3: np=3: want a power of two\n  np=5: np=5: want a power of two\n  np=6: np=6: want a power of two"},
		{"the baseline", []int{4, 8}, 3, "the baseline np=3 failed (speedups are relative to it; --baseline picks another): np=3: want a power of two"},
		{"the baseline in the range", []int{3, 4}, 3, "the baseline np=3 failed (speedups are relative to it; --baseline picks another): np=3: want a power of two"},
		{"a baseline below 1", []int{4}, -2, "np=-2: process count less than 1"},
	} {
		p := &countingPredictor{fail: map[int]bool{3: true, 5: true, 6: true}}
		_, err := Sweep(context.Background(), SweepOptions{NPs: c.nps, Baseline: c.baseline}, p.predict)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

// TestSweepLimits: the limits of every prediction, the baseline's
// included, each once and sorted.
func TestSweepLimits(t *testing.T) {
	c := &countingPredictor{limits: map[int][]string{
		1: {"recursion: the time of f is left out"},
		4: {"recursion: the time of f is left out", "goroutines: b"},
	}}
	a, err := Sweep(context.Background(), SweepOptions{NPs: []int{2, 4}}, c.predict)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"goroutines: b", "recursion: the time of f is left out"}
	if !reflect.DeepEqual(a.Limits, want) {
		t.Errorf("Limits = %q, want %q", a.Limits, want)
	}
}

// TestSweepWeak: in weak scaling each row keeps the arguments it was
// predicted with.
func TestSweepWeak(t *testing.T) {
	c := &countingPredictor{}
	a, err := Sweep(context.Background(), SweepOptions{NPs: []int{1, 2}, Weak: true}, c.predict)
	if err != nil {
		t.Fatal(err)
	}
	if a.Scaling != Weak || !reflect.DeepEqual(a.Rows[1].Args, []string{"-n", "2"}) {
		t.Errorf("scaling %s, np=2 args %v; want weak, [-n 2]", a.Scaling, a.Rows[1].Args)
	}
}

// TestSweepCanceled: a sweep whose context is done returns its error.
func TestSweepCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c := &countingPredictor{}
	if _, err := Sweep(ctx, SweepOptions{NPs: []int{1, 2}}, c.predict); !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
}
