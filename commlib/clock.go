//go:build !mpi

// This file defines the clock of the in-process runtime.

package commlib

import "time"

var processStart = time.Now()

// clock is the time in seconds since the process started.
func clock() float64 { return time.Since(processStart).Seconds() }
