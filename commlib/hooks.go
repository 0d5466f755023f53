// This file defines the hooks that tools (the timing pass of predict) use
// to follow a run: when ranks start and end and when runs end.

package commlib

import (
	"sync"
	"time"
)

// Hooks are called by every run of the process, from the goroutines
// concerned. They must be cheap and safe for concurrent use.
type Hooks struct {
	// RankStart is called in a rank's goroutine before its body runs,
	// with the rank and the number of ranks.
	RankStart func(rank, np int)
	// RankEnd is called in a rank's goroutine when its body has returned
	// and its pool threads have finished (not when the rank failed).
	RankEnd func(rank int)
	// RunEnd is called when a run ends, after every rank has returned (or
	// the run failed), with the run's error.
	RunEnd func(err error)
	// CallTime, if set, receives the duration of every commlib call (by
	// any thread of the rank): the time a rank spends in communication and
	// synchronization rather than computing. It costs two clock readings
	// per call.
	CallTime func(rank int, d time.Duration)
	// CallStart, if set, is called in the calling goroutine as every
	// commlib call starts, before its CallTime: a tool that times calls
	// by another clock (a thread's CPU time) reads it there.
	CallStart func(rank int)
}

var (
	hooksMu sync.Mutex
	hooks   []Hooks
)

// AddHooks registers hooks for every later run of the process.
func AddHooks(h Hooks) {
	hooksMu.Lock()
	defer hooksMu.Unlock()
	hooks = append(hooks, h)
}

// currentHooks returns the registered hooks.
func currentHooks() []Hooks {
	hooksMu.Lock()
	defer hooksMu.Unlock()
	return hooks
}
