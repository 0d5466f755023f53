// This file defines what the Go runtime and the system did for a program
// during the timing pass, and what a prediction says of it.

package profile

import (
	"fmt"
	"strings"
)

// Runtime is what the Go runtime and the system did for the program during
// the timing pass's kept plain run (the fastest), over its span. The
// fragments hold the part that ran on the ranks' goroutines: allocating
// and zeroing, the collector's assists, the page faults of their own
// first touches. The part that runs beside them, on CPUs the ranks leave
// idle (the collector's idle workers, the scavenger returning memory to
// the system, and the page faults when the program touches that memory
// again), is in no fragment, and how much of it there is depends on how
// many CPUs the ranks leave idle.
type Runtime struct {
	// GCCPUPS is the collector's CPU time (runtime/metrics
	// /cpu/classes/gc/total, an estimate from above), ScavengeCPUPS the
	// scavenger's (/cpu/classes/scavenge/total).
	GCCPUPS       int64 `json:"gc_cpu_ps"`
	ScavengeCPUPS int64 `json:"scavenge_cpu_ps"`
	AllocBytes    int64 `json:"alloc_bytes"` // heap bytes allocated (/gc/heap/allocs)
	GCCycles      int64 `json:"gc_cycles"`
	// SysCPUPS is the process's system CPU time, MinorFaults its page
	// faults that read no disk; -1 where the system does not say.
	SysCPUPS    int64 `json:"sys_cpu_ps"`
	MinorFaults int64 `json:"minor_faults"`
}

// RuntimeWarnShare is the share of the plain run's CPU time the runtime's
// collector and scavenger may take before the timing pass warns, and a
// prediction at an np that leaves another number of CPUs idle says so.
// The system's time is not counted in it: the first touches of a
// program's arrays are system time too, and they are the rank's own work,
// measured in its fragments (stencil's and mg's runs spend 15-19 % of
// their CPU time there, and 0 % in the collector).
const RuntimeWarnShare = 0.10

// RuntimeShare is the share of the plain run's CPU time (all threads) that
// the collector and the scavenger took, or 0 where the profile does not
// say.
func (p *File) RuntimeShare() float64 {
	rt := p.Runtime
	if rt == nil || p.PlainRunCPUPS <= 0 {
		return 0
	}
	return float64(rt.GCCPUPS+rt.ScavengeCPUPS) / float64(p.PlainRunCPUPS)
}

// RuntimeText says what the runtime did, in a line, or "" where the
// profile does not say.
func (p *File) RuntimeText() string {
	rt := p.Runtime
	if rt == nil || p.PlainRunCPUPS <= 0 {
		return ""
	}
	pct := func(ps int64) string { return fmt.Sprintf("%.0f%%", 100*float64(ps)/float64(p.PlainRunCPUPS)) }
	var b strings.Builder
	fmt.Fprintf(&b, "the plain run allocated %s in %d collections; of its CPU time the collector took %s, the scavenger %s",
		bytesText(rt.AllocBytes), rt.GCCycles, pct(rt.GCCPUPS), pct(rt.ScavengeCPUPS))
	if rt.SysCPUPS >= 0 {
		fmt.Fprintf(&b, ", the system %s (%d page faults)", pct(rt.SysCPUPS), rt.MinorFaults)
	}
	return b.String()
}

// idleCPUs is how many of the profiling machine's CPUs the ranks left
// idle, or -1 where the profile does not say.
func (p *File) idleCPUs() int {
	if p.CPUs <= 0 || p.Launcher != "" {
		return -1
	}
	return max(0, p.CPUs-p.NP)
}

// RuntimeWarning is the timing pass's warning when the collector and the
// scavenger took a large share of the plain run's CPU time, or "".
func (p *File) RuntimeWarning() string {
	share := p.RuntimeShare()
	if share < RuntimeWarnShare {
		return ""
	}
	idle := "a prediction"
	if n := p.idleCPUs(); n >= 0 {
		idle = fmt.Sprintf("the ranks left %d of the %d CPUs idle; a prediction", n, p.CPUs)
	}
	return fmt.Sprintf("the Go runtime's collector and scavenger took %.0f%% of the plain run's CPU time (%s): the fragments hold what ran on the ranks' goroutines, not the collector's and scavenger's work on idle CPUs nor the page faults it causes; %s at an np that leaves another number of CPUs idle on a node charges it as measured here, which the run then says",
		100*share, p.RuntimeText(), idle)
}

// RuntimeLimit is what a prediction whose node runs ranks on cores says
// when the collector and scavenger took a large share of the timing pass's CPU time
// and the node leaves another number of cores idle than the profiling
// machine did, or "".
func (p *File) RuntimeLimit(ranks, cores int) string {
	then := p.idleCPUs()
	now := max(0, cores-ranks)
	share := p.RuntimeShare()
	if share < RuntimeWarnShare || then < 0 || cores <= 0 || now == then {
		return ""
	}
	return fmt.Sprintf("the Go runtime's collector and scavenger took %.0f%% of the timing pass's CPU time (%s) with %d of its %d CPUs idle; here a node runs %d rank(s) on %d cores, %d idle: the collector's and scavenger's work beside the ranks, and the page faults it causes, change with the idle cores, and the model charges them as the timing pass measured them",
		100*share, p.RuntimeText(), then, p.CPUs, ranks, cores, now)
}

// bytesText writes a byte count with a binary prefix.
func bytesText(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, i := float64(n)/unit, 0
	for v >= unit && i < 4 {
		v /= unit
		i++
	}
	return fmt.Sprintf("%.3g %ciB", v, "KMGTP"[i])
}
