// This file defines CachedLocal: this machine's quick calibration, measured
// on first use and cached by host and CPU model, for the commands that run
// with no --machine.

package estimator

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/predict-tools/predict/machine"
)

// DefaultMachineCache is where CachedLocal keeps calibrations by default:
// predict/machines under [os.UserCacheDir] (the temporary directory where
// the system names none), beside the profiles.
func DefaultMachineCache() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "predict", "machines")
}

// LocalKey is what a cached calibration was measured on: the host, its CPU
// model and count, and the Go version (whose runtime the in-process ranks
// are).
type LocalKey struct {
	Host, CPUModel string
	CPUs           int
	GoVersion      string
}

// ThisLocalKey is the key of this machine.
func ThisLocalKey() LocalKey {
	h := thisHost()
	return LocalKey{Host: h.Name, CPUModel: h.CPUModel, CPUs: h.CPUs, GoVersion: h.GoVersion}
}

// Path is the file of the calibration cached in dir under k; its name
// hashes the key.
func (k LocalKey) Path(dir string) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s\x00%s\x00%d\x00%s", k.Host, k.CPUModel, k.CPUs, k.GoVersion))
	return filepath.Join(dir, "local-"+hex.EncodeToString(sum[:8])+".machine.json")
}

// CachedLocal returns this machine's calibration: the one cached in dir
// for this host and CPU model (cached true), or a quick calibration
// measured now (Calibrate with Quick, progress to log; a few seconds) and
// cached there (cached false). A cached file that does not read as a
// calibrated machine is measured again and replaced. A calibration that
// is refused (a noisy machine, a failed self-test) is an error and
// caches nothing.
func CachedLocal(dir string, log io.Writer) (m *machine.Machine, cached bool, err error) {
	return cachedLocal(dir, ThisLocalKey(), func() (*machine.Machine, error) {
		cal, err := Calibrate(CalibrateOptions{Quick: true, Log: log})
		if err != nil {
			return nil, err
		}
		return cal.Machine, nil
	})
}

// cachedLocal is CachedLocal with the key and the calibration given.
func cachedLocal(dir string, k LocalKey, calibrate func() (*machine.Machine, error)) (*machine.Machine, bool, error) {
	path := k.Path(dir)
	if m, err := machine.Load(path); err == nil && m.Origin == machine.OriginCalibrated {
		return m, true, nil
	}
	m, err := calibrate()
	if err != nil {
		return nil, false, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return m, false, fmt.Errorf("caching the calibration: %v", err)
	}
	if err := m.WriteFile(path); err != nil {
		return m, false, fmt.Errorf("caching the calibration: %v", err)
	}
	return m, false, nil
}
