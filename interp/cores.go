// This file defines the cores a rank's threads run on and the sharing a
// rank's compute is charged (seed-004 §5.2, the core as a queueing
// centre): a rank's pool and Parallel threads take turns on the rank's
// share of its node's cores, first come first served, when they outnumber
// it; a rank's fragments are charged between their alone and shared times
// by how busy its node's cores are. Ranks beyond a node's cores take turns
// on them (nodecores.go).

package interp

import (
	"math"
	"slices"
)

// initNodes counts the ranks the machine places on each node, and those
// not blocked in communication or ended: all of them, at the start.
func (w *World) initNodes() {
	w.sameNode(0, 0) // builds nodeOf
	var last int32
	for _, n := range w.nodeOf {
		last = max(last, n)
	}
	w.nodeRanks = make([]int32, last+1)
	for _, n := range w.nodeOf {
		w.nodeRanks[n]++
	}
	w.active = slices.Clone(w.nodeRanks)
}

// ranksOnNode is how many ranks the machine places on p's node.
func (w *World) ranksOnNode(p *proc) int {
	return int(w.nodeRanks[w.nodeOf[p.rank]])
}

// coresBusy is how busy a node's cores are with ranks on them: the share
// of the other cores that a rank's node-mates keep busy, (ranks − 1)/
// (cores − 1); single for a node of one core, which has no other.
func coresBusy(ranks, cores int, single float64) float64 {
	if cores < 2 {
		return single
	}
	return float64(min(ranks, cores)-1) / float64(cores-1)
}

// threadCores is how many cores the threads of p run on when they start:
// the cores of its node over the ranks there that are not blocked in
// communication or ended (at least one). The ranks of a node that wait
// for messages leave their cores to the threads of those that compute, as
// parked goroutines leave their Ps; which ranks wait is read when the
// threads start (the rank lets ranks behind it in time run first), not
// followed while they run.
func (w *World) threadCores(p *proc) int {
	if p.rank < 0 {
		return max(1, w.mach.CoresPerNode)
	}
	return max(1, w.mach.CoresPerNode/max(1, int(w.active[w.nodeOf[p.rank]])))
}

// shareOf is how much of the sharing the profile measured p's node sees:
// the busy share of a node's cores, (ranks there − 1)/(cores − 1), over
// that of the profiling run, (np − 1)/(CPUs − 1), at most 1. The timing
// pass measured each fragment alone (no other rank computing) and shared
// (its np ranks on the machine's CPUs); a rank alone on its node is
// charged the first, one on a node whose cores are as busy as the
// profiling machine's the second, and between the two in proportion:
// more sharing than the profile saw is not extrapolated.
func (w *World) shareOf(p *proc) float64 {
	prof := w.prof
	if prof == nil || prof.AloneRel == 0 {
		return 1
	}
	busy := func(ranks, cores int) float64 { return coresBusy(ranks, cores, 1) }
	cpus := prof.CPUs
	if cpus == 0 {
		cpus = prof.NP
	}
	measured := busy(prof.NP, cpus)
	if measured <= 0 {
		return 1
	}
	return min(1, busy(w.ranksOnNode(p), w.mach.CoresPerNode)/measured)
}

// loadOf is how much of the loaded runs' memory load p's node sees beyond
// the profile's own ranks: how busy its node's cores are, (ranks − 1)/
// (cores − 1), above how busy the profile's ranks kept its machine, over
// how much busier the co-runners made it ((np + co-runners − 1)/(CPUs −
// 1)), between 0 and 1. A rank is charged its measured time plus that
// share of the fragment's slowdown beside the co-runners (LoadedRel):
// more than the loaded runs saw is not extrapolated.
func (w *World) loadOf(p *proc) float64 {
	prof := w.prof
	if prof == nil || prof.LoadedRel == 0 || prof.LoadedBy < 1 {
		return 0
	}
	cpus := prof.CPUs
	if cpus == 0 {
		cpus = prof.NP + prof.LoadedBy
	}
	busy := func(ranks, cores int) float64 { return coresBusy(ranks, cores, 0) }
	own, loaded := busy(prof.NP, cpus), busy(prof.NP+prof.LoadedBy, cpus)
	if loaded <= own {
		return 0
	}
	return min(1, max(0, (busy(w.ranksOnNode(p), w.mach.CoresPerNode)-own)/(loaded-own)))
}

// unshared is a compute of t, measured with the profile's sharing, on a
// node of that share of it: between the fragment's alone and measured
// times by share.
func unshared(fr *fragment, t int64, share float64) int64 {
	return t - int64(math.Round(float64(t)*(1-fr.alone)*(1-share)))
}

// useCores gives ts the cores of p when its threads outnumber them; with
// as many cores as threads, each thread has one and never waits.
func (p *proc) useCores(ts *threadSet) {
	ts.share = p.w.threadShareOf(p, len(ts.threads))
	if ts.coreFree != nil {
		return
	}
	// The main thread computes beside the goroutines it started (not
	// beside a pool's tasks, which run while it waits for them).
	busy := len(ts.threads)
	if ts == p.gos {
		busy++
	}
	if n := p.w.threadCores(p); n < busy {
		ts.coreFree = make([]int64, n)
	}
}

// threadShareOf is shareOf for n threads of p: the node's cores are as
// busy as its ranks that compute, n threads each, keep them. One goroutine
// of a rank alone on its node computes alone; four on two cores share them
// as the profile's ranks did.
func (w *World) threadShareOf(p *proc, n int) float64 {
	prof := w.prof
	if prof == nil || prof.AloneRel == 0 || p.rank < 0 {
		return 1
	}
	cpus := prof.CPUs
	if cpus == 0 {
		cpus = prof.NP
	}
	measured := coresBusy(prof.NP, cpus, 1)
	if measured <= 0 {
		return 1
	}
	ranks := max(1, int(w.active[w.nodeOf[p.rank]]))
	return min(1, coresBusy(ranks*max(1, n), w.mach.CoresPerNode, 1)/measured)
}

// onCore returns when the running thread, ready at clock, starts a
// compute of t on the core of cores that frees first, and takes that core
// until it ends; the time before it starts is waiting for a core.
func (p *proc) onCore(cores []int64, clock, t int64) int64 {
	k := 0
	for i, free := range cores {
		if free < cores[k] {
			k = i
		}
	}
	start := max(clock, cores[k])
	cores[k] = addTime(start, t)
	p.coreWait += start - clock
	return start
}

// runtimeLimit is what the prediction says when the Go runtime's collector
// and scavenger took a large share of the timing pass's CPU time and a
// node of this run leaves another number of cores idle than the profiling
// machine did (profile.File.RuntimeLimit): the busiest node's, or "".
func (w *World) runtimeLimit() string {
	if w.prof == nil || len(w.nodeRanks) == 0 {
		return ""
	}
	return w.prof.RuntimeLimit(int(slices.Max(w.nodeRanks)), w.mach.CoresPerNode)
}
