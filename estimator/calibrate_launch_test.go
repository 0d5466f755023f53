package estimator

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/trace"
)

// TestLaunchedNetwork runs the network part under a fake launcher, a
// script that writes prepared measurements where the tester would: they
// are read back into the calibration, and a refusal or a run that wrote
// nothing is an error naming the launcher.
func TestLaunchedNetwork(t *testing.T) {
	dir := t.TempDir()
	defer func(b func(string) error) { testerBuilder = b }(testerBuilder)
	testerBuilder = func(bin string) error { return os.WriteFile(bin, nil, 0o755) }

	ns := trace.Nanosecond
	lg := machine.LogGOPS{Latency: 500 * ns, Overhead: 200 * ns, GapPerMessage: 300 * ns, GapPerByte: 40 * machine.PicosecondPerByte, EagerLimit: 4096}
	net, _ := syntheticCalibration(t, lg)
	net.RankHosts = []string{"a", "b"}
	var js bytes.Buffer
	if err := net.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good.json")
	refused := filepath.Join(dir, "refused.json")
	os.WriteFile(good, js.Bytes(), 0o644)
	os.WriteFile(refused, []byte(`{"ranks": 2, "error": "the machine is too noisy to calibrate: ping-pong of 1 B"}`), 0o644)
	// The script gets: -np 2 BIN -o OUT ...: it copies $FAKE_JSON to OUT.
	script := filepath.Join(dir, "launch.sh")
	os.WriteFile(script, []byte("#!/bin/sh\nwhile [ \"$1\" != -o ]; do shift; done\n[ -n \"$FAKE_JSON\" ] && cp \"$FAKE_JSON\" \"$2\"\nexit 0\n"), 0o755)
	l, err := ParseLauncher(script + " -np 2")
	if err != nil {
		t.Fatal(err)
	}

	t.Setenv("FAKE_JSON", good)
	cal := &Calibration{}
	if err := cal.launchedNetwork(CalibrateOptions{Launcher: l, Quick: true}, func(string, ...any) {}); err != nil {
		t.Fatal(err)
	}
	if cal.Ranks != 2 || len(cal.PingPong) != len(net.PingPong) || cal.RankHosts[1] != "b" || cal.SendCallBytes != 65536 {
		t.Errorf("read back: %+v", cal)
	}
	cal.Runtime, cal.Memory, cal.Noise.NotMeasured = l.String(), net.Memory, noiseLauncherText
	if err := cal.makeMachine(measurements{}); err != nil {
		t.Fatal(err)
	}
	if m := cal.Machine; m.Name != "mpi" || m.Nodes != 2 || m.Collectives != nil || m.Noise != nil || !strings.Contains(m.Source, "on a and b (inter-node figures") ||
		!strings.Contains(m.Source, "noise: not measured under a launcher") {
		t.Errorf("machine %s, %d nodes, %v\n%s", m, m.Nodes, m.Collectives, m.Source)
	}

	t.Setenv("FAKE_JSON", refused)
	if err := (&Calibration{}).launchedNetwork(CalibrateOptions{Launcher: l}, func(string, ...any) {}); err == nil || !strings.Contains(err.Error(), "too noisy") {
		t.Errorf("refused: %v", err)
	}
	t.Setenv("FAKE_JSON", "")
	if err := (&Calibration{}).launchedNetwork(CalibrateOptions{Launcher: l}, func(string, ...any) {}); err == nil || !strings.Contains(err.Error(), "wrote nothing") {
		t.Errorf("nothing written: %v", err)
	}
	l, _ = ParseLauncher(filepath.Join(dir, "no-such-mpirun") + " -np 2")
	if err := (&Calibration{}).launchedNetwork(CalibrateOptions{Launcher: l}, func(string, ...any) {}); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("missing launcher: %v", err)
	}
}
