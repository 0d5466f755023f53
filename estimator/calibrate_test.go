package estimator

import (
	"bytes"
	"encoding/json"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/trace"
)

// syntheticCalibration is a calibration whose measurements are those of
// a known machine, as Calibrate would have gathered them, without running
// anything.
func syntheticCalibration(t *testing.T, lg machine.LogGOPS) (*Calibration, measurements) {
	t.Helper()
	cal := &Calibration{
		Host:       Host{Name: "node7", CPUModel: "Test CPU @ 3GHz", CPUs: 2, OS: "linux/amd64", GoVersion: "go1.26", ClockSource: "tsc", LoadBefore: "0.10 0.20 0.30"},
		Started:    time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC),
		Took:       1500 * time.Millisecond,
		Quick:      true,
		Ranks:      2,
		EagerLimit: 64 << 10,
		ClockSync:  []ClockOffset{{}, {Offset: 3, RTT: 800, Exchanges: 140}},
		SelfTests:  []SelfTest{{Name: "WaitPatternNull", Tol: 200, Pass: true}, {Name: "WaitPatternUp", Expected: 2000, Tol: 540, Pass: true}},
		PingPong:   syntheticTable(&lg, 0, nil),
		SendCall:   Estimate{Mean: 200 + float64(lg.OverheadPerByte)/1e6*float64(65536-1)},
		SendCall1:  200, SendCallBytes: 65536,
		CallCost:  float64(lg.Overhead) / 1e3,
		StreamGap: Estimate{Mean: float64(lg.GapPerMessage) / 1e3},
		Memory: Memory{Node: Estimate{Mean: 2.5e10, Kept: 10}, Alone: Estimate{Mean: 1.5e10, Kept: 10}, Streams: 2, ArrayBytes: 32 << 20,
			Converged: true, Plan: "2 streams of 2 cores (at most 4), at most 1024 MiB in all: 2 × 3 × 32 MiB"},
		Noise: NoiseCalibration{Ranks: 2, Took: 400 * time.Millisecond, Bursts: []NoiseBurst{
			{Target: 10 * time.Microsecond, Mean: 10412.6, Steps: 1000, Samples: 1800, Length: 9000, Sweeps: 1, Spread: 0.081, RankSpread: 0.07, Outcomes: []float64{-0.08, -0.02, 0.01, 0.09}},
			{Target: 100 * time.Microsecond, Mean: 101000, Steps: 333, Samples: 598, Length: 90000, Sweeps: 1, Spread: 0.031, RankSpread: 0.03, Outcomes: []float64{-0.03, -0.01, 0.01, 0.03}},
			{Target: time.Millisecond, Mean: 1.0203e6, Steps: 66, Samples: 118, Length: 1 << 20, Sweeps: 1, Spread: 0.012, RankSpread: 0.011, Outcomes: []float64{-0.012, -0.004, 0.004, 0.012}},
		}},
	}
	ms := measurements{
		thread: machine.ThreadCosts{Create: 400 * trace.Nanosecond, Start: 4 * trace.Microsecond, Copy: 18 * machine.PicosecondPerByte, CAS: 2 * trace.Nanosecond},
		wake:   machine.Wakeup{{Blocked: 100 * trace.Microsecond, Delay: 10 * trace.Microsecond}},
		steal:  77 * trace.Microsecond, stealNote: "steal delay 77us (median of 55 trials: a rank readied by a computing rank, run by the core that frees next)",
	}
	return cal, ms
}

func TestCalibrationMachine(t *testing.T) {
	ns := trace.Nanosecond
	lg := machine.LogGOPS{Latency: 500 * ns, Overhead: 200 * ns, GapPerMessage: 300 * ns,
		GapPerByte: 40 * machine.PicosecondPerByte, OverheadPerByte: 10 * machine.PicosecondPerByte, EagerLimit: 64 << 10}
	cal, ms := syntheticCalibration(t, lg)
	if err := cal.makeMachine(ms); err != nil {
		t.Fatal(err)
	}
	m := cal.Machine
	if m.Intra != lg || m.Inter != lg {
		t.Errorf("LogGOPS %+v, want %+v (%s)", m.Intra, lg, cal.FitHow)
	}
	if m.Origin != machine.OriginCalibrated || m.MemoryBandwidth != 2.5e10 || len(m.Table.Intra) != len(cal.PingPong) || m.Threads != ms.thread {
		t.Errorf("machine %s: memory %g, table %d points, threads %+v", m, m.MemoryBandwidth, len(m.Table.Intra), m.Threads)
	}
	for _, want := range []string{"predict calibrate --quick on node7 (Test CPU @ 3GHz, 2 CPUs, linux/amd64, go1.26, clock source tsc)",
		"at 2026-11-27T12:00:00Z", "load 0.10 0.20 0.30", "WaitPatternNull/Up passed", "jump at the runtime's eager limit 65536 B",
		"noise: FWQ stencil quanta of 10us/100us/1ms on 2 ranks synchronised by a ring exchange each step, 1000/333/66 steps each; the ranks' own delays over their step's fastest: ±7.0 %/±3.0 %/±1.1 %"} {
		if !strings.Contains(m.Source, want) {
			t.Errorf("source lacks %q:\n%s", want, m.Source)
		}
	}
	if m.StealDelay != 77*trace.Microsecond || !strings.Contains(m.Source, "steal delay 77us (median of 55 trials") {
		t.Errorf("steal delay %v, source:\n%s", m.StealDelay, m.Source)
	}
	if len(m.Noise) != 3 || m.Noise[0].Burst != 10413*trace.Nanosecond || m.Noise[2].Deviations[3] != 0.012 {
		t.Errorf("noise %+v", m.Noise)
	}
	// Written, read back by machine's reader and validated: the same machine.
	var buf bytes.Buffer
	if err := m.Write(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := machine.Parse(buf.Bytes(), "local.machine.json")
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if !reflect.DeepEqual(back, m) {
		t.Errorf("read back differs:\n%+v\n%+v", back, m)
	}
	if !strings.Contains(buf.String(), `"origin": "calibrated"`) || !strings.Contains(buf.String(), `"memory_bandwidth": 2.5e+10`) {
		t.Errorf("machine file:\n%s", buf.String())
	}

	// The report: JSON that reads back, and a summary with the table.
	var js bytes.Buffer
	if err := cal.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var decoded struct {
		PingPong []PingPongPoint `json:"ping_pong"`
		Fit      LineFit         `json:"fit"`
		Machine  json.RawMessage `json:"machine"`
	}
	if err := json.Unmarshal(js.Bytes(), &decoded); err != nil {
		t.Fatal(err)
	}
	if len(decoded.PingPong) != len(cal.PingPong) || decoded.Fit.EagerLimit != 64<<10 || len(decoded.Machine) == 0 {
		t.Errorf("JSON: %d points, fit %+v", len(decoded.PingPong), decoded.Fit)
	}
	var sum bytes.Buffer
	if err := cal.WriteSummary(&sum); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"self-test WaitPatternNull", "4194304", "+0.0 %", "LogGOPS: L=500ns o=200ns g=300ns G=40ps/B O=10ps/B S=65536 B", "memory: 25 GB/s with 2 streams", "steal delay: 77us (a rank readied",
		"noise 10us: mean 10.413us, spread ±8.1 %", "the ranks' own ±7.0 % (the machine's)", "noise: FWQ stencil quanta, a ring exchange each step, in 400ms"} {
		if !strings.Contains(sum.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, sum.String())
		}
	}
}

// TestCollectiveOps runs every collective of a calibration on 3 ranks, as
// the slots launch them: the buffers fit each collective (commlib checks
// them) and every case is known.
func TestCollectiveOps(t *testing.T) {
	err := commlib.Run(3, func(c *commlib.Comm) {
		for i := range CalibrationCollectives {
			op := stageOp(c, len(selfTestNames)+i)
			op(0)
			op(1)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestBufferPool(t *testing.T) {
	hot := newBufferPool(100, false)
	if a, b := hot.get(), hot.get(); &a[0] != &b[0] || len(a) != 100 {
		t.Errorf("hot: a new buffer each time, or of %d B", len(a))
	}
	for _, size := range []int{1, 100, 4 << 20} {
		cold := newBufferPool(size, true)
		seen := map[*byte]bool{}
		for range cold.n {
			b := cold.get()
			if len(b) != size || uintptr(len(cold.slab)) == 0 || seen[&b[0]] {
				t.Fatalf("cold %d B: a buffer of %d B, or again", size, len(b))
			}
			seen[&b[0]] = true
		}
		if b := cold.get(); &b[0] != &cold.slab[0] {
			t.Errorf("cold %d B: no rotation after %d buffers", size, cold.n)
		}
		if span := cold.n * cold.stride; cold.stride%64 != 0 || span < coldBytes || cold.n > maxColdBuffers {
			t.Errorf("cold %d B: %d buffers of stride %d span %d B, want 64-byte strides over %d B, at most %d buffers", size, cold.n, cold.stride, span, coldBytes, maxColdBuffers)
		}
	}
}

// TestPingPongSamples: a batch of n ping-pong samples is n+1 round trips,
// the first (rank 1's wake-up from the command) left out.
func TestPingPongSamples(t *testing.T) {
	var got []int
	err := commlib.RunWith(commlib.Config{NP: 2}, func(c *commlib.Comm) {
		s := newRankState(c, false)
		if c.Rank() != 0 {
			s.serve()
			return
		}
		defer s.command(cmdDone)
		w := leader{s}
		if a := w.announcements(3); len(a) != 3 || slices.Min(a) <= 0 {
			t.Errorf("announcements %v", a)
		}
		for _, n := range []int{1, 5} {
			xs, err := w.pingPongSamples(8, n)
			if err != nil {
				t.Error(err)
			}
			got = append(got, len(xs))
		}
	})
	if err != nil || !reflect.DeepEqual(got, []int{1, 5}) {
		t.Errorf("samples %v, %v", got, err)
	}
}

// TestStealText checks how a machine's source states the steal delay:
// nothing under a launcher, and the measurement's note in process.
func TestStealText(t *testing.T) {
	ms := &measurements{steal: trace.Microsecond, stealNote: "steal delay 1us (median of 59 trials)"}
	if got := ms.stealText(false); got != "" {
		t.Errorf("under a launcher: %q, want none", got)
	}
	if got, want := ms.stealText(true), "; steal delay 1us (median of 59 trials)"; got != want {
		t.Errorf("in process: %q, want %q", got, want)
	}
}

// TestStealOneP checks that with one P the steal delay is not measured
// (no other P could steal), and says why, instead of a rank receiving
// from itself.
func TestStealOneP(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	d, note, err := steal()
	if err != nil || d != 0 || !strings.Contains(note, "GOMAXPROCS=1") {
		t.Errorf("steal() = %v, %q, %v; want 0 and why", d, note, err)
	}
}
