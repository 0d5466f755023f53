// This file defines how the interpreter keeps its clocks within the
// picosecond clock's range: saturating arithmetic on times, and the error
// that ends a run whose modeled time passes the clock's limit.

package interp

import (
	"fmt"
	"strings"

	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/trace"
)

// Clocks and costs are int64 picoseconds (trace.Time at the edges). The
// machine package returns machine.Overflow (math.MaxInt64) for every cost
// whose exact value does not fit; every sum that moves a clock is taken
// with addTime, which keeps that sentinel, so a clock that passes the
// limit reads overflowClock, never a wrapped (negative or small) time.
// The process whose clock reaches it stops with an *OverflowError.

// overflowClock is a clock or cost past the picosecond clock's limit.
const overflowClock = int64(machine.Overflow)

// addTime returns a + b saturated at overflowClock (see machine.AddTime).
func addTime(a, b int64) int64 { return int64(machine.AddTime(trace.Time(a), trace.Time(b))) }

// mulTime returns t·n saturated at overflowClock (see machine.MulTime).
func mulTime(t, n int64) int64 { return int64(machine.MulTime(trace.Time(t), n)) }

// subTime returns a − b for a b ≥ 0 that a does not precede by more than
// the range, keeping overflowClock: a time computed back from an
// overflowed one is overflowed too.
func subTime(a, b int64) int64 {
	if a == overflowClock {
		return a
	}
	return a - b
}

// roundTime converts x picoseconds to a time, overflowClock beyond the
// clock (see machine.RoundTime).
func roundTime(x float64) int64 { return int64(machine.RoundTime(x)) }

// OverflowError is a run whose modeled time passes what the picosecond
// clock holds (2⁶³−1 ps ≈ 106 days): a cost of the machine file at the
// edge of its bounds (a 10 GB message at 1 ms/B, a 10 s fragment at
// cpu_factor 1e6) or a run that long. No time is printed for it: the
// prediction does not fit the clock.
type OverflowError struct {
	NP     int
	Rank   int    // world rank; -1 before commlib.Main
	Thread int    // 0: the rank's main thread, else thread+1
	Site   string // file:line of the program being executed
	// What is the operation whose cost takes the clock past its limit:
	// "compute", or the commlib or thread operation.
	What string
}

func (e *OverflowError) Error() string {
	who := actor(e.Rank, e.Thread, "the driver (before commlib.Main)")
	site := e.Site
	if site == "" || site == "-" {
		site = "(unknown position)"
	}
	return fmt.Sprintf("%s: the modeled time passes the picosecond clock's limit (≈ 106 days) at np=%d: %s's %s costs more than the clock holds",
		site, e.NP, who, e.What)
}

// clockOverflow stops p's run with an *OverflowError at site (file:line
// or file:line:col) in what.
func (p *proc) clockOverflow(site, what string) ctl {
	if p.err == nil {
		p.err = &OverflowError{NP: p.w.cfg.NP, Rank: p.rank, Thread: p.thread(), Site: firstLine(site), What: what}
	}
	return cStop
}

// firstLine is the file:line where pos (file:line:col, or a fragment's
// range file:line-line) starts.
func firstLine(pos string) string {
	pos = fileLine(pos)
	if i := strings.LastIndexByte(pos, ':'); i >= 0 {
		if j := strings.IndexByte(pos[i:], '-'); j > 0 {
			return pos[:i+j]
		}
	}
	return pos
}

// advance moves the running thread's clock by t (a cost, saturated at
// overflowClock) and reports whether it still fits; when it does not,
// the run stops at site in what (the caller returns cStop).
func (p *proc) advance(t int64, site, what string) bool {
	c := addTime(p.cur.clock, t)
	if c == overflowClock {
		p.clockOverflow(site, what)
		return false
	}
	p.cur.clock = c
	return true
}

// overflowed reports whether t, a time the running thread's clock is to
// take, is past the limit; if so the run stops at site in what.
func (p *proc) overflowed(t int64, site, what string) bool {
	if t == overflowClock {
		p.clockOverflow(site, what)
		return true
	}
	return false
}

// compute is the target machine's time of t measured picoseconds of
// compute (cpu_factor applied); an overflowed t stays overflowed, even at
// a cpu_factor below 1: the measured time itself is past the limit.
func (w *World) compute(t int64) int64 {
	if t == overflowClock {
		return t
	}
	return int64(w.mach.Compute(trace.Time(t)))
}
