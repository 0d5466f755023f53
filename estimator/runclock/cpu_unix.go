//go:build unix

// This file reads the process's CPU time where the system reports it.

package runclock

import "syscall"

// cpuNS returns the process's user and system time, all threads, in ns.
func cpuNS() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// sysFaults returns the process's system time (ns) and minor page faults.
func sysFaults() (sysNS, minflt int64) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1, -1
	}
	return ru.Stime.Nano(), ru.Minflt
}
