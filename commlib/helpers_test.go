// This file defines helpers shared by the tests of package commlib: call
// sites marked in the test sources, error checks, and hook recorders.

package commlib_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/trace"
)

// site returns "file:line" of the line of the calling test file that ends
// with the comment "// @site:name", as commlib reports call sites (the
// absolute file name of the compiled source). The marker must be unique.
func site(t testing.TB, name string) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(1)
	if !ok {
		t.Fatal("site: no caller")
	}
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("site: %v", err)
	}
	marker := "// @site:" + name
	found := ""
	for i, line := range strings.Split(string(src), "\n") {
		if strings.HasSuffix(strings.TrimSpace(line), marker) {
			if found != "" {
				t.Fatalf("site: marker %q appears twice in %s", marker, file)
			}
			found = fmt.Sprintf("%s:%d", file, i+1)
		}
	}
	if found == "" {
		t.Fatalf("site: no line ends with %q in %s", marker, file)
	}
	return found
}

// shortName is the base name and line of a site, which both the absolute
// and the working-directory-relative forms of the site contain.
func shortName(site string) string { return filepath.Base(site) }

// thisFile returns the absolute name of the calling test file.
func thisFile() string {
	_, file, _, _ := runtime.Caller(1)
	return file
}

// wantError checks that err is an *commlib.Error raised by rank (any rank
// when rank < 0) in operation op at site, whose message contains msg, and
// that its text names the rank, the operation and the site.
func wantError(t *testing.T, err error, rank int, op, site, msg string) *commlib.Error {
	t.Helper()
	var e *commlib.Error
	if !errors.As(err, &e) {
		t.Fatalf("got error %v (%T), want a *commlib.Error", err, err)
	}
	if rank >= 0 && e.Rank != rank {
		t.Errorf("Error.Rank = %d, want %d (%v)", e.Rank, rank, e)
	}
	if e.Op != op {
		t.Errorf("Error.Op = %q, want %q (%v)", e.Op, op, e)
	}
	if e.Site != site {
		t.Errorf("Error.Site = %q, want %q (%v)", e.Site, site, e)
	}
	if !strings.Contains(e.Msg, msg) {
		t.Errorf("Error.Msg = %q, want it to contain %q", e.Msg, msg)
	}
	text := e.Error()
	for _, want := range []string{fmt.Sprintf("rank %d", e.Rank), op, shortName(site), msg} {
		if !strings.Contains(text, want) {
			t.Errorf("error text %q does not contain %q", text, want)
		}
	}
	return e
}

// timedRun runs body on np ranks with cfg and returns the run's error and
// how long Run took.
func timedRun(cfg commlib.Config, body func(c *commlib.Comm)) (error, time.Duration) {
	start := time.Now()
	err := commlib.RunWith(cfg, body)
	return err, time.Since(start)
}

// mustRun runs body on np ranks and fails the test if the run fails.
func mustRun(t *testing.T, np int, body func(c *commlib.Comm)) {
	t.Helper()
	if err := commlib.Run(np, body); err != nil {
		t.Fatalf("Run(%d): %v", np, err)
	}
}

// mustRunWith is mustRun with a configuration.
func mustRunWith(t *testing.T, cfg commlib.Config, body func(c *commlib.Comm)) {
	t.Helper()
	if err := commlib.RunWith(cfg, body); err != nil {
		t.Fatalf("RunWith(np=%d): %v", cfg.NP, err)
	}
}

// recorder collects the events a Config.Hook receives.
type recorder struct {
	mu     sync.Mutex
	events []trace.Event
}

func (r *recorder) hook(ev trace.Event) {
	r.mu.Lock()
	r.events = append(r.events, ev)
	r.mu.Unlock()
}

// all returns a copy of the events recorded so far.
func (r *recorder) all() []trace.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]trace.Event(nil), r.events...)
}

// find returns the events of rank with operation op.
func (r *recorder) find(rank int, op string) []trace.Event {
	var out []trace.Event
	for _, ev := range r.all() {
		if ev.Rank == rank && ev.Op == op && ev.Kind == trace.KindOp {
			out = append(out, ev)
		}
	}
	return out
}

// waitFlag polls f until it is set or d has passed, and reports whether it
// was set. A rank that polls is running, so deadlock detection ignores it.
func waitFlag(f *atomic.Bool, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for !f.Load() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(200 * time.Microsecond)
	}
	return true
}

// errRank returns the rank of an *commlib.Error, or -1.
func errRank(err error) int {
	var e *commlib.Error
	if errors.As(err, &e) {
		return e.Rank
	}
	return -1
}
