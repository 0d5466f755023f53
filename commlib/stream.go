// This file defines the streaming co-runners of Config.Stream
// (COMMLIB_STREAM=N): goroutines that stream through memory, a STREAM
// triad over arrays larger than the caches, while the ranks run. The
// timing pass runs a program with them to measure how much each fragment
// slows down when other cores of its node load the memory: what ranks
// beside it cost it on a node, measured at any number of ranks.

package commlib

import (
	"sync"
	"sync/atomic"
)

// streamLen is the length of each of a co-runner's three arrays: 32 MiB
// each, beyond the last-level cache of the machines the tool runs on.
const streamLen = 4 << 20

// maxStreams bounds Config.Stream.
const maxStreams = 64

// startStreams starts n co-runners and returns the function that stops
// them and waits until they have.
func startStreams(n int) (stop func()) {
	if n <= 0 {
		return func() {}
	}
	var done atomic.Bool
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a, b, c := make([]float64, streamLen), make([]float64, streamLen), make([]float64, streamLen)
			for i := range b {
				b[i], c[i] = 1, 2
			}
			const chunk = 1 << 16 // elements between checks of done
			for !done.Load() {
				for lo := 0; lo < streamLen && !done.Load(); lo += chunk {
					hi := lo + chunk
					for i := lo; i < hi; i++ {
						a[i] = b[i] + 3*c[i]
					}
				}
				a, b = b, a
			}
		}()
	}
	return func() {
		done.Store(true)
		wg.Wait()
	}
}
