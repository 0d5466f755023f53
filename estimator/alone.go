// This file defines the alone and loaded runs. The alone runs: in each
// round, one more run with probes in which the ranks take turns
// (commlib's COMMLIB_SERIAL), so that each fragment is measured without
// the other ranks computing beside it. With np ranks on
// this machine's cores, the other runs measure every fragment while the
// ranks share the cores' caches and the memory bandwidth (and, beyond the
// cores, the cores themselves): mg, pic and swarm ran 1.3–1.4 times the
// CPU time at np = 2 on 2 cores that they ran at np = 1. The interpreter
// charges a fragment between its alone and its shared time by how many of
// its node's cores the ranks there keep busy (interp/cores.go).
//
// The loaded runs, when the ranks leave CPUs idle (np = 1 on this
// machine): in each round, one more run with probes and goroutines
// streaming through memory on the idle CPUs (commlib's COMMLIB_STREAM), so
// that each fragment is measured beside a known load of the memory too.
// The interpreter charges a fragment between its measured and loaded time
// by how many of its node's cores the other ranks keep busy.

package estimator

import (
	"math"
	"strings"
	"time"

	"github.com/predict-tools/predict/estimator/probe"
	"github.com/predict-tools/predict/profile"
)

const (
	// SerialEnv makes commlib's ranks and threads take turns.
	SerialEnv = "COMMLIB_SERIAL"
	// aloneMinPS is the least time a fragment must have taken, in all,
	// in both the alone run and the shared ones for its ratio to count:
	// below, one interrupt decides it.
	aloneMinPS = 200_000_000 // 200 µs
	// aloneLo and aloneHi bound a fragment's alone/shared ratio: beyond,
	// the runs disagree for reasons other than sharing.
	aloneLo, aloneHi = 0.25, 1.5
	// StreamEnv starts commlib's streaming co-runners.
	StreamEnv = "COMMLIB_STREAM"
	// loadedLo and loadedHi bound a fragment's loaded/measured ratio.
	loadedLo, loadedHi = 0.67, 4
	// maxLoaders bounds the co-runners of a loaded run.
	maxLoaders = 4
)

// starvedTries is how many more times a loaded run whose co-runners and
// ranks took turns on a core is measured before it is left out.
const starvedTries = 2

// starvedMinWall is the shortest loaded run whose busy cores are judged.
const starvedMinWall = 100 * time.Millisecond

// loadedStarved reports whether a loaded run kept fewer cores busy (its
// process's CPU time over its wall time) than need: its co-runners, which
// never block, each keep a core, and its ranks half of what they kept in
// the round's plain run, at most three quarters of the cpus (ranks whose
// threads filled the cores in the plain run share them with the
// co-runners). Below, a co-runner and a rank took turns on one
// core while another idled (Go's scheduler may leave a P idle while two
// goroutines share one, until something wakes it), and the fragments
// read the sharing of a core, up to twice their time, not the memory's,
// which every busier node would then be charged (cg's prediction at
// np = 2 from a profile at np = 1 once read +101 %, likely so). A run
// whose times are unknown, or shorter than starvedMinWall (the process's
// start, one thread, weighs in its busy cores), is not judged.
func loadedStarved(loaded, plain runResult, loaders, cpus int) (busy, need float64, starved bool) {
	if loaded.wall < starvedMinWall || loaded.cpu <= 0 || plain.wall <= 0 || plain.cpu <= 0 {
		return 0, 0, false
	}
	busy = loaded.cpu.Seconds() / loaded.wall.Seconds()
	need = min(float64(loaders)+0.5*plain.cpu.Seconds()/plain.wall.Seconds(), 0.75*float64(cpus))
	return busy, need, busy < need
}

// extraRuns are the alone or the loaded runs of a timing pass: whether it
// runs them, their name (of their raw files) and what they are (for the
// log), the environment that makes them so, what they measured and why
// they stopped.
type extraRuns struct {
	on              bool
	name, what, env string
	raws            []*probe.Raw
	err             error
}

// applyAlone sets each fragment's AloneRel from the alone runs rs: the
// median over them of its mean there over its mean in the shared runs
// (before scaling to the plain run, as theirs are), and the profile's
// time-weighted AloneRel. One alone run is as noisy as one shared run:
// the median keeps a disturbed one from deciding (three fresh profiles of
// mg predicted np = 1 25 % apart with one alone run each).
func applyAlone(p *profile.File, plan *Plan, rs []*probe.Raw) {
	p.AloneRel = applyRel(p, plan, rs, aloneLo, aloneHi, func(f *profile.FragmentStats, rel float64) { f.AloneRel = rel })
}

// applyLoaded sets each fragment's LoadedRel from the loaded runs rs (n
// co-runners streaming through memory beside the ranks) as applyAlone
// does AloneRel, and the profile's LoadedRel and LoadedBy.
func applyLoaded(p *profile.File, plan *Plan, rs []*probe.Raw, n int) {
	p.LoadedRel = applyRel(p, plan, rs, loadedLo, loadedHi, func(f *profile.FragmentStats, rel float64) { f.LoadedRel = rel })
	if p.LoadedRel > 0 {
		p.LoadedBy = n
	}
}

// applyRel sets, through set, each fragment's ratio of its mean in the
// runs rs over its mean in the profile's runs: the median over rs, within
// [lo, hi], for fragments that took aloneMinPS in all in both; it returns
// the time-weighted ratio (0: none).
func applyRel(p *profile.File, plan *Plan, rs []*probe.Raw, lo, hi float64, set func(*profile.FragmentStats, float64)) float64 {
	other := map[fragKey][]profile.FragmentStats{}
	for _, q := range perRun(p, plan, rs) {
		for _, f := range q.Fragments {
			other[keyOf(f)] = append(other[keyOf(f)], f)
		}
	}
	scale := p.Scale
	if scale <= 0 {
		scale = 1
	}
	var weighted, total float64
	for i := range p.Fragments {
		f := &p.Fragments[i]
		if f.Kind == profile.FragBranch {
			continue
		}
		base := float64(f.MeanPS) / scale
		tot := base * float64(f.Executions)
		if base <= 0 || tot < aloneMinPS {
			continue
		}
		var rels []float64
		for _, a := range other[keyOf(*f)] {
			if a.MeanPS > 0 && float64(a.MeanPS)*float64(a.Executions) >= aloneMinPS {
				rels = append(rels, float64(a.MeanPS)/base)
			}
		}
		if len(rels) == 0 {
			continue
		}
		rel := math.Min(hi, math.Max(lo, median(rels)))
		set(f, math.Round(rel*1000)/1000)
		weighted += rel * tot
		total += tot
	}
	if total == 0 {
		return 0
	}
	return math.Round(weighted/total*1000) / 1000
}

// firstLine is the first line of err's message.
func firstLine(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
