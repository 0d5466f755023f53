// This file reads the calling OS thread's CPU clock on Linux.

package probe

import (
	"syscall"
	"unsafe"
)

// clockThreadCPUTimeID is Linux's CLOCK_THREAD_CPUTIME_ID (uapi/linux/time.h),
// which package syscall does not name.
const clockThreadCPUTimeID = 3

// threadNS returns the CPU time of the calling OS thread in nanoseconds
// (plus one, never 0), or -1 if the system does not report it. It is a raw
// system call: it does not block, so the scheduler need not know (a
// tenth of a microsecond less than a clock_gettime that does).
//
// It uses package syscall, not golang.org/x/sys: the probes are compiled
// into the user's program, inside the user's module, whose go.sum holds
// only what the user's own imports need. Everything the instrumented build
// adds must be the standard library or packages of predict that commlib's
// dependencies already cover.
//
//go:noinline
func threadNS() int64 {
	var ts syscall.Timespec
	_, _, errno := syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0)
	if errno != 0 {
		return -1
	}
	return ts.Nano() + 1
}

// threadID returns the calling OS thread's id.
func threadID() int { return syscall.Gettid() }
