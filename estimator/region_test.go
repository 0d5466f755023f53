package estimator

import (
	"math"
	"strings"
	"testing"

	"github.com/predict-tools/predict/estimator/probe"
	"github.com/predict-tools/predict/profile"
)

// TestRegionTimes checks by hand what a region is charged: its entries'
// times (less what the probes took off as it ran) less its own
// fragments, with the part of their probes outside them, its decisions'
// records, its own probes and iteration counter.
func TestRegionTimes(t *testing.T) {
	plan := &Plan{Regions: true, Fragments: []Fragment{
		{ID: 0, Kind: profile.FragRegion, Node: "f", Parent: -1},
		{ID: 1, Kind: profile.FragRegion, Node: "f/loop@+1:1", Parent: 0},
		{ID: 2, Kind: profile.FragSegment, Node: "f/a", Parent: 1},
		{ID: 3, Kind: profile.FragBranch, Node: "f/b", Parent: 1},
		{ID: 4, Kind: profile.FragLoop, Node: "g/loop@+1:1", Parent: 1, Apart: true}, // accounted as it ran
		{ID: 5, Kind: profile.FragSegment, Node: "f/c", Parent: 0},
	}}
	ov := probe.RawOverhead{SegNS: 20, PairNS: 30, BranchNS: 4, RegionInNS: 10, RegionOutNS: 15, CounterNS: 0.5}
	raw := &probe.Raw{Overhead: ov, Fragments: []probe.RawFragment{
		// The function: 2 calls of 10 µs each after what ran apart.
		{ID: 0, Kind: "region", Count: 2, SumNS: 20_000, SumSqNS: 2 * 1e8, MinNS: 10_000, MaxNS: 10_000, InclNS: 50_000},
		// The loop: 4 entries, 1000 iterations, 30 µs in all.
		{ID: 1, Kind: "region", Count: 4, SumNS: 50_000, SumSqNS: 4 * 12500 * 12500, MinNS: 12500, MaxNS: 12500, Iterations: 1000, InclNS: 60_000},
		{ID: 2, Kind: "seg", Count: 1000, SumNS: 25_000},
		{ID: 3, Kind: "branch", Count: 1000},
		{ID: 4, Kind: "loop", Count: 10, SumNS: 1e6},
		{ID: 5, Kind: "seg", Count: 2, SumNS: 1000},
	}}
	got := map[string]profile.FragmentStats{}
	for _, fs := range regions(plan, raw) {
		got[fs.Node] = fs
	}
	// The loop: 50000 − (25000 + 1000·(30−20)) − 1000·4 − 4·10 − 1000·0.5
	// = 10460 ns in 1000 iterations.
	if l := got["f/loop@+1:1"]; l.Executions != 1000 || math.Abs(float64(l.MeanPS)-10460) > 1 {
		t.Errorf("loop region: %d executions of %d ps, want 1000 of 10460", l.Executions, l.MeanPS)
	}
	// The function: 20000 − (1000 + 2·10) − 2·10 = 18960 ns in 2 calls.
	if f := got["f"]; f.Executions != 2 || math.Abs(float64(f.MeanPS)-9_480_000) > 1 {
		t.Errorf("function region: %d executions of %d ps, want 2 of 9480000", f.Executions, f.MeanPS)
	}
	// Coarse: the loop took 60 ns an iteration with its probes, under
	// 40 probe pairs (1.2 µs); the function 25 µs a call.
	coarse := coarseRegions(plan, raw)
	if !coarse["f/loop@+1:1"] || coarse["f"] || len(coarse) != 1 {
		t.Errorf("coarse regions %v, want the loop only", coarse)
	}
}

// TestScaleToPlain: the fragments are scaled to the plain run's compute;
// beyond the bounds too, with every fragment's bound widened to half the
// correction and a warning.
func TestScaleToPlain(t *testing.T) {
	p := &profile.File{PlainComputePS: 900, MeasuredPS: 1000,
		Fragments: []profile.FragmentStats{{Executions: 10, MeanPS: 60, ErrorPS: 10}, {Executions: 1, MeanPS: 400}},
		Loops:     []profile.LoopStats{{PerIterPS: 100}}}
	scaleToPlain(p, 0.9)
	if p.Scale != 0.9 || p.Fragments[0].MeanPS != 54 || p.Fragments[0].ErrorPS != 9 || p.Fragments[1].MeanPS != 360 || p.Loops[0].PerIterPS != 90 || p.MeasuredPS != 900 {
		t.Errorf("scaled: %+v", p)
	}
	q := &profile.File{PlainComputePS: 300, MeasuredPS: 1000, Fragments: []profile.FragmentStats{{Executions: 1, MeanPS: 1000, ErrorRel: 0.05}}}
	scaleToPlain(q, 0.3)
	if f := q.Fragments[0]; q.Scale != 0.3 || f.MeanPS != 300 || f.ErrorRel != 0.35 || f.ErrorPS != 105 || q.MeasuredPS != 300 ||
		len(q.Warnings) != 1 || !strings.Contains(q.Warnings[0], "scaled by 0.300 all the same") || !strings.Contains(q.Warnings[0], "widened to ±35%") {
		t.Errorf("a scale of 0.3: %+v, want applied, bounds widened to 35 %%, said", q)
	}
}

// TestRegionsInstrumented: a function with fragments is a region (a
// deferred Region), an iterated loop measured inside one too; made
// coarse, the loop keeps its region and decisions and loses the
// fragments inside it.
func TestRegionsInstrumented(t *testing.T) {
	prep := prepared(t, "testprogs/corpus/cellcheck")
	p := instrumentWith(t, prep, pilotCuts{})
	life := overlayOf(t, p, "testprogs/corpus/cellcheck/life.go")
	step := funcText(t, life, "func (b *block) step(")
	if !strings.Contains(step, "defer __probe.Region(") || !strings.Contains(step, "__probe.RegionLoop(") || !strings.Contains(step, "__probe.Seg(") {
		t.Errorf("step is not a region with a loop region and segments:\n%s", step)
	}
	var loop string
	for _, f := range p.Fragments {
		if f.Kind == profile.FragRegion && f.Parent >= 0 && strings.HasPrefix(f.Node, "(*block).step/") && strings.Contains(f.Pos.String(), "life.go:109") {
			loop = f.Node
		}
	}
	if loop == "" {
		t.Fatalf("no region for step's loop over a row's cells")
	}
	p = instrumentWith(t, prep, pilotCuts{regions: map[string]bool{loop: true}})
	step = funcText(t, overlayOf(t, p, "testprogs/corpus/cellcheck/life.go"), "func (b *block) step(")
	inner := step[strings.Index(step, "for j, cur := range src"):]
	inner = inner[:strings.Index(inner, "__probe.RegionLoop(")]
	if strings.Contains(inner, "__probe.Seg(") || !strings.Contains(inner, "__probe.Branch(") {
		t.Errorf("the coarse loop keeps segments or loses its decisions:\n%s", inner)
	}
}

func overlayOf(t *testing.T, p *Plan, suffix string) string {
	t.Helper()
	for path, b := range p.Overlay {
		if strings.HasSuffix(path, suffix) {
			return string(b)
		}
	}
	t.Fatalf("%s not instrumented", suffix)
	return ""
}

func funcText(t *testing.T, src, decl string) string {
	t.Helper()
	i := strings.Index(src, decl)
	if i < 0 {
		t.Fatalf("%s not found", decl)
	}
	return src[i : i+strings.Index(src[i:], "\n}")]
}

// TestCoverageWarning: a profile whose fragments measured less than 95 %
// of the plain run says so, scaled (regions) or not (no regions: the rest
// is not in the prediction).
func TestCoverageWarning(t *testing.T) {
	p := &profile.File{NP: 1, PlainRunPS: 1000, RunPS: 1200, Fragments: []profile.FragmentStats{{Executions: 5, MeanPS: 100}}}
	combine(p, &Plan{}, nil, nil)
	if len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0], "50% of the plain run's time") || p.Scale != 0 {
		t.Errorf("no regions, half covered: warnings %q, scale %v", p.Warnings, p.Scale)
	}
	q := &profile.File{NP: 1, PlainRunPS: 1000, Fragments: []profile.FragmentStats{{Executions: 8, MeanPS: 100}}}
	combine(q, &Plan{Regions: true}, nil, []int64{1})
	if len(q.Warnings) != 1 || !strings.Contains(q.Warnings[0], "80% of the plain run's compute") || q.Scale != 1.25 || q.MeasuredPS != 1000 {
		t.Errorf("regions, 80%% covered: warnings %q, scale %v, measured %d", q.Warnings, q.Scale, q.MeasuredPS)
	}
	if !strings.Contains(q.Warnings[0], "the probes' compensation or their perturbation hid") {
		t.Errorf("regions, 80%% covered, the runs alike: %q", q.Warnings[0])
	}
	// Half covered, and the probed run half the plain one: nothing was
	// hidden, the probed build ran fast (summa's case).
	f := &profile.File{NP: 1, PlainRunPS: 100e9, RunPS: 50e9, Fragments: []profile.FragmentStats{{Executions: 10, MeanPS: 5e9}}}
	combine(f, &Plan{Regions: true}, nil, []int64{100_000_000})
	if len(f.Warnings) != 1 || !strings.Contains(f.Warnings[0], "50% of the plain run's compute") ||
		!strings.Contains(f.Warnings[0], "the run with probes was itself shorter than the run without, so the fragments read fast") || f.Scale != 2 {
		t.Errorf("half covered, the probed run half the plain one: warnings %q, scale %v", f.Warnings, f.Scale)
	}
	r := &profile.File{NP: 1, PlainRunPS: 1000, Fragments: []profile.FragmentStats{{Executions: 10, MeanPS: 99}}}
	combine(r, &Plan{Regions: true}, nil, []int64{1})
	if len(r.Warnings) != 0 {
		t.Errorf("99%% covered: warnings %q", r.Warnings)
	}
}

// TestSmallSegments: a pilot's segment inside a region whose time per
// execution, less the part of its pair inside it, is under a pair's
// cost is left unprobed; one at a pair or more, or outside every region
// (its time would be in none), stays probed.
func TestSmallSegments(t *testing.T) {
	plan := &Plan{Regions: true, Fragments: []Fragment{
		{ID: 0, Kind: profile.FragRegion, Node: "f", Parent: -1},
		{ID: 1, Kind: profile.FragSegment, Node: "f/tiny", Parent: 0},
		{ID: 2, Kind: profile.FragSegment, Node: "f/pair", Parent: 0},
		{ID: 3, Kind: profile.FragSegment, Node: "g/tiny", Parent: -1},
		{ID: 4, Kind: profile.FragLoop, Node: "f/loop@+3:1", Parent: 0},
		{ID: 5, Kind: profile.FragSegment, Node: "f/never", Parent: 0},
	}}
	ov := probe.RawOverhead{SegNS: 40, PairNS: 100}
	raw := &probe.Raw{Overhead: ov, Fragments: []probe.RawFragment{
		{ID: 0, Kind: "region", Count: 10, SumNS: 1e6, InclNS: 2e6},
		{ID: 1, Kind: "seg", Count: 1000, SumNS: 1000 * (40 + 99)}, // 99 ns of its own
		{ID: 2, Kind: "seg", Count: 1000, SumNS: 1000 * (40 + 100)},
		{ID: 3, Kind: "seg", Count: 1000, SumNS: 1000 * (40 + 5)},
		{ID: 4, Kind: "loop", Count: 1000, SumNS: 1000 * 50},
		{ID: 5, Kind: "seg", Count: 0},
	}}
	got := smallSegments(plan, raw)
	if !got["f/tiny"] || len(got) != 1 {
		t.Errorf("small segments %v, want f/tiny alone", got)
	}
}

// TestSmallSegmentUnprobed: psort's msort, with its 12 ns `h := len(a)/2`
// left unprobed, keeps its region (which then holds that time) and its
// other segment.
func TestSmallSegmentUnprobed(t *testing.T) {
	prep := prepared(t, "testprogs/corpus/psort")
	p := instrumentWith(t, prep, pilotCuts{})
	var half string
	for _, f := range p.Fragments {
		if f.Kind == profile.FragSegment && strings.HasPrefix(f.Node, "msort/") && strings.HasSuffix(f.Pos.String(), "main.go:106:2") {
			half = f.Node
		}
	}
	if half == "" {
		t.Fatalf("no segment for msort's h := len(a) / 2")
	}
	before := funcText(t, overlayOf(t, p, "testprogs/corpus/psort/main.go"), "func msort(")
	if strings.Count(before, "__probe.Seg(") != 3 {
		t.Fatalf("msort before: want 3 segments probed:\n%s", before)
	}
	q := instrumentWith(t, prep, pilotCuts{segments: map[string]bool{half: true}})
	msort := funcText(t, overlayOf(t, q, "testprogs/corpus/psort/main.go"), "func msort(")
	if strings.Contains(msort, "__pt = __probe.NowThread(); h := len(a) / 2") || strings.Count(msort, "__probe.Seg(") != 2 ||
		!strings.Contains(msort, "defer __probe.Region(") || q.Unprobed != 1 {
		t.Errorf("msort with its small segment cut (%d unprobed): want it unprobed, the other two segments and the region kept:\n%s", q.Unprobed, msort)
	}
	for _, f := range q.Fragments {
		if f.Node == half {
			t.Errorf("the cut segment %s still has a fragment", half)
		}
	}
}
