package estimator

import (
	"os"
	"testing"
	"time"

	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/trace"
)

func TestMeasureLocal(t *testing.T) {
	t0 := time.Now()
	m, err := MeasureLocal()
	took := time.Since(t0)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("MeasureLocal took %s:\n%s", took, m.Describe())
	// A bound on real time: only where timing checks are asked for
	// (PREDICT_TIMING_TESTS=1), a loaded machine exceeds it.
	if took > time.Second && os.Getenv("PREDICT_TIMING_TESTS") == "1" {
		t.Errorf("MeasureLocal took %s, want under 1 s", took)
	}
	if m.Origin != machine.OriginMeasured || m.Name != "local" || m.Nodes != 1 || m.RanksPerNode != 0 {
		t.Errorf("want a one-node machine of origin measured: %s", m)
	}
	oneWay := m.Level(false).OneWay(1)
	if oneWay < 10*trace.Nanosecond || oneWay > trace.Millisecond {
		t.Errorf("one-way latency %s: want between 10 ns and 1 ms", machine.FormatDuration(oneWay))
	}
	// Bandwidth between 100 MB/s and 10 TB/s.
	if bw := m.Intra.GapPerByte.BytesPerSecond(); bw < 1e8 || bw > 1e13 {
		t.Errorf("bandwidth %.3g B/s: implausible", bw)
	}
	th := m.Threads
	for name, v := range map[string]trace.Time{"create": th.Create, "start": th.Start, "cas": th.CAS, "try_lock": th.TryLock} {
		if v > trace.Millisecond {
			t.Errorf("thread cost %s = %s: implausible", name, machine.FormatDuration(v))
		}
	}
	if th.Copy <= 0 || th.Copy > machine.NanosecondPerByte*10 {
		t.Errorf("copy %s: implausible", th.Copy)
	}
}
