package estimator

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/trace"
)

// syntheticTable is the interpreter's ping-pong of lg at 1 B … 4 MiB,
// each time multiplied by 1 + noise·u, u uniform in [−1, 1).
func syntheticTable(lg *machine.LogGOPS, noise float64, rng *rand.Rand) []PingPongPoint {
	var table []PingPongPoint
	for s := int64(1); s <= 4<<20; s *= 2 {
		t := float64(modelOneWay(lg, s)) / float64(trace.Nanosecond)
		if noise > 0 {
			t *= 1 + noise*(2*rng.Float64()-1)
		}
		table = append(table, PingPongPoint{Bytes: s, OneWay: Estimate{Mean: t}})
	}
	return table
}

func fitTable(t *testing.T, table []PingPongPoint, in LevelInputs) (machine.LogGOPS, LineFit, string) {
	t.Helper()
	sizes, times := make([]int64, len(table)), make([]float64, len(table))
	for i, p := range table {
		sizes[i], times[i] = p.Bytes, p.OneWay.Mean
	}
	f, err := fitLine(sizes, times)
	if in.SKnown { // as makeMachine in-process
		f, err = fitLineAt(sizes, times, in.S)
	}
	if err != nil {
		t.Fatal(err)
	}
	lg, how := logGOPS(f, in)
	return lg, f, how
}

func TestFitExactRecovery(t *testing.T) {
	ns := trace.Nanosecond
	want := machine.LogGOPS{Latency: 800 * ns, Overhead: 200 * ns, GapPerMessage: 400 * ns,
		GapPerByte: 50 * machine.PicosecondPerByte, OverheadPerByte: 10 * machine.PicosecondPerByte, EagerLimit: 64 << 10}
	in := LevelInputs{SendPerByte: 0.010, CallCost: 999, StreamGap: 400, S: 1 << 30}
	got, f, how := fitTable(t, syntheticTable(&want, 0, nil), in)
	if got != want {
		t.Errorf("recovered %+v\nwant      %+v\n(fit %+v; %s)", got, want, f, how)
	}
	if !strings.Contains(how, "jump at the eager limit 65536 B") {
		t.Errorf("how: %s", how)
	}
	for _, r := range residuals(&got, syntheticTable(&want, 0, nil)) {
		if math.Abs(r.Rel) > 1e-9 {
			t.Errorf("%d B: residual %g", r.Bytes, r.Rel)
		}
	}

	// No change of protocol within the table: o is the calls' cost, S the
	// runtime's.
	want.EagerLimit = 8 << 20
	in.CallCost, in.S = 200, 8<<20
	got, f, how = fitTable(t, syntheticTable(&want, 0, nil), in)
	if got != want || f.EagerLimit != -1 {
		t.Errorf("without a jump: recovered %+v\nwant %+v\n(fit %+v; %s)", got, want, f, how)
	}
}

func TestFitNoisy(t *testing.T) {
	ns := trace.Nanosecond
	want := machine.LogGOPS{Latency: 600 * ns, Overhead: 300 * ns, GapPerByte: 80 * machine.PicosecondPerByte, EagerLimit: 16 << 10}
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 20 {
		got, f, how := fitTable(t, syntheticTable(&want, 0.02, rng), LevelInputs{CallCost: 300, S: 1 << 30})
		if got.EagerLimit != want.EagerLimit {
			t.Errorf("trial %d: eager limit %d, want %d (fit %+v; %s)", trial, got.EagerLimit, want.EagerLimit, f, how)
		}
		if d := math.Abs(float64(got.GapPerByte)/float64(want.GapPerByte) - 1); d > 0.03 {
			t.Errorf("trial %d: G %s, want %s ± 3 %%", trial, got.GapPerByte, want.GapPerByte)
		}
		if d := math.Abs(float64(got.Latency+2*got.Overhead)/float64(want.Latency+2*want.Overhead) - 1); d > 0.03 {
			t.Errorf("trial %d: 2o+L = %s, want %s ± 3 %%", trial, got.Latency+2*got.Overhead, want.Latency+2*want.Overhead)
		}
	}
}

func TestFitJumpLogGOPSCannotMake(t *testing.T) {
	table := func(jump float64) ([]int64, []float64) {
		var sizes []int64
		var times []float64
		for s := int64(1); s <= 1<<20; s *= 4 {
			tm := 1000 + 0.01*float64(s-1)
			if s > 64<<10 {
				tm += jump
			}
			sizes, times = append(sizes, s), append(times, tm)
		}
		return sizes, times
	}
	// A rise at 64 KiB too small for o + 2L with 2o + L = 1000 ns (L
	// would be negative): the eager limit is found, o comes from the calls.
	f, err := fitLine(table(400))
	if err != nil {
		t.Fatal(err)
	}
	lg, how := logGOPS(f, LevelInputs{CallCost: 150, S: 1 << 30})
	if lg.EagerLimit != 64<<10 || lg.Overhead != 150*trace.Nanosecond || lg.Latency != 700*trace.Nanosecond || !strings.Contains(how, "cannot make") {
		t.Errorf("a small rise: got %+v (%s), fit %+v", lg, how, f)
	}
	// A fall is no change to a costlier protocol: no eager limit found.
	f, err = fitLine(table(-1500))
	if err != nil {
		t.Fatal(err)
	}
	lg, how = logGOPS(f, LevelInputs{CallCost: 150, S: 1 << 30})
	if f.EagerLimit != -1 || lg.EagerLimit != 1<<30 || !strings.Contains(how, "no change of protocol") {
		t.Errorf("a fall: got %+v (%s), fit %+v", lg, how, f)
	}
}

func TestFitErrors(t *testing.T) {
	for _, c := range []struct {
		sizes []int64
		times []float64
		want  string
	}{
		{[]int64{1}, []float64{1}, "at least 2 sizes"},
		{[]int64{1, 2}, []float64{1, 0}, "want a positive time"},
		{[]int64{4, 2}, []float64{1, 2}, "sizes not increasing"},
	} {
		if _, err := fitLine(c.sizes, c.times); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("fitLine(%v, %v): %v, want %q", c.sizes, c.times, err, c.want)
		}
	}
}

// TestFitKnownEagerLimit: with the runtime's S known, a cache knee
// elsewhere in the table does not move S (it would, unknown), and a jump
// at S splits o from L.
func TestFitKnownEagerLimit(t *testing.T) {
	ns := trace.Nanosecond
	want := machine.LogGOPS{Latency: 800 * ns, Overhead: 200 * ns, GapPerMessage: 400 * ns,
		GapPerByte: 50 * machine.PicosecondPerByte, OverheadPerByte: 10 * machine.PicosecondPerByte, EagerLimit: 64 << 10}
	in := LevelInputs{SendPerByte: 0.010, CallCost: 999, StreamGap: 400, S: 64 << 10, SKnown: true}
	// A jump at S: the same parameters as with S unknown.
	got, f, how := fitTable(t, syntheticTable(&want, 0, nil), in)
	if got != want || f.EagerLimit != 64<<10 || !strings.Contains(how, "jump at the runtime's eager limit 65536 B") {
		t.Errorf("jump at S: %+v (fit %+v; %s)", got, f, how)
	}

	// No protocol change in the table (every message eager up to 4 MiB
	// in the model) but a cache knee: +2 µs from 512 KiB on.
	flat := want
	flat.EagerLimit = 1 << 30
	table := syntheticTable(&flat, 0, nil)
	for i := range table {
		if table[i].Bytes >= 512<<10 {
			table[i].OneWay.Mean += 2000
		}
	}
	if _, f, _ := fitTable(t, table, LevelInputs{CallCost: 200, S: 64 << 10}); f.EagerLimit != 256<<10 {
		t.Fatalf("the knee is not a jump when S is unknown: fit %+v", f)
	}
	in.CallCost = 200
	got, f, how = fitTable(t, table, in)
	if got.EagerLimit != 64<<10 || f.EagerLimit != -1 || got.Overhead != 200*ns ||
		!strings.Contains(how, "the runtime's eager limit 65536 B, where the table shows no change of protocol") {
		t.Errorf("knee, S known: %+v (fit %+v; %s)", got, f, how)
	}
	// S 0 (every message rendezvous) stays 0.
	in.S = 0
	if got, _, how := fitTable(t, table, in); got.EagerLimit != 0 {
		t.Errorf("S 0: %+v (%s)", got, how)
	}
}
