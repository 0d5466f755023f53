package estimator

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/trace"
)

// fakeCalibration counts its calls and returns a calibrated machine whose
// latency is the call's number in µs.
func fakeCalibration(calls *int) func() (*machine.Machine, error) {
	return func() (*machine.Machine, error) {
		*calls++
		m, err := machine.Preset("local")
		if err != nil {
			return nil, err
		}
		m.Origin, m.Source = machine.OriginCalibrated, "fake calibration"
		m.Intra.Latency = trace.Time(*calls) * trace.Microsecond
		return m, nil
	}
}

// fakeEnv is a cache environment on a virtual clock: sleep advances it
// and calls onSleep (another process's doing, in tests).
type fakeEnv struct {
	t       time.Time
	sleeps  int
	onSleep func()
}

func (f *fakeEnv) env(procs int) cacheEnv {
	alive := func(pid int) bool { return pid != deadPID }
	return cacheEnv{now: func() time.Time { return f.t }, procs: procs, alive: alive, sleep: func(d time.Duration) {
		f.t = f.t.Add(d)
		f.sleeps++
		if f.onSleep != nil {
			f.onSleep()
		}
	}}
}

// deadPID is the process that no longer runs, in fakeEnv.
const deadPID = 4343

var testKey = LocalKey{Host: "node7", CPUModel: "Test CPU", CPUs: 2, GoVersion: "go1.26", Method: CalibrationMethod}

func TestCachedLocal(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "machines")
	key := testKey
	calls := 0
	fake := fakeCalibration(&calls)
	clock := &fakeEnv{t: time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)}
	env := clock.env(2)

	// First use: measured and cached, the lock released.
	m1, cached, err := cachedLocal(dir, key, env, fake)
	if err != nil || cached || calls != 1 {
		t.Fatalf("first use: cached %t, %d calibrations, %v", cached, calls, err)
	}
	if _, err := os.Stat(key.Path(dir)); err != nil {
		t.Fatalf("not cached: %v", err)
	}
	if _, err := os.Stat(lockPath(key.Path(dir))); err == nil {
		t.Errorf("the lock is left behind")
	}
	// Then read from the cache: the same machine, nothing measured.
	m2, cached, err := cachedLocal(dir, key, env, fake)
	if err != nil || !cached || calls != 1 || !reflect.DeepEqual(m1, m2) {
		t.Errorf("second use: cached %t, %d calibrations, %v", cached, calls, err)
	}
	// Another CPU model, eager limit or method version is another key.
	for _, other := range []LocalKey{{CPUModel: "Other CPU"}, {EagerLimit: 4096}, {Method: CalibrationMethod - 1}} {
		o := key
		switch {
		case other.CPUModel != "":
			o.CPUModel = other.CPUModel
		case other.EagerLimit != 0:
			o.EagerLimit = other.EagerLimit
		default:
			o.Method = other.Method
		}
		if o.Path(dir) == key.Path(dir) || !strings.HasPrefix(filepath.Base(o.Path(dir)), "local-") {
			t.Errorf("keys %+v and %+v share %s", key, o, key.Path(dir))
		}
	}
	if k := ThisLocalKey(); k.Method != CalibrationMethod {
		t.Errorf("this machine's key %+v: method %d, want %d", k, k.Method, CalibrationMethod)
	}
	// A damaged file, or one that is not a calibration, is measured again.
	for _, text := range []string{"{not json", strings.Replace(mustWrite(t, m1), `"origin": "calibrated"`, `"origin": "preset"`, 1)} {
		if err := os.WriteFile(key.Path(dir), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		before := calls
		m, cached, err := cachedLocal(dir, key, env, fake)
		if err != nil || cached || calls != before+1 || m.Origin != machine.OriginCalibrated {
			t.Errorf("damaged cache: cached %t, %d calibrations, %v", cached, calls, err)
		}
	}
	// With GOMAXPROCS 1: an error at once, nothing measured; a cached
	// calibration is still read.
	empty := filepath.Join(t.TempDir(), "empty")
	before := calls
	if _, _, err := cachedLocal(empty, key, clock.env(1), fake); err == nil || !strings.Contains(err.Error(), "GOMAXPROCS is 1") || calls != before {
		t.Errorf("GOMAXPROCS 1: %v, %d calibrations", err, calls-before)
	}
	if _, cached, err := cachedLocal(dir, key, clock.env(1), fake); err != nil || !cached {
		t.Errorf("GOMAXPROCS 1, cached: %t, %v", cached, err)
	}
	// A cache that cannot be made (a file where its directory would be):
	// calibrated all the same, the machine returned with the error.
	blocked := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocked, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	before = calls
	if m, cached, err := cachedLocal(filepath.Join(blocked, "machines"), key, env, fake); m == nil || cached || calls != before+1 ||
		err == nil || !strings.Contains(err.Error(), "caching the calibration") {
		t.Errorf("no cache directory: %v, cached %t, %d calibrations, %v", m, cached, calls-before, err)
	}
}

// TestCachedLocalRefusal: a refusal caches nothing, is remembered for
// RefusalTTL (CachedLocal then refuses at once, saying why and when), and
// is tried again after it.
func TestCachedLocalRefusal(t *testing.T) {
	dir := t.TempDir()
	key := testKey
	clock := &fakeEnv{t: time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)}
	env := clock.env(2)
	refusals := 0
	refused := func() (*machine.Machine, error) {
		refusals++
		return nil, &NoisyError{What: "ping-pong of 1 B", Want: 0.05}
	}
	var noisy *NoisyError
	if _, _, err := cachedLocal(dir, key, env, refused); !errors.As(err, &noisy) {
		t.Errorf("refused: %v", err)
	}
	if _, err := os.Stat(key.Path(dir)); err == nil {
		t.Errorf("a refused calibration was cached")
	}
	clock.t = clock.t.Add(RefusalTTL - time.Second)
	_, _, err := cachedLocal(dir, key, env, refused)
	var remembered *RefusedError
	if !errors.As(err, &remembered) || refusals != 1 || !strings.Contains(err.Error(), "refused at 12:00:00 UTC") ||
		!strings.Contains(err.Error(), "too noisy to calibrate: ping-pong of 1 B") || !strings.Contains(err.Error(), ".refused") {
		t.Errorf("within the TTL: %v after %d calibrations", err, refusals)
	}
	// After the TTL: measured again, and a success forgets the refusal.
	clock.t = clock.t.Add(2 * time.Second)
	calls := 0
	if _, cached, err := cachedLocal(dir, key, env, fakeCalibration(&calls)); err != nil || cached || calls != 1 {
		t.Errorf("after the TTL: cached %t, %d calibrations, %v", cached, calls, err)
	}
	if _, err := os.Stat(refusalPath(key.Path(dir))); err == nil {
		t.Errorf("the refusal outlived a calibration")
	}
	// Another error (not a refusal) is not remembered.
	other := filepath.Join(t.TempDir(), "other")
	broken := func() (*machine.Machine, error) { return nil, fmt.Errorf("the in-process runtime: rank 1 died") }
	cachedLocal(other, key, env, broken)
	if _, err := os.Stat(refusalPath(key.Path(other))); err == nil {
		t.Errorf("a failure was remembered as a refusal")
	}
}

// TestCachedLocalLock: while another process holds the lock, CachedLocal
// waits for its calibration and reads it; gives up after lockWait; takes
// over a stale lock.
func TestCachedLocalLock(t *testing.T) {
	key := testKey
	calls := 0
	fake := fakeCalibration(&calls)
	start := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	holdBy := func(dir string, pid int, at time.Time) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(lockPath(key.Path(dir)), []byte(fmt.Sprintf("%d %s\n", pid, at.Format(time.RFC3339Nano))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	hold := func(dir string, at time.Time) { holdBy(dir, 4242, at) }

	// The other process writes its calibration after 3 polls.
	dir := t.TempDir()
	hold(dir, start)
	other := 0
	theirs := fakeCalibration(&other)
	clock := &fakeEnv{t: start}
	clock.onSleep = func() {
		if clock.sleeps == 3 {
			m, _ := theirs()
			if err := m.WriteFile(key.Path(dir)); err != nil {
				t.Fatal(err)
			}
			os.Remove(lockPath(key.Path(dir)))
		}
	}
	m, cached, err := cachedLocal(dir, key, clock.env(2), fake)
	if err != nil || !cached || calls != 0 || clock.sleeps != 3 || m.Intra.Latency != trace.Microsecond {
		t.Errorf("waiting: cached %t, %d calibrations, %d polls, %v", cached, calls, clock.sleeps, err)
	}

	// The other process refuses: its refusal is ours, at once.
	dir = t.TempDir()
	hold(dir, start)
	clock = &fakeEnv{t: start}
	clock.onSleep = func() {
		rememberRefusal(key.Path(dir), errors.New("self-tests failed"), clock.t)
		os.Remove(lockPath(key.Path(dir)))
	}
	var remembered *RefusedError
	if _, _, err := cachedLocal(dir, key, clock.env(2), fake); !errors.As(err, &remembered) || calls != 0 {
		t.Errorf("their refusal: %v, %d calibrations", err, calls)
	}

	// The other process never finishes: an error after lockWait.
	dir = t.TempDir()
	hold(dir, start)
	clock = &fakeEnv{t: start}
	if _, _, err := cachedLocal(dir, key, clock.env(2), fake); err == nil || !strings.Contains(err.Error(), "another predict has been calibrating") ||
		calls != 0 || clock.t.Sub(start) < lockWait || clock.t.Sub(start) > lockWait+time.Second {
		t.Errorf("a lock held too long: %v after %s, %d calibrations", err, clock.t.Sub(start), calls)
	}

	// A lock older than lockStale is a dead process's: taken over.
	dir = t.TempDir()
	hold(dir, start.Add(-lockStale-time.Second))
	clock = &fakeEnv{t: start}
	if _, cached, err := cachedLocal(dir, key, clock.env(2), fake); err != nil || cached || calls != 1 || clock.sleeps != 0 {
		t.Errorf("a stale lock: cached %t, %d calibrations, %d polls, %v", cached, calls, clock.sleeps, err)
	}

	// A lock of a process that no longer runs (interrupted during its
	// calibration): taken over at once.
	dir = t.TempDir()
	holdBy(dir, deadPID, start)
	clock = &fakeEnv{t: start}
	if _, cached, err := cachedLocal(dir, key, clock.env(2), fake); err != nil || cached || calls != 2 || clock.sleeps != 0 {
		t.Errorf("a dead holder's lock: cached %t, %d calibrations, %d polls, %v", cached, calls, clock.sleeps, err)
	}
	if !processAlive(os.Getpid()) {
		t.Errorf("this process does not run")
	}
}

func mustWrite(t *testing.T, m *machine.Machine) string {
	t.Helper()
	b, err := m.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
