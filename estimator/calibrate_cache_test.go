package estimator

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/trace"
)

func TestCachedLocal(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "machines")
	key := LocalKey{Host: "node7", CPUModel: "Test CPU", CPUs: 2, GoVersion: "go1.26"}
	calls := 0
	fake := func() (*machine.Machine, error) {
		calls++
		m, err := machine.Preset("local")
		if err != nil {
			return nil, err
		}
		m.Origin, m.Source = machine.OriginCalibrated, "fake calibration"
		m.Intra.Latency = trace.Time(calls) * trace.Microsecond
		return m, nil
	}

	// First use: measured and cached.
	m1, cached, err := cachedLocal(dir, key, fake)
	if err != nil || cached || calls != 1 {
		t.Fatalf("first use: cached %t, %d calibrations, %v", cached, calls, err)
	}
	if _, err := os.Stat(key.Path(dir)); err != nil {
		t.Fatalf("not cached: %v", err)
	}
	// Then read from the cache: the same machine, nothing measured.
	m2, cached, err := cachedLocal(dir, key, fake)
	if err != nil || !cached || calls != 1 || !reflect.DeepEqual(m1, m2) {
		t.Errorf("second use: cached %t, %d calibrations, %v", cached, calls, err)
	}
	// Another CPU model is another key.
	other := key
	other.CPUModel = "Other CPU"
	if other.Path(dir) == key.Path(dir) || !strings.HasPrefix(filepath.Base(key.Path(dir)), "local-") {
		t.Errorf("paths %s, %s", key.Path(dir), other.Path(dir))
	}
	if _, cached, _ := cachedLocal(dir, other, fake); cached || calls != 2 {
		t.Errorf("another CPU model: cached %t, %d calibrations", cached, calls)
	}
	// A damaged file, or one that is not a calibration, is measured again.
	for _, text := range []string{"{not json", strings.Replace(mustWrite(t, m1), `"origin": "calibrated"`, `"origin": "preset"`, 1)} {
		if err := os.WriteFile(key.Path(dir), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		before := calls
		m, cached, err := cachedLocal(dir, key, fake)
		if err != nil || cached || calls != before+1 || m.Origin != machine.OriginCalibrated {
			t.Errorf("damaged cache: cached %t, %d calibrations, %v", cached, calls, err)
		}
	}
	// A refused calibration caches nothing.
	refused := func() (*machine.Machine, error) { return nil, &NoisyError{What: "ping-pong of 1 B", Want: 0.05} }
	empty := filepath.Join(t.TempDir(), "empty")
	var noisy *NoisyError
	if _, _, err := cachedLocal(empty, key, refused); !errors.As(err, &noisy) {
		t.Errorf("refused: %v", err)
	}
	if _, err := os.Stat(key.Path(empty)); err == nil {
		t.Errorf("a refused calibration was cached")
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
