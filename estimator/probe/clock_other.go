//go:build !linux

// This file stands in for the thread CPU clock where the probes do not
// read it: fragments are timed by the wall clock.

package probe

// threadNS returns -1: no thread clock here.
func threadNS() int64 { return -1 }

// threadID returns 0: with no thread clock, no region asks.
func threadID() int { return 0 }
