package estimator

import (
	"flag"
	"strings"
	"testing"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/commlib/eagerlimit"
)

// TestRuntimeEagerLimit: a calibration's runtime has the eager limit a
// program gets from commlib.Main here (-eager, else COMMLIB_EAGER_LIMIT,
// else the default), and the machine's S is it.
func TestRuntimeEagerLimit(t *testing.T) {
	for _, tc := range []struct {
		env     string
		args    []string // -eager on the command line, when parsed
		config  int
		runtime int64
		s       int64
	}{
		{"", nil, 0, commlib.DefaultEagerLimit, commlib.DefaultEagerLimit},
		{"4096", nil, 4096, 4096, 4096},
		{"0", nil, -1, -1, 0},
		{"4096", []string{"-eager", "2048"}, 2048, 2048, 2048},
		{"", []string{"-eager", "0"}, -1, -1, 0},
		{"4096", []string{}, 4096, 4096, 4096}, // parsed, -eager not given
	} {
		t.Setenv("COMMLIB_EAGER_LIMIT", tc.env)
		fs := flag.NewFlagSet("tester", flag.ContinueOnError)
		fs.Int("eager", 0, "")
		if tc.args != nil {
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
		}
		cfg, err := eagerlimit.From(fs)
		cal := &Calibration{EagerLimit: runtimeLimit(cfg)}
		if err != nil || cfg != tc.config || cal.EagerLimit != tc.runtime || cal.eagerS() != tc.s {
			t.Errorf("COMMLIB_EAGER_LIMIT=%q %v: config %d, runtime %d, S %d, %v; want %d, %d, %d",
				tc.env, tc.args, cfg, cal.EagerLimit, cal.eagerS(), err, tc.config, tc.runtime, tc.s)
		}
		if tc.args == nil {
			if in, err := eagerlimit.From(nil); err != nil || in != tc.config {
				t.Errorf("in-process, COMMLIB_EAGER_LIMIT=%q: %d, %v", tc.env, in, err)
			}
		}
	}
	t.Setenv("COMMLIB_EAGER_LIMIT", "64k")
	if _, err := eagerlimit.From(nil); err == nil || !strings.Contains(err.Error(), `COMMLIB_EAGER_LIMIT="64k"`) {
		t.Errorf("a bad limit: %v", err)
	}
	// An old calibration's JSON, without the limit: the default.
	if s := (&Calibration{}).eagerS(); s != commlib.DefaultEagerLimit {
		t.Errorf("unrecorded: S %d", s)
	}
}
