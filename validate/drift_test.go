package validate

import (
	"math"
	"strings"
	"testing"

	"github.com/predict-tools/predict/interp"
	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/profile"
	"github.com/predict-tools/predict/trace"
)

// TestDriftOf checks the drift and the error at the timing pass's speed on
// hand-computed runs.
func TestDriftOf(t *testing.T) {
	ms := trace.Millisecond
	p := &profile.File{NP: 2, PlainSpansPS: []int64{int64(100 * ms), int64(90 * ms), int64(110 * ms)}, Created: "2026-11-26T16:04:05Z"}
	d := driftOf(p, []trace.Time{150 * ms, 120 * ms, 130 * ms, 125 * ms})
	// Medians 100 ms then and (125+130)/2 = 127.5 ms now: 1.275; the
	// median now, 127.5 ms, lies above the runs then (110 ms at most).
	if d.Ratio != 1.275 || !d.Beyond || d.NP != 2 || d.ProfiledRuns != 3 || d.NowRuns != 4 {
		t.Fatalf("drift %+v, want ratio 1.275 beyond noise at np=2 over 3 and 4 runs", d)
	}
	pt := Point{Predicted: 100 * ms, Measured: Spread{Median: 150 * ms}}
	d.Adjust(&pt)
	// 100 ms predicted against 150 ms / 1.275 = 117.647 ms: −15.0 %.
	if pt.ErrorAtProfileSpeed == nil || math.Abs(*pt.ErrorAtProfileSpeed-(100*1.275/150-1)) > 1e-12 {
		t.Fatalf("error at profile speed %v, want %v", pt.ErrorAtProfileSpeed, 100*1.275/150-1)
	}
	if txt := d.text(); !strings.Contains(txt, "WARNING: the machine ran 27% slower") || !strings.Contains(txt, "of 16:04 UTC") || !strings.Contains(txt, "divided by 1.27") {
		t.Errorf("text %q", txt)
	}

	// Each median inside the other's range: noise.
	d = driftOf(p, []trace.Time{95 * ms, 105 * ms, 125 * ms})
	if d.Beyond || d.Ratio != 1.05 {
		t.Errorf("medians inside each other's range: %+v, want ratio 1.05 within noise", d)
	}
	if txt := d.text(); !strings.HasPrefix(txt, "Machine drift: none beyond the runs' noise") {
		t.Errorf("text %q", txt)
	}
	// Ranges that overlap but a median outside the other's range: pic's
	// timing pass ran 182, 200 and 266 ms, its real runs 255–272 ms.
	q0 := &profile.File{NP: 2, PlainSpansPS: []int64{int64(182 * ms), int64(200 * ms), int64(266 * ms)}}
	if d := driftOf(q0, []trace.Time{255 * ms, 264 * ms, 272 * ms}); !d.Beyond || d.Ratio != 1.32 {
		t.Errorf("pic's runs: %+v, want ratio 1.32 beyond noise", d)
	}
	// Apart by less than the tolerance: unchanged.
	q := &profile.File{NP: 1, PlainSpansPS: []int64{int64(100 * ms)}}
	if d := driftOf(q, []trace.Time{102 * ms}); d.Beyond {
		t.Errorf("2 %% apart: %+v, want within the tolerance", d)
	}
	// Pooled over three timing passes' runs: medians 127.5 ms now and
	// 100 ms over 90, 95, 100, 105, 110 ms (the first pass's 90, 100 and
	// 110 among them); ErrorAt divides the measured time by 1.275.
	d = driftOf(p, []trace.Time{150 * ms, 120 * ms, 130 * ms, 125 * ms})
	pooled := d.Pooled([]int64{int64(100 * ms), int64(90 * ms), int64(110 * ms), int64(95 * ms), int64(105 * ms)})
	if pooled.Ratio != 1.275 || pooled.ProfiledRuns != 5 || pooled.NowRuns != 4 || !pooled.Beyond {
		t.Errorf("pooled: %+v, want ratio 1.275 over 5 runs then, 4 now, beyond noise", pooled)
	}
	if e := pooled.ErrorAt(100*ms, 150*ms); math.Abs(e-(100*1.275/150-1)) > 1e-12 {
		t.Errorf("ErrorAt: %v", e)
	}
	// A nil drift adjusts nothing.
	var none *Drift
	pt = Point{Predicted: ms, Measured: Spread{Median: ms}}
	none.Adjust(&pt)
	if pt.ErrorAtProfileSpeed != nil {
		t.Errorf("nil drift set an error at profile speed")
	}
}

// TestDriftRef checks when a validation can measure the drift, and that it
// says why not otherwise.
func TestDriftRef(t *testing.T) {
	args := func(int) []string { return []string{"-class", "S"} }
	good := &profile.File{NP: 2, Host: profile.ThisHost(), Args: []string{"-class", "S"}, PlainSpansPS: []int64{1}}
	if np, why := driftRef(good, args); np != 2 || why != "" {
		t.Errorf("good profile: np %d, %q", np, why)
	}
	for _, c := range []struct {
		name string
		edit func(p *profile.File)
		want string
	}{
		{"no spans", func(p *profile.File) { p.PlainSpansPS = nil }, "--no-cache"},
		{"other host", func(p *profile.File) { p.Host = "plan9/arm, 64 CPUs" }, "plan9/arm, 64 CPUs"},
		{"other args", func(p *profile.File) { p.Args = []string{"-class", "W"} }, `arguments ["-class" "W"]`},
	} {
		p := *good
		c.edit(&p)
		if _, why := driftRef(&p, args); !strings.Contains(why, c.want) {
			t.Errorf("%s: %q, want it to say %q", c.name, why, c.want)
		}
	}
}

// TestRunDrift validates ./testprogs/amdahl for real with a profile that
// says its plain runs took 1 ms: the drift is measured at the profile's np,
// among the points' runs when the list holds it and by runs of its own
// otherwise, and each point's error at the timing pass's speed follows.
func TestRunDrift(t *testing.T) {
	if testing.Short() {
		t.Skip("real runs")
	}
	prog, err := interp.Prepare("..", "./testprogs/amdahl")
	if err != nil {
		t.Fatal(err)
	}
	m, err := machine.Preset("local")
	if err != nil {
		t.Fatal(err)
	}
	p := unitProfile(t, prog, 1000)
	args := []string{"-class", "S"}
	p.Host, p.Args, p.PlainSpansPS = profile.ThisHost(), args, []int64{int64(trace.Millisecond)}
	for _, nps := range [][]int{{1, 2}, {2}} {
		rep, err := Run(Config{Program: prog, Profile: p, Machine: m, NPs: nps, Runs: 2, Args: func(int) []string { return args }})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Points) != len(nps) {
			t.Fatalf("np %v: %d points, want %d (the drift's own runs are no point)", nps, len(rep.Points), len(nps))
		}
		d := rep.Drift
		if d == nil || d.NP != 1 || d.NowRuns != 2 || d.ProfiledRuns != 1 {
			t.Fatalf("np %v: drift %+v (unknown: %q), want 2 runs at the profile's np=1", nps, d, rep.DriftUnknown)
		}
		if want := float64(d.Now.Median) / float64(trace.Millisecond); d.Ratio != want {
			t.Errorf("np %v: ratio %v, want %v", nps, d.Ratio, want)
		}
		if nps[0] == 1 && rep.Points[0].Measured != d.Now {
			t.Errorf("np=1's runs %+v are not the drift's %+v", rep.Points[0].Measured, d.Now)
		}
		for _, pt := range rep.Points {
			if pt.Failed != "" {
				t.Fatalf("np=%d: %s", pt.NP, pt.Failed)
			}
			want := float64(pt.Predicted)*d.Ratio/float64(pt.Measured.Median) - 1
			if pt.ErrorAtProfileSpeed == nil || math.Abs(*pt.ErrorAtProfileSpeed-want) > 1e-9 {
				t.Errorf("np=%d: error at profile speed %v, want %v", pt.NP, pt.ErrorAtProfileSpeed, want)
			}
		}
	}
	// Without the spans, said, and no column. The profile's plain run
	// spent a fifth of its CPU time in the collector, with no CPU idle
	// (one CPU at np = 1): on a node of more cores the prediction says
	// what it leaves out, and the report repeats it.
	p.PlainSpansPS = nil
	p.CPUs, p.PlainRunCPUPS = 1, 1e12
	p.Runtime = &profile.Runtime{GCCPUPS: 2e11, SysCPUPS: -1, MinorFaults: -1}
	rep, err := Run(Config{Program: prog, Profile: p, Machine: m, NPs: []int{1}, Runs: 1, Args: func(int) []string { return args }})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := rep.WriteText(&b, 0); err != nil {
		t.Fatal(err)
	}
	if rep.Drift != nil || !strings.Contains(b.String(), "Machine drift: unknown: the profile keeps no plain runs' spans") || strings.Contains(b.String(), "at profile speed") {
		t.Errorf("without spans: drift %+v, report:\n%s", rep.Drift, b.String())
	}
	if said := strings.Contains(b.String(), "np=1: the prediction leaves out: the Go runtime's collector and scavenger took 20%"); said != (m.CoresPerNode > 1) {
		t.Errorf("%d cores a node: the runtime's limit said %v, report:\n%s", m.CoresPerNode, said, b.String())
	}
}
