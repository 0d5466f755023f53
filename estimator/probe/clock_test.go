package probe

import (
	"runtime"
	"testing"
	"time"
)

// TestThreadNS: the thread clock counts the calling thread's computing,
// not its sleeping, and never more than the wall time that passed.
func TestThreadNS(t *testing.T) {
	if threadNS() < 0 {
		t.Skip("no thread clock here")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c0 := threadNS()
	time.Sleep(50 * time.Millisecond)
	if d := threadNS() - c0; d < 0 || d > int64(20*time.Millisecond) {
		t.Errorf("a 50 ms sleep took %v of the thread's CPU time", time.Duration(d))
	}
	c0, w0 := threadNS(), wallNow()
	x := uint64(1)
	for range 10_000_000 {
		x = x*6364136223846793005 + 1442695040888963407
	}
	calSink += int64(x)
	d, w := threadNS()-c0, wallNow()-w0
	if d <= 0 || d > w+int64(time.Millisecond) {
		t.Errorf("a busy loop took %v of CPU time in %v", time.Duration(d), time.Duration(w))
	}
}
