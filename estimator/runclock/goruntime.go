// This file reads what the Go runtime did during a run: its garbage
// collector's and scavenger's CPU time, the bytes the program allocated,
// and the system time and page faults of the process.

package runclock

import "runtime/metrics"

// GoRuntime is what the Go runtime and the system did for the program over
// a run's span. The fragments the timing pass measures hold the part of it
// that ran on their goroutines (allocation, assists, page faults of their
// own memory); the part that ran beside them (the collector's workers and
// the scavenger on idle CPUs) is in none, and how much of it there is
// depends on how many CPUs the ranks leave idle.
type GoRuntime struct {
	// GCCPUNS is the collector's CPU time (/cpu/classes/gc/total, which
	// the runtime estimates from above), ScavengeCPUNS the scavenger's
	// (/cpu/classes/scavenge/total: memory returned to the system).
	GCCPUNS       int64 `json:"gc_cpu_ns"`
	ScavengeCPUNS int64 `json:"scavenge_cpu_ns"`
	AllocBytes    int64 `json:"alloc_bytes"` // heap bytes allocated (/gc/heap/allocs)
	GCCycles      int64 `json:"gc_cycles"`
	// SysCPUNS is the process's system CPU time and MinorFaults its page
	// faults that read no disk (first touches of memory the system
	// handed out, or took back); -1 where the system does not say.
	SysCPUNS    int64 `json:"sys_cpu_ns"`
	MinorFaults int64 `json:"minor_faults"`
}

// runtimeMetrics are the metrics GoRuntime reads, in its fields' order.
var runtimeMetrics = []string{
	"/cpu/classes/gc/total:cpu-seconds",
	"/cpu/classes/scavenge/total:cpu-seconds",
	"/gc/heap/allocs:bytes",
	"/gc/cycles/total:gc-cycles",
}

// readRuntime returns the runtime's and the system's totals so far.
func readRuntime() GoRuntime {
	s := make([]metrics.Sample, len(runtimeMetrics))
	for i, name := range runtimeMetrics {
		s[i].Name = name
	}
	metrics.Read(s)
	v := make([]int64, len(s))
	for i := range s {
		switch s[i].Value.Kind() {
		case metrics.KindFloat64:
			v[i] = int64(s[i].Value.Float64() * 1e9)
		case metrics.KindUint64:
			v[i] = int64(s[i].Value.Uint64())
		}
	}
	g := GoRuntime{GCCPUNS: v[0], ScavengeCPUNS: v[1], AllocBytes: v[2], GCCycles: v[3]}
	g.SysCPUNS, g.MinorFaults = sysFaults()
	return g
}

// since returns what happened between before and g.
func (g GoRuntime) since(before GoRuntime) GoRuntime {
	d := GoRuntime{GCCPUNS: g.GCCPUNS - before.GCCPUNS, ScavengeCPUNS: g.ScavengeCPUNS - before.ScavengeCPUNS,
		AllocBytes: g.AllocBytes - before.AllocBytes, GCCycles: g.GCCycles - before.GCCycles,
		SysCPUNS: -1, MinorFaults: -1}
	if g.SysCPUNS >= 0 && before.SysCPUNS >= 0 {
		d.SysCPUNS, d.MinorFaults = g.SysCPUNS-before.SysCPUNS, g.MinorFaults-before.MinorFaults
	}
	return d
}

// plus is g and h summed: the processes of a launched run.
func (g GoRuntime) plus(h GoRuntime) GoRuntime {
	s := GoRuntime{GCCPUNS: g.GCCPUNS + h.GCCPUNS, ScavengeCPUNS: g.ScavengeCPUNS + h.ScavengeCPUNS,
		AllocBytes: g.AllocBytes + h.AllocBytes, GCCycles: g.GCCycles + h.GCCycles, SysCPUNS: -1, MinorFaults: -1}
	if g.SysCPUNS >= 0 && h.SysCPUNS >= 0 {
		s.SysCPUNS, s.MinorFaults = g.SysCPUNS+h.SysCPUNS, g.MinorFaults+h.MinorFaults
	}
	return s
}
