//go:build !unix

// This file stands in for the CPU time where the system does not report it.

package runclock

// cpuNS returns -1: the CPU time is not known here.
func cpuNS() int64 { return -1 }

// sysFaults returns -1, -1: the system time and page faults are not known
// here.
func sysFaults() (sysNS, minflt int64) { return -1, -1 }
