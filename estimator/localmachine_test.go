package estimator

import (
	"testing"

	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/trace"
)

// TestThreadCosts runs the calibration's thread measurements for real
// and checks their figures are plausible (not timings: the machine is
// shared).
func TestThreadCosts(t *testing.T) {
	var ms measurements
	if err := ms.threads(timerCost()); err != nil {
		t.Fatal(err)
	}
	ms.round()
	th := ms.thread
	for name, v := range map[string]trace.Time{"create": th.Create, "start": th.Start, "cas": th.CAS, "try_lock": th.TryLock} {
		if v > trace.Millisecond {
			t.Errorf("thread cost %s = %s: implausible", name, machine.FormatDuration(v))
		}
	}
	if th.Copy <= 0 || th.Copy > machine.NanosecondPerByte*10 {
		t.Errorf("copy %s: implausible", th.Copy)
	}
}
