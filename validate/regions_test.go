package validate

import (
	"testing"

	"github.com/predict-tools/predict/trace"
)

func TestSites(t *testing.T) {
	s := Sites{Root: "/work/app"}
	for in, want := range map[string]string{
		"/work/app/main.go:42":          "main.go:42",
		"main.go:42:7":                  "main.go:42",
		"testprogs/stencil/main.go:104": "testprogs/stencil/main.go:104",
		"main.go:60-61":                 "main.go:60",
		"/elsewhere/lib.go:3":           "/elsewhere/lib.go:3",
		"":                              "?",
	} {
		if got := s.Of(in); got != want {
			t.Errorf("Sites.Of(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestAttributeHandComputed cuts two hand-made traces of 2 ranks: rank 0
// computes 10, sends (2), computes 5 and ends at 20; rank 1 receives
// (waits 12) and computes to the end. The model charges the first compute
// 5 instead of 10.
func TestAttributeHandComputed(t *testing.T) {
	op := func(rank int, name, site string, enter, exit trace.Time) trace.Event {
		return trace.Event{Rank: rank, Kind: trace.KindOp, Op: name, Site: site, Enter: enter, Exit: exit}
	}
	real := []trace.Event{
		op(0, "Send", "/m/a.go:10", 10, 12),
		op(1, "Recv", "/m/a.go:20", 0, 12),
	}
	model := []trace.Event{
		op(0, "Send", "a.go:10:3", 5, 7),
		{Rank: 0, Kind: trace.KindCompute, Op: "main$1/cb", Site: "a.go:9", Enter: 0, Exit: 5}, // not a call
		op(1, "Recv", "a.go:20:5", 0, 7),
	}
	got := Attribute(2, real, model, 20, 15, Sites{Root: "/m"})
	want := map[string][2]trace.Time{ // region: measured, predicted
		"compute start → a.go:10": {10, 5},
		"Send at a.go:10":         {2, 2},
		"compute a.go:10 → end":   {8, 8},
		"compute start → a.go:20": {0, 0},
		"Recv at a.go:20":         {12, 7},
		"compute a.go:20 → end":   {8, 8},
	}
	if len(got) != len(want) {
		t.Fatalf("%d regions, want %d: %+v", len(got), len(want), got)
	}
	for _, rt := range got {
		w, ok := want[rt.Region.String()]
		if !ok || rt.Measured != w[0] || rt.Predicted != w[1] || rt.MeasuredCount != 1 || rt.PredictedCount != 1 {
			t.Errorf("%s: measured %d, predicted %d (counts %d, %d); want %v", rt.Region, rt.Measured, rt.Predicted, rt.MeasuredCount, rt.PredictedCount, w)
		}
	}
	// Largest difference first: both differ by 5; ties by name.
	if got[0].Region.String() != "Recv at a.go:20" || got[1].Region.String() != "compute start → a.go:10" {
		t.Errorf("order: %s, %s", got[0].Region, got[1].Region)
	}
	// A rank without calls is compute from start to end.
	got = Attribute(1, nil, nil, 9, 4, Sites{})
	if len(got) != 1 || got[0].Region.String() != "compute start → end" || got[0].Measured != 9 || got[0].Predicted != 4 {
		t.Errorf("rank without calls: %+v", got)
	}
}

func TestSpread(t *testing.T) {
	s := spreadOf([]trace.Time{30, 10, 20, 100})
	if s.Min != 10 || s.Median != 25 || s.Max != 100 || s.Relative() != 90.0/25 {
		t.Errorf("spread %+v (relative %v)", s, s.Relative())
	}
}
