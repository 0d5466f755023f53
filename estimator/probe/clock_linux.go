// This file reads the calling OS thread's CPU clock on Linux.

package probe

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// threadNS returns the CPU time of the calling OS thread in nanoseconds
// (plus one, never 0), or -1 if the system does not report it. It is a raw
// system call: it does not block, so the scheduler need not know (a
// tenth of a microsecond less than unix.ClockGettime).
//
//go:noinline
func threadNS() int64 {
	var ts unix.Timespec
	_, _, errno := unix.RawSyscall(unix.SYS_CLOCK_GETTIME, unix.CLOCK_THREAD_CPUTIME_ID, uintptr(unsafe.Pointer(&ts)), 0)
	if errno != 0 {
		return -1
	}
	return ts.Nano() + 1
}
