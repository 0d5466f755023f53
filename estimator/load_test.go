package estimator

import (
	"testing"
	"time"

	"github.com/predict-tools/predict/estimator/probe"
	"github.com/predict-tools/predict/profile"
)

// TestOtherLoad checks the reading of /proc/stat and the cores other
// processes kept busy during a run (profile's TestLoadNote checks the
// judgement of it).
func TestOtherLoad(t *testing.T) {
	busy, ok := parseCPUBusy([]byte("cpu  156768 10 50012 45057 169 5 147 256 7 9\ncpu0 1 2 3 4 5 6 7 8 9 10\n"))
	// user+nice+system+irq+softirq+steal, in ticks of 10 ms; idle, iowait and guest left out.
	if want := time.Duration(156768+10+50012+5+147+256) * 10 * time.Millisecond; !ok || busy != want {
		t.Errorf("busy %v (%v), want %v", busy, ok, want)
	}
	if _, ok := parseCPUBusy([]byte("intr 1 2 3\n")); ok {
		t.Errorf("no cpu line: read as busy time")
	}
	// 4 s of busy time over a 2 s run whose process used 1 s: 1.5 cores of others.
	if got := otherCores(10*time.Second, 14*time.Second, time.Second, 2*time.Second); got != 1.5 {
		t.Errorf("other cores %v, want 1.5", got)
	}
}

// TestClockNames checks that a profile names the clocks as the probes do:
// the timing pass copies the probes' name into profile.File.Clock.
func TestClockNames(t *testing.T) {
	if probe.ClockWall != profile.ClockWall || probe.ClockThread != profile.ClockThread {
		t.Errorf("probe's clocks %q and %q, profile's %q and %q", probe.ClockWall, probe.ClockThread, profile.ClockWall, profile.ClockThread)
	}
}
