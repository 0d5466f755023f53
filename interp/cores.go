// This file defines the cores a rank's threads run on (seed-004 §5.2, the
// core as a queueing centre): a node's cores are shared by the ranks the
// machine places on it, and a rank's pool and Parallel threads take turns
// on the rank's share, first come first served, when they outnumber it.

package interp

// threadCores is how many cores the threads of p run on: the cores of its
// node over the ranks placed there (at least one).
func (w *World) threadCores(p *proc) int {
	if w.nodeRanks == nil {
		w.sameNode(0, 0) // builds nodeOf
		w.nodeRanks = map[int32]int{}
		for _, n := range w.nodeOf {
			w.nodeRanks[n]++
		}
	}
	return max(1, w.mach.CoresPerNode/w.nodeRanks[w.nodeOf[p.rank]])
}

// useCores gives ts the cores of p when its threads outnumber them; with
// as many cores as threads, each thread has one and never waits.
func (p *proc) useCores(ts *threadSet) {
	if ts.coreFree != nil {
		return
	}
	if n := p.w.threadCores(p); n < len(ts.threads) {
		ts.coreFree = make([]int64, n)
	}
}

// onCore returns when the running thread, ready at clock, starts a
// compute of t on the core that frees first, and takes that core until
// it ends; the time before it starts is waiting for a core.
func (p *proc) onCore(clock, t int64) int64 {
	cores := p.threads.coreFree
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
