//go:build unix

package estimator

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestLauncherTimeoutEndsSession: a launched run past its deadline ends
// with every process it started, though, as mpirun's ranks, they run in
// process groups of their own (set -m).
func TestLauncherTimeoutEndsSession(t *testing.T) {
	dir := t.TempDir()
	pids := filepath.Join(dir, "pids")
	script := filepath.Join(dir, "launcher.sh")
	body := "#!/bin/sh\nset -m\nsleep 300 &\necho $! >> " + pids + "\nsleep 300 &\necho $! >> " + pids + "\nwait\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	l, err := ParseLauncher(script + " -np 2")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = run(l, "/bin/true", 2, nil, nil, time.Second)
	if err == nil || !strings.Contains(err.Error(), "did not finish within 1s") {
		t.Errorf("run: %v, want the deadline's error", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the run took %v to end", d)
	}
	data, err := os.ReadFile(pids)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range strings.Fields(string(data)) {
		pid, _ := strconv.Atoi(f)
		if _, alive := sessionOf("/proc/" + f + "/stat"); alive {
			t.Errorf("the launcher's child %d still runs", pid)
		}
	}
}
