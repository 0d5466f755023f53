// This file defines the clocks the probes read: the monotonic wall clock,
// and, in a program that runs pool or Parallel threads, the CPU clock of
// the OS thread that runs the fragment.
//
// The interpreter charges a thread's fragments to a logical thread that
// has a core to itself. When a program runs more threads than the machine
// has cores (a pool of 4 on 2 cores, or other processes' load), the wall
// time of a fragment includes the time its goroutine waited for a core:
// the Go scheduler preempts a goroutine that has run 10 ms while others
// wait, and the system deschedules the OS thread. A thread's CPU clock
// (CLOCK_THREAD_CPUTIME_ID) counts only the time it ran. A goroutine moves
// between OS threads, so Now locks the calling goroutine to its OS thread
// (runtime.LockOSThread, a few nanoseconds; the lock nests) and the probe
// that closes the fragment (Seg, Loop) unlocks it: the fragment's two
// readings come from the same thread, whose clock counts no other
// goroutine's work. A goroutine preempted while locked leaves its thread
// idle until it runs again. The probes of a loop's sampled iterations
// (Iter, IterEnd) run inside the loop's fragment and only read the clock.
//
// Reading the thread's CPU clock is a system call (the vDSO serves only
// the wall clocks): 0.5 µs on the development machine against 25 ns for
// the wall clock; the calibration measures it like the wall clock's cost
// and it is compensated the same way.

package probe

import (
	"runtime"
	"time"
)

// threadClock says that fragments are timed by the CPU clock of their
// thread. DeclareThreads sets it before the program's main runs; it does
// not change afterwards.
var threadClock bool

// start is when the package was initialized, a nanosecond early so that
// the wall clock is never 0 (Iter's callers use 0 for "no previous
// iteration").
var start = time.Now().Add(-1)

// Now starts a fragment timed by the wall clock: it returns the monotonic
// time in nanoseconds since the process started. It inlines.
func Now() int64 { return int64(time.Since(start)) }

// NowThread starts a fragment timed by the thread clock, in a program
// declared by DeclareThreads: it locks the calling goroutine to its OS
// thread until Seg or Loop closes the fragment and returns the thread's
// CPU time in nanoseconds. The instrumenter calls it instead of Now. Where
// there is no thread clock it is Now.
func NowThread() int64 {
	if !threadClock {
		return Now()
	}
	runtime.LockOSThread()
	return threadNS()
}

// sinceThread closes a fragment begun at t0, a NowThread value, and returns
// its duration (Seg and Loop call it with the thread clock, and read Now
// inline otherwise).
//
//go:noinline
func sinceThread(t0 int64) int64 {
	d := threadNS() - t0
	runtime.UnlockOSThread()
	return d
}

// clock reads the fragments' clock inside a fragment: no lock changes
// (Iter and IterEnd read it inline).
func clock() int64 {
	if threadClock {
		return threadNS()
	}
	return int64(time.Since(start))
}

// wallNow returns the monotonic time in nanoseconds since the process
// started, whatever clock the fragments use: the run's wall time.
func wallNow() int64 { return int64(time.Since(start)) }

// ClockName says which clock timed the fragments: "wall", or "thread" for
// the CPU clock of their threads.
func ClockName() string {
	if threadClock {
		return ClockThread
	}
	return ClockWall
}

// The clocks of [Raw.Clock].
const (
	ClockWall   = "wall"
	ClockThread = "thread"
)

// DeclareThreads is Declare for a program that runs pool or Parallel
// threads: its fragments are timed by the CPU clock of their thread where
// the system has one (see the top of this file), else by the wall clock,
// and start with NowThread. It must be called before any probe runs (the
// instrumented program's init function does).
func DeclareThreads(n int32) {
	if threadNS() > 0 {
		threadClock = true
	}
	Declare(n)
}
