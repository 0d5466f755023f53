//go:build unix

// This file defines how a launcher's run is stopped: with everything it
// started. mpirun puts each rank in a process group of its own, so that
// killing mpirun's group leaves the ranks running (and killing mpirun
// alone orphans them); they stay in mpirun's session, which the timing
// pass starts it in.

package estimator

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// newSession makes cmd the leader of a session of its own.
func newSession(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }

// endSession ends the session led by pid: SIGTERM to each of its
// processes (mpirun then stops its ranks itself), and after grace SIGKILL
// to those left. It returns at once when none is left.
func endSession(pid int, grace time.Duration) {
	if signalSession(pid, syscall.SIGTERM) == 0 {
		return
	}
	for deadline := time.Now().Add(grace); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if signalSession(pid, 0) == 0 {
			return
		}
	}
	signalSession(pid, syscall.SIGKILL)
}

// signalSession sends sig to every process of session sid and returns
// how many there were. Where /proc does not list the sessions, it signals
// the session's first process group (the leader's) only.
func signalSession(sid int, sig syscall.Signal) int {
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil || len(stats) == 0 {
		if syscall.Kill(-sid, sig) == nil {
			return 1
		}
		return 0
	}
	n := 0
	for _, stat := range stats {
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(stat)))
		if err != nil || pid == os.Getpid() {
			continue
		}
		if s, ok := sessionOf(stat); ok && s == sid && syscall.Kill(pid, sig) == nil {
			n++
		}
	}
	return n
}

// sessionOf reads the session id from a /proc/PID/stat file: the fourth
// field after the command, which is in parentheses and may hold blanks. A
// zombie (the first field Z: ended, not yet reaped) is in no session: it
// runs nothing, and signals do not remove it.
func sessionOf(stat string) (int, bool) {
	data, err := os.ReadFile(stat)
	if err != nil {
		return 0, false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 4 || f[0] == "Z" {
		return 0, false
	}
	sid, err := strconv.Atoi(f[3])
	return sid, err == nil
}

// stopSignals are the signals that stop predict: forwarded to a launched
// run's session, which no terminal signals reach.
var stopSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}
