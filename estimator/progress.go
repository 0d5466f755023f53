// This file defines the progress lines of the timing pass: each step that
// can take more than a second says when it starts, says every few seconds
// that it is still going, and says how long it took.

package estimator

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// progressEvery is how often a long step says it is still going.
var progressEvery = 5 * time.Second

// Step runs do, telling log (which may be nil) what it does: "what…" when
// it starts, "what… 5s" while it runs, and "what: done in 1.2s" (or
// "failed after") at the end. The start line is enough for a step that
// takes less than a second: nothing else is printed then. The CLI uses it
// for its own long steps (loading a program for run and scale), so that
// every step prints its progress the same way.
func Step(log io.Writer, what string, do func() error) error {
	if log == nil {
		return do()
	}
	fmt.Fprintf(log, "%s…\n", what)
	start := time.Now()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(progressEvery)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				fmt.Fprintf(log, "%s… %v\n", what, time.Since(start).Round(time.Second))
			}
		}
	})
	err := do()
	close(stop)
	wg.Wait()
	took := time.Since(start)
	switch {
	case err != nil:
		fmt.Fprintf(log, "%s: failed after %v\n", what, took.Round(10*time.Millisecond))
	case took >= time.Second:
		fmt.Fprintf(log, "%s: done in %v\n", what, took.Round(10*time.Millisecond))
	}
	return err
}
