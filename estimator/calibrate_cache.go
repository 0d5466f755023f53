// This file defines CachedLocal: this machine's quick calibration, measured
// on first use and cached by host and CPU model, for the commands that run
// with no --machine. As it runs on a user's first predict run, it is
// guarded: one process calibrates at a time (a lock file; the others wait
// for its result), a refusal is remembered for a while (a loaded machine
// does not pay for a refused calibration on every run), and a method
// version in the key makes fixes to the method reach existing caches.

package estimator

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/predict-tools/predict/commlib/eagerlimit"
	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/profile"
)

// CalibrationMethod is the version of the calibration's method. It is part
// of LocalKey: bump it whenever a change alters what a calibration
// measures or how it fits it, so that calibrations cached before the
// change are measured again.
//
//	1: the first (issue 21).
//	2: bounded memory triad, allocation on fresh memory, Tukey–McLaughlin
//	   intervals, the runtime's eager limit pinned, batches' first round
//	   trip dropped.
//	3: compute noise (FWQ).
//	4: the noise's outcomes are each rank's delay over its step's fastest.
//	5: the piecewise LogGP fit (segments), which extends the table beyond
//	   its last size.
//	6: the steal delay (machine.StealDelay).
const CalibrationMethod = 6

// DefaultMachineCache is where CachedLocal keeps calibrations by default:
// machines under [profile.CacheRoot], beside the profiles.
func DefaultMachineCache() string { return filepath.Join(profile.CacheRoot(), "machines") }

// LocalKey is what a cached calibration was measured on and how: the host,
// its CPU model and count, the Go version (whose runtime the in-process
// ranks are), the in-process runtime's eager limit (COMMLIB_EAGER_LIMIT as
// commlib.Config.EagerLimit; 0: the default) and the CalibrationMethod.
type LocalKey struct {
	Host, CPUModel string
	CPUs           int
	GoVersion      string
	EagerLimit     int
	Method         int
}

// ThisLocalKey is the key of this machine.
func ThisLocalKey() LocalKey {
	h := thisHost()
	eager, _ := eagerlimit.From(nil) // a bad one refuses the calibration itself
	return LocalKey{Host: h.Name, CPUModel: h.CPUModel, CPUs: h.CPUs, GoVersion: h.GoVersion, EagerLimit: eager, Method: CalibrationMethod}
}

// Path is the file of the calibration cached in dir under k; its name
// hashes the key.
func (k LocalKey) Path(dir string) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s\x00%s\x00%d\x00%s\x00%d\x00%d", k.Host, k.CPUModel, k.CPUs, k.GoVersion, k.EagerLimit, k.Method))
	return filepath.Join(dir, "local-"+hex.EncodeToString(sum[:8])+".machine.json")
}

// Guards of the cache: a refusal is remembered for RefusalTTL; a process
// waits at most lockWait for another's calibration, polling every
// lockPoll; a lock older than lockStale is a dead process's.
const (
	RefusalTTL = 10 * time.Minute
	lockWait   = 60 * time.Second
	lockPoll   = 100 * time.Millisecond
	lockStale  = 2 * time.Minute
)

// RefusedError is a calibration refused less than RefusalTTL ago,
// remembered in a file beside the cache: CachedLocal returns it at once
// instead of calibrating again.
type RefusedError struct {
	Reason string    `json:"reason"`
	At     time.Time `json:"at"`
	Path   string    `json:"-"`
}

// Error says why and when the calibration was refused, and how to try
// again at once.
func (e *RefusedError) Error() string {
	return fmt.Sprintf("this machine's calibration was refused at %s, and is not tried again for %s (delete %s to try now): %s",
		e.At.UTC().Format("15:04:05 UTC"), RefusalTTL, e.Path, e.Reason)
}

// CachedLocal returns this machine's calibration: the one cached in dir
// for this key (cached true), or a quick calibration measured now
// (Calibrate with Quick, progress to log; a few seconds) and cached there
// (cached false). A cached file that does not read as a calibrated machine
// is measured again and replaced. Only one process calibrates at a time:
// another waits for its file (at most a minute) and reads it. A refused
// calibration (a noisy machine, a failed self-test) caches nothing and is
// an error; it is remembered for RefusalTTL, during which CachedLocal
// returns a [RefusedError] at once. With GOMAXPROCS below 2 (the ranks
// could not run at once) nothing is measured: an error at once.
func CachedLocal(dir string, log io.Writer) (m *machine.Machine, cached bool, err error) {
	return cachedLocal(dir, ThisLocalKey(), realCacheEnv(), func() (*machine.Machine, error) {
		cal, err := Calibrate(CalibrateOptions{Quick: true, Log: log})
		if err != nil {
			return nil, err
		}
		return cal.Machine, nil
	})
}

// cacheEnv is what cachedLocal reads of the world: the clock, a sleep,
// GOMAXPROCS, whether a process runs (tests give fakes).
type cacheEnv struct {
	now   func() time.Time
	sleep func(time.Duration)
	procs int
	alive func(pid int) bool
}

func realCacheEnv() cacheEnv {
	return cacheEnv{now: time.Now, sleep: time.Sleep, procs: runtime.GOMAXPROCS(0), alive: processAlive}
}

// processAlive says whether process pid of this host runs (the lock's
// path holds the host in its key); where it cannot tell, it does.
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	return !errors.Is(p.Signal(syscall.Signal(0)), os.ErrProcessDone)
}

// cachedLocal is CachedLocal with the key, the world and the calibration
// given.
func cachedLocal(dir string, k LocalKey, env cacheEnv, calibrate func() (*machine.Machine, error)) (*machine.Machine, bool, error) {
	path := k.Path(dir)
	if m, ok := readCached(path); ok {
		return m, true, nil
	}
	if err := procsError(env.procs); err != nil {
		return nil, false, err
	}
	if err := readRefusal(path, env.now()); err != nil {
		return nil, false, err
	}
	os.MkdirAll(dir, 0o755) // where it cannot be made, nothing locks or caches: calibrated all the same
	unlock, m, err := lockOrWait(path, env)
	if unlock == nil {
		return m, m != nil, err
	}
	defer unlock()
	// Another process may have finished between the first look and the lock.
	if m, ok := readCached(path); ok {
		return m, true, nil
	}
	m, err = calibrate()
	if err != nil {
		var noisy *NoisyError
		var failed *SelfTestError
		if errors.As(err, &noisy) || errors.As(err, &failed) {
			rememberRefusal(path, err, env.now())
		}
		return nil, false, err
	}
	os.Remove(refusalPath(path))
	if err := m.WriteFile(path); err != nil {
		return m, false, fmt.Errorf("caching the calibration: %v", err)
	}
	return m, false, nil
}

// procsError refuses to calibrate with fewer than 2 Ps: the ranks, which
// run at once, would take turns, and every self-test would fail after its
// whole budget.
func procsError(procs int) error {
	if procs >= 2 {
		return nil
	}
	return fmt.Errorf("calibrating this machine needs its 2 ranks to run at once, and GOMAXPROCS is %d: "+
		"run with GOMAXPROCS=2 or more (on a machine of 2 cores or more)", procs)
}

// readCached reads a cached calibration.
func readCached(path string) (*machine.Machine, bool) {
	m, err := machine.Load(path)
	return m, err == nil && m.Origin == machine.OriginCalibrated
}

func refusalPath(path string) string { return path + ".refused" }
func lockPath(path string) string    { return path + ".lock" }

// readRefusal is the refusal remembered beside path, when it is younger
// than RefusalTTL at now.
func readRefusal(path string, now time.Time) error {
	b, err := os.ReadFile(refusalPath(path))
	if err != nil {
		return nil
	}
	var r RefusedError
	if json.Unmarshal(b, &r) != nil || r.At.IsZero() || now.Sub(r.At) >= RefusalTTL || now.Before(r.At.Add(-time.Minute)) {
		return nil
	}
	r.Path = refusalPath(path)
	return &r
}

// rememberRefusal writes the refusal beside path (best effort: a cache
// that cannot be written only loses the memory).
func rememberRefusal(path string, err error, now time.Time) {
	b, jerr := json.Marshal(RefusedError{Reason: err.Error(), At: now.UTC()})
	if jerr == nil {
		os.WriteFile(refusalPath(path), append(b, '\n'), 0o644)
	}
}

// lockOrWait takes the lock of path and returns its release; or, when
// another process holds it, waits for that process's result and returns
// it (unlock nil): its calibration (m), or its refusal, or an error when
// it takes longer than lockWait. A lock older than lockStale, or whose
// holder left without a result or no longer runs, is taken over. Where no lock can be made
// (a directory that cannot be written), the release does nothing: the
// calibration goes on, and its caching fails.
func lockOrWait(path string, env cacheEnv) (unlock func(), m *machine.Machine, err error) {
	lock := lockPath(path)
	deadline := env.now().Add(lockWait)
	for {
		f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			fmt.Fprintf(f, "%d %s\n", os.Getpid(), env.now().UTC().Format(time.RFC3339Nano))
			f.Close()
			return func() { os.Remove(lock) }, nil, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return func() {}, nil, nil
		}
		if pid, since, ok := lockHolder(lock, env.now()); ok && (since > lockStale || (pid > 0 && env.alive != nil && !env.alive(pid))) {
			os.Remove(lock) // its holder died (interrupted, killed): take it over
			continue
		}
		for {
			if m, ok := readCached(path); ok {
				return nil, m, nil
			}
			if err := readRefusal(path, env.now()); err != nil {
				return nil, nil, err
			}
			if _, err := os.Stat(lock); errors.Is(err, fs.ErrNotExist) {
				break // released without a result: try to take it
			}
			if env.now().After(deadline) {
				return nil, nil, fmt.Errorf("another predict has been calibrating this machine for over %s (lock %s): "+
					"give --machine, or delete the lock if no predict runs", lockWait, lock)
			}
			env.sleep(lockPoll)
		}
	}
}

// lockHolder is the process that took the lock (0: unknown) and how long
// ago: by what it wrote in it, else (not written yet, or its writer died
// first) by the file's time.
func lockHolder(lock string, now time.Time) (pid int, age time.Duration, ok bool) {
	b, err := os.ReadFile(lock)
	if err != nil {
		return 0, 0, false
	}
	if f := strings.Fields(string(b)); len(f) >= 2 {
		at, err := time.Parse(time.RFC3339Nano, f[1])
		if p, perr := strconv.Atoi(f[0]); err == nil && perr == nil {
			return p, now.Sub(at), true
		}
	}
	fi, err := os.Stat(lock)
	if err != nil {
		return 0, 0, false
	}
	return 0, now.Sub(fi.ModTime()), true
}
