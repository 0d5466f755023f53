// This file tests how Main's configuration comes from the environment
// (the flags -np, -trace and -eager are not set in a test binary), and the
// clock. It is an internal test: configFromFlags is not exported.

package commlib

import (
	"strings"
	"testing"
	"time"
)

func TestConfigFromEnvironment(t *testing.T) {
	for _, tc := range []struct {
		np, trace, eager string // environment; "" leaves a variable unset
		want             Config
		err              string
	}{
		{want: Config{NP: 1}},
		{np: "6", want: Config{NP: 6}},
		{np: "3", trace: "/tmp/x.trace", eager: "128", want: Config{NP: 3, TraceFile: "/tmp/x.trace", EagerLimit: 128}},
		{eager: "0", want: Config{NP: 1, EagerLimit: -1}}, // 0: every standard send is rendezvous
		{np: "0", err: `COMMLIB_NP="0": want a number of ranks, at least 1`},
		{np: "four", err: `COMMLIB_NP="four"`},
		{eager: "-5", err: `COMMLIB_EAGER_LIMIT="-5": want a number of bytes, 0 or more`},
		{eager: "lots", err: `COMMLIB_EAGER_LIMIT="lots"`},
	} {
		t.Setenv("COMMLIB_NP", tc.np)
		t.Setenv("COMMLIB_TRACE", tc.trace)
		t.Setenv("COMMLIB_EAGER_LIMIT", tc.eager)
		cfg, err := configFromFlags()
		name := "np=" + tc.np + " trace=" + tc.trace + " eager=" + tc.eager
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want one containing %q", name, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if cfg.NP != tc.want.NP || cfg.TraceFile != tc.want.TraceFile || cfg.EagerLimit != tc.want.EagerLimit {
			t.Errorf("%s: config NP=%d TraceFile=%q EagerLimit=%d, want %d %q %d",
				name, cfg.NP, cfg.TraceFile, cfg.EagerLimit, tc.want.NP, tc.want.TraceFile, tc.want.EagerLimit)
		}
	}
}

func TestWtime(t *testing.T) {
	a := Wtime()
	time.Sleep(2 * time.Millisecond)
	b := Wtime()
	if a < 0 || b-a < 0.002 || b-a > 5 {
		t.Errorf("Wtime went from %v to %v across a 2 ms sleep", a, b)
	}
}

// TestThreads: COMMLIB_THREADS, when set, overrides the program's choice;
// a bad value stops Main.
func TestThreads(t *testing.T) {
	t.Setenv("COMMLIB_THREADS", "")
	if got := Threads(4); got != 4 {
		t.Errorf("unset: Threads(4) = %d, want 4", got)
	}
	t.Setenv("COMMLIB_THREADS", "3")
	if got := Threads(4); got != 3 {
		t.Errorf("COMMLIB_THREADS=3: Threads(4) = %d, want 3", got)
	}
	for _, bad := range []string{"0", "many"} {
		t.Setenv("COMMLIB_THREADS", bad)
		if _, err := configFromFlags(); err == nil || !strings.Contains(err.Error(), `COMMLIB_THREADS="`+bad+`"`) {
			t.Errorf("COMMLIB_THREADS=%s: error %v", bad, err)
		}
	}
}

// TestSpinWaitFromEnvironment: COMMLIB_SPIN_WAIT sets how long blocked
// calls poll; 0 parks at once (-1 in the Config), nonsense is refused.
func TestSpinWaitFromEnvironment(t *testing.T) {
	t.Setenv("COMMLIB_NP", "")
	for _, tc := range []struct {
		env  string
		want time.Duration
		err  string
	}{
		{"", 0, ""},
		{"250us", 250 * time.Microsecond, ""},
		{"0", -1, ""},
		{"-1ms", 0, `COMMLIB_SPIN_WAIT="-1ms": want a duration`},
		{"long", 0, `COMMLIB_SPIN_WAIT="long"`},
	} {
		t.Setenv("COMMLIB_SPIN_WAIT", tc.env)
		cfg, err := configFromFlags()
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want one containing %q", tc.env, err, tc.err)
			}
		case err != nil:
			t.Errorf("%q: %v", tc.env, err)
		case cfg.SpinWait != tc.want:
			t.Errorf("%q: SpinWait %v, want %v", tc.env, cfg.SpinWait, tc.want)
		}
	}
}
