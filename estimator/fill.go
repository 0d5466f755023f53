// This file turns the raw measurements of a probed run into the profile.

package estimator

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/predict-tools/predict/estimator/probe"
	"github.com/predict-tools/predict/profile"
)

// decodeRaw reads the raw data in path, of this predict's version.
func decodeRaw(path string) (*probe.Raw, error) {
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
	return &raw, nil
}

// fill computes p's statistics from the raw data.
func fill(p *profile.File, plan *Plan, raw *probe.Raw) {
	if raw.Clock != probe.ClockWall {
		p.Clock = raw.Clock
	}
	ov := raw.Overhead
	p.Overhead = profile.Overhead{SegPS: ps(ov.SegNS), IterPS: ps(ov.IterNS), CounterPS: ps(ov.CounterNS), TestPS: ps(ov.TestNS), SampledPS: ps(ov.SampledNS)}
	for _, rf := range raw.Fragments {
		if int(rf.ID) >= len(plan.Fragments) {
			continue
		}
		fr := plan.Fragments[rf.ID]
		pos := fr.Pos.String()
		switch fr.Kind {
		case profile.FragRegion:
			continue // below, once its fragments are known
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
		case profile.FragArg:
			a := profile.ArgStats{Node: fr.Node, Site: fr.Pos.Start.String(), Arg: fr.Arg, Part: fr.Part}
			for _, ra := range rf.Args {
				r := profile.RankArgs{Rank: ra.Rank, Truncated: ra.Truncated}
				for _, run := range ra.Runs {
					r.Runs = append(r.Runs, profile.ArgRun{N: run.Len, Vals: run.Vals})
				}
				a.Ranks = append(a.Ranks, r)
			}
			p.CommArgs = append(p.CommArgs, a)
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
				// spread of whole entries instead (σ, not the extremes:
				// they are mostly interrupts), less what their trip
				// counts' spread explains.
				d = perIterSpread(float64(mean), float64(sd), rf.Trips, rf.TripsOther)
				ls.Samples = 0
			}
			ls.D = d
			ls.Balanced = ls.D <= p.Alpha
			if !ls.Balanced && !fr.Innermost && ls.Samples > 0 {
				ls.FirstItersPS, ls.LaterIterPS = iterCurve(rf.IterSamples, ov.IterNS, p.Alpha, float64(mean)*float64(rf.Count), rf.Trips, rf.TripsOther)
			}
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
	p.Fragments = append(p.Fragments, regions(plan, raw)...)
	p.Regions = plan.Regions
	if raw.SkippedRegions > 0 {
		p.Warnings = append(p.Warnings, fmt.Sprintf("%d entries of regions were not timed: more than %d goroutines were inside regions at once, each holding an OS thread (their regions' time per entry comes from the entries timed)",
			raw.SkippedRegions, probe.MaxHeldThreads))
	}
	p.ProbesPS = ps(probeCost(plan, raw))
	for _, ns := range raw.CommNS {
		p.CommPS += ns * 1000
	}
	setTotals(p)
	slices.SortFunc(p.Fragments, func(a, b profile.FragmentStats) int { return strings.Compare(a.Node, b.Node) })
	slices.SortFunc(p.Loops, func(a, b profile.LoopStats) int { return strings.Compare(a.Node, b.Node) })
	slices.SortFunc(p.Decisions, func(a, b profile.DecisionStats) int { return strings.Compare(a.Node, b.Node) })
	slices.SortFunc(p.CommArgs, func(a, b profile.ArgStats) int {
		return cmp.Or(strings.Compare(a.Site, b.Site), cmp.Compare(a.Arg, b.Arg))
	})
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

// regions returns the statistics of the regions (region.go): per entry
// of a function, or per iteration of a loop, the time of its entries less
// what was timed apart inside them (the probes subtracted it as they ran)
// and less its own fragments (their recorded times and the parts of their
// probes outside them), less its own probes.
func regions(plan *Plan, raw *probe.Raw) []profile.FragmentStats {
	ov := raw.Overhead
	byID := map[int32]probe.RawFragment{}
	for _, rf := range raw.Fragments {
		byID[rf.ID] = rf
	}
	inside := map[int32]float64{} // by region: its fragments' cost, ns
	for _, fr := range plan.Fragments {
		rf, ok := byID[fr.ID]
		if !ok || fr.Parent < 0 || fr.Apart {
			continue
		}
		switch fr.Kind {
		case profile.FragSegment, profile.FragLoop:
			inside[fr.Parent] += float64(rf.SumNS) + float64(rf.Count)*math.Max(0, ov.PairNS-ov.SegNS)
		case profile.FragBranch:
			inside[fr.Parent] += float64(rf.Count) * ov.BranchNS
		} // a region inside: accounted for as it ran
	}
	var out []profile.FragmentStats
	for _, fr := range plan.Fragments {
		rf, ok := byID[fr.ID]
		if fr.Kind != profile.FragRegion || !ok || rf.Count == 0 {
			continue
		}
		execs := rf.Count // a function: per call
		perEntry := ov.RegionInNS + inside[fr.ID]/float64(rf.Count)
		if isLoopRegion(fr) {
			execs = rf.Iterations // a loop: per iteration
			perEntry += float64(rf.Iterations) / float64(rf.Count) * ov.CounterNS
		}
		if execs == 0 {
			continue
		}
		m := moments{count: rf.Count, sum: float64(rf.SumNS), sumSq: rf.SumSqNS, min: float64(rf.MinNS), max: float64(rf.MaxNS), overheadNS: perEntry}
		mean, sd, lo, hi, errAbs, errRel := m.stats()
		scale := float64(rf.Count) / float64(execs) // entry → execution
		per := func(x int64) int64 { return int64(math.Round(float64(x) * scale)) }
		out = append(out, profile.FragmentStats{Node: fr.Node, Kind: profile.FragRegion, Pos: fr.Pos.String(),
			Executions: execs, MeanPS: per(mean), SDPS: per(sd), MinPS: per(lo), MaxPS: per(hi), ErrorPS: per(errAbs), ErrorRel: errRel})
	}
	return out
}

// isLoopRegion reports whether region fr is a loop's, not a function's: a
// loop region always lies in its function's (enterLoopRegion).
func isLoopRegion(fr Fragment) bool { return fr.Parent >= 0 }

// probeCost is what the probes of a run cost in all, ns, by the
// calibration: a pair per execution of a segment or loop, the sampled
// iterations' probes, a pair per entry of a region and its iteration
// counter, a record per decision.
func probeCost(plan *Plan, raw *probe.Raw) float64 {
	ov := raw.Overhead
	var cost float64
	for _, rf := range raw.Fragments {
		switch rf.Kind {
		case "region":
			cost += float64(rf.Count)*(ov.RegionInNS+ov.RegionOutNS) + float64(rf.Iterations)*ov.CounterNS
		case "branch":
			cost += float64(rf.Count) * ov.BranchNS
		case "arg":
			// Recorded in the decisions' run only, whose times are not
			// kept.
		default:
			cost += float64(rf.Count) * ov.PairNS
			for _, s := range rf.IterSamples {
				cost += float64(len(s)) * ov.IterNS
			}
		}
	}
	return cost
}

// Scaling the fragments to the plain run (profile.File.Scale): beyond
// these bounds the probed run is too unlike the plain one for an even
// spread to hold fragment by fragment. The plain run still measures the
// total: the fragments are scaled all the same, each one's error bound is
// widened to half the correction, |1 − k|/2, and the profile says so.
// (Left unscaled, a program whose probes doubled its fragments, cellcheck
// at a scale of 0.495, read 2.1× its time at every np.)
const (
	minScale = 0.5
	maxScale = 2.0
)

// scaleToPlain multiplies every fragment's times by k, the plain run's
// compute over what the fragments measured.
func scaleToPlain(p *profile.File, k float64) {
	if !(k > 0) || math.IsInf(k, 0) {
		return
	}
	p.Scale = k
	scale := func(x int64) int64 { return int64(math.Round(float64(x) * k)) }
	widen := 0.0
	if k < minScale || k > maxScale {
		widen = math.Abs(1-k) / 2
	}
	for i := range p.Fragments {
		f := &p.Fragments[i]
		f.MeanPS, f.SDPS, f.MinPS, f.MaxPS, f.ErrorPS = scale(f.MeanPS), scale(f.SDPS), scale(f.MinPS), scale(f.MaxPS), scale(f.ErrorPS)
		if widen > 0 {
			f.ErrorRel = math.Min(1, math.Max(f.ErrorRel, widen))
			f.ErrorPS = max(f.ErrorPS, int64(math.Round(widen*float64(f.MeanPS))))
		}
	}
	for i := range p.Loops {
		p.Loops[i].Scale(k)
	}
	measured := p.MeasuredPS
	setTotals(p)
	if widen > 0 {
		p.Warnings = append(p.Warnings, fmt.Sprintf("the fragments measured %v of compute and the run without probes had %v: the probes perturbed them by more than %gx, so how the plain run's time shares out among them is uncertain; scaled by %.3f all the same (the plain run measures the total), each fragment's bound widened to ±%.0f%% (profile again on a quiet machine)",
			time.Duration(measured/1000), time.Duration(p.PlainComputePS/1000), maxScale, k, 100*widen))
	}
}

// setTotals sets what p's fragments measured in all and its
// program-level error bound, their time-weighted relative bound.
func setTotals(p *profile.File) {
	var total, weighted float64
	for _, f := range p.Fragments {
		t := float64(f.MeanPS) * float64(f.Executions)
		total += t
		weighted += t * f.ErrorRel
	}
	p.MeasuredPS, p.ErrorRel = int64(total), 0
	if total > 0 {
		p.ErrorRel = weighted / total
	}
}
