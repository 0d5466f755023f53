package commlib

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestStream checks the streaming co-runners: they run while the ranks do
// (a rank sees more goroutines than ranks) and are gone when the run
// returns; a count out of range is refused.
func TestStream(t *testing.T) {
	before := runtime.NumGoroutine()
	var during int
	err := RunWith(Config{NP: 1, Stream: 2}, func(c *Comm) {
		time.Sleep(10 * time.Millisecond)
		during = runtime.NumGoroutine()
	})
	if err != nil {
		t.Fatal(err)
	}
	if during < before+3 { // the rank and two co-runners
		t.Errorf("%d goroutines during the run, %d before: the co-runners are not running", during, before)
	}
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after the run, %d before: co-runners left running", n, before)
	}
	if err := RunWith(Config{NP: 1, Stream: -1}, func(c *Comm) {}); err == nil || !strings.Contains(err.Error(), "streaming co-runners") {
		t.Errorf("Stream -1: error %v, want one naming the co-runners", err)
	}
}
