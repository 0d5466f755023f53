//go:build !unix

// This file stands in for the CPU time where the system does not report it.

package runclock

// cpuNS returns -1: the CPU time is not known here.
func cpuNS() int64 { return -1 }
