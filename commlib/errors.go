// This file defines the errors a run reports and the call-site lookup they use.

package commlib

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Error is a misuse of commlib or a failure in a rank: the run stops and
// reports it.
type Error struct {
	Rank   int    // world rank at fault
	Thread int    // 0 for the rank's main thread, 1+tid for a pool thread
	Op     string // the operation, e.g. "Recv"
	Site   string // the program's call site, file:line
	Msg    string
	Stack  string // the goroutine's stack, for panics
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "rank %d", e.Rank)
	if e.Thread > 0 {
		fmt.Fprintf(&b, " thread %d", e.Thread-1)
	}
	if e.Op != "" {
		fmt.Fprintf(&b, ": %s", e.Op)
	}
	if e.Site != "" {
		fmt.Fprintf(&b, " at %s", e.Site)
	}
	fmt.Fprintf(&b, ": %s", e.Msg)
	if e.Stack != "" {
		fmt.Fprintf(&b, "\n%s", e.Stack)
	}
	return b.String()
}

// abortUnwind is panicked inside ranks and threads after the run failed
// elsewhere, to stop them; it is not an error of its own.
type abortUnwind struct{}

// usageError makes the error for a misuse by the rank of c in operation op,
// located at the program's call site.
func (c *Comm) usageError(op, format string, args ...any) *Error {
	return &Error{Rank: c.p.rank, Thread: c.w.threadOf(), Op: op, Site: userSite(), Msg: fmt.Sprintf(format, args...)}
}

// fail raises a misuse error: the calling rank stops and the run fails.
func (c *Comm) fail(op, format string, args ...any) {
	panic(c.usageError(op, format, args...))
}

const commlibPrefix = "github.com/predict-tools/predict/commlib."

// userSite returns file:line of the innermost caller outside commlib.
func userSite() string {
	var pcs [32]uintptr
	return siteOf(pcs[:runtime.Callers(2, pcs[:])])
}

// siteOf returns file:line of the innermost frame of pcs outside commlib.
func siteOf(pcs []uintptr) string {
	frames := runtime.CallersFrames(pcs)
	for {
		f, more := frames.Next()
		if f.Function != "" && !strings.HasPrefix(f.Function, commlibPrefix) && !strings.HasPrefix(f.Function, "runtime.") {
			return fmt.Sprintf("%s:%d", f.File, f.Line)
		}
		if !more {
			return "commlib (implicit, at the end of the rank's body)"
		}
	}
}

// shortSite makes a file:line readable: relative to the working directory
// when below it.
func shortSite(site string) string {
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, site); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
	}
	return site
}
