// This file defines the alone runs: in each round, one more run with
// probes in which the ranks take turns (commlib's COMMLIB_SERIAL), so that
// each fragment is measured without the other ranks computing beside it. With np ranks on
// this machine's cores, the other runs measure every fragment while the
// ranks share the cores' caches and the memory bandwidth (and, beyond the
// cores, the cores themselves): mg, pic and swarm ran 1.3–1.4 times the
// CPU time at np = 2 on 2 cores that they ran at np = 1. The interpreter
// charges a fragment between its alone and its shared time by how many of
// its node's cores the ranks there keep busy (interp/cores.go).

package estimator

import (
	"math"
	"strings"

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
)

// applyAlone sets each fragment's AloneRel from the alone runs rs: the
// median over them of its mean there over its mean in the shared runs
// (before scaling to the plain run, as theirs are), and the profile's
// time-weighted AloneRel. One alone run is as noisy as one shared run:
// the median keeps a disturbed one from deciding (three fresh profiles of
// mg predicted np = 1 25 % apart with one alone run each).
func applyAlone(p *profile.File, plan *Plan, rs []*probe.Raw) {
	alone := map[fragKey][]profile.FragmentStats{}
	for _, q := range perRun(p, plan, rs) {
		for _, f := range q.Fragments {
			alone[keyOf(f)] = append(alone[keyOf(f)], f)
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
		shared := float64(f.MeanPS) / scale
		tot := shared * float64(f.Executions)
		if shared <= 0 || tot < aloneMinPS {
			continue
		}
		var rels []float64
		for _, a := range alone[keyOf(*f)] {
			if a.MeanPS > 0 && float64(a.MeanPS)*float64(a.Executions) >= aloneMinPS {
				rels = append(rels, float64(a.MeanPS)/shared)
			}
		}
		if len(rels) == 0 {
			continue
		}
		rel := math.Min(aloneHi, math.Max(aloneLo, median(rels)))
		f.AloneRel = math.Round(rel*1000) / 1000
		weighted += rel * tot
		total += tot
	}
	if total > 0 {
		p.AloneRel = math.Round(weighted/total*1000) / 1000
	}
}

// firstLine is the first line of err's message.
func firstLine(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
