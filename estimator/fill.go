// This file turns the raw measurements of a probed run into the profile.

package estimator

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/predict-tools/predict/estimator/probe"
	"github.com/predict-tools/predict/profile"
)

// readRaw reads what the probes wrote.
func readRaw(path string) (*probe.Raw, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var raw probe.Raw
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if raw.Version != probe.RawVersion {
		return nil, fmt.Errorf("%s: raw data version %d, want %d", path, raw.Version, probe.RawVersion)
	}
	if raw.Error != "" {
		return nil, fmt.Errorf("the instrumented run failed: %s", raw.Error)
	}
	return &raw, nil
}

// fill computes p's statistics from the raw data.
func fill(p *profile.File, plan *Plan, raw *probe.Raw) {
	if raw.Clock != probe.ClockWall {
		p.Clock = raw.Clock
	}
	ov := raw.Overhead
	p.Overhead = profile.Overhead{SegPS: ps(ov.SegNS), IterPS: ps(ov.IterNS), CounterPS: ps(ov.CounterNS), TestPS: ps(ov.TestNS), SampledPS: ps(ov.SampledNS)}
	var weighted, total float64
	for _, rf := range raw.Fragments {
		if int(rf.ID) >= len(plan.Fragments) {
			continue
		}
		fr := plan.Fragments[rf.ID]
		pos := fr.Pos.String()
		switch fr.Kind {
		case profile.FragBranch:
			d := profile.DecisionStats{Node: fr.Node, Pos: pos}
			for _, b := range rf.Branches {
				ro := profile.RankOutcomes{Rank: b.Rank, True: b.True, False: b.False, Truncated: b.Truncated}
				for i, r := range b.Runs {
					if i == 0 {
						ro.FirstTrue = r.Value
					}
					ro.Runs = append(ro.Runs, r.Len)
				}
				d.Ranks = append(d.Ranks, ro)
			}
			p.Decisions = append(p.Decisions, d)
			continue
		case profile.FragLoop:
			if rf.Count == 0 {
				continue
			}
		}
		over := ov.SegNS
		var trips float64
		if fr.Kind == profile.FragLoop {
			over, trips = loopOverhead(fr, rf, ov)
		}
		m := moments{count: rf.Count, sum: float64(rf.SumNS), sumSq: rf.SumSqNS, min: float64(rf.MinNS), max: float64(rf.MaxNS), overheadNS: over}
		mean, sd, lo, hi, errAbs, errRel := m.stats()
		p.Fragments = append(p.Fragments, profile.FragmentStats{Node: fr.Node, Kind: fr.Kind, Pos: pos, Covers: fr.Covers,
			Executions: rf.Count, MeanPS: mean, SDPS: sd, MinPS: lo, MaxPS: hi, ErrorPS: errAbs, ErrorRel: errRel})
		t := float64(mean) * float64(rf.Count)
		total += t
		weighted += t * errRel
		if fr.Kind == profile.FragLoop {
			ls := profile.LoopStats{Node: fr.Node, Innermost: fr.Innermost}
			for _, t := range rf.Trips {
				ls.Trips = append(ls.Trips, profile.TripCount{Trips: t[0], Count: t[1]})
			}
			if trips > 0 {
				ls.PerIterPS = int64(float64(mean) * float64(rf.Count) / trips)
			}
			meanIter, d, n := balance(rf.IterSamples, ov.IterNS)
			ls.Samples = n
			if meanIter < 10*ov.IterNS && mean > 0 {
				// Iterations too short for the clock: judge balance by the
				// spread of whole entries instead (σ/mean: their extremes
				// are mostly interrupts).
				d = float64(sd) / float64(mean)
				ls.Samples = 0
			}
			ls.D = d
			ls.Balanced = ls.D <= p.Alpha
			for _, rt := range rf.RankTrips {
				r := profile.RankTrips{Rank: rt.Rank, Truncated: rt.Truncated}
				for _, run := range rt.Runs {
					r.Runs = append(r.Runs, [2]int64{run.Trips, run.Len})
				}
				ls.Ranks = append(ls.Ranks, r)
			}
			p.Loops = append(p.Loops, ls)
		}
	}
	p.MeasuredPS = int64(total)
	for _, ns := range raw.CommNS {
		p.CommPS += ns * 1000
	}
	if total > 0 {
		p.ErrorRel = weighted / total
	}
	slices.SortFunc(p.Fragments, func(a, b profile.FragmentStats) int { return strings.Compare(a.Node, b.Node) })
	slices.SortFunc(p.Loops, func(a, b profile.LoopStats) int { return strings.Compare(a.Node, b.Node) })
	slices.SortFunc(p.Decisions, func(a, b profile.DecisionStats) int { return strings.Compare(a.Node, b.Node) })
}

// loopOverhead returns the probe cost included in an entry of a loop
// fragment, on average, and the loop's iterations in all (innermost ones
// for a perfect nest timed whole; the sampled entries' trip counts are
// the loop statement's own, the iterations its sampling code runs). Every entry
// pays for a Now/Loop pair. A sampled entry runs the sampled copy: its
// Iter calls (at most IterSamples+1, and IterEnd) and the test of every
// iteration; the other entries run the original, which counts its
// iterations unless the trip count was computed before the loop. A
// sampled entry that resumes in the original copy tests only the
// iterations it samples; the rest count as the original's.
//
// The sampled entries' costs are summed over their own trip counts
// (rf.SampledTrips): the entries sampled are the first ones and then
// sparse ones, whose trip counts may be far from the loop's mean
// (pingpong's payload loop runs 1 B to 1 MiB; an average charged the
// small sampled entries a sampled copy of 100 K iterations each and took
// 4 % off the program's measured time).
func loopOverhead(fr Fragment, rf probe.RawFragment, ov probe.RawOverhead) (overNS, trips float64) {
	for _, t := range rf.Trips {
		trips += float64(t[0] * t[1])
	}
	if rf.TripsOther != nil {
		trips += float64(rf.TripsOther.Sum) // entries beyond the distinct values kept
	}
	var entries, calls, tested float64 // over all sampled entries
	for _, st := range rf.SampledTrips {
		t, n := float64(st[0]), float64(st[1])
		entries += n
		if t <= 0 {
			continue
		}
		calls += n * math.Min(t+1, probe.IterSamples+1)
		if fr.Resumes {
			tested += n * math.Min(t, probe.IterSamples+1)
		} else {
			tested += n * t
		}
	}
	total := float64(rf.Count)*ov.SegNS + entries*ov.SampledNS + calls*ov.IterNS + tested*ov.TestNS
	if !fr.Static {
		total += math.Max(trips-tested, 0) * ov.CounterNS // counted in the original copy
	}
	return total / math.Max(float64(rf.Count), 1), trips
}

func ps(ns float64) int64 { return int64(math.Round(ns * 1000)) }
