// This file defines the merge of the data of a launched run's ranks: under
// an MPI launcher every rank is a process of its own and writes its own
// file (runclock.PerRankEnv); Merge makes of them what one process running
// every rank writes.

package probe

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/predict-tools/predict/estimator/runclock"
)

// Merge returns the data of a run whose ranks each ran in a process of
// their own: ranks[r] is what rank r's process wrote. It is what Snapshot
// writes in one process running the same ranks:
//
//   - a fragment's executions, sums, sums of squares, iterations and
//     sampled entries add up; its minimum and maximum are over the ranks
//     that timed it; its trip counts add up (the most frequent
//     maxTripValues kept, as Snapshot keeps them); its iteration samples
//     are at most samplesPerIndex per iteration index, shared among the
//     ranks by the iterations each offered (IterSeen), as one reservoir
//     of them all would hold them in expectation;
//   - decisions, opaque arguments and opaque trip counts are per rank:
//     each rank's come from its own process (the records of goroutines
//     of no rank, rank -1, are joined in rank order);
//   - the probes' overhead is rank 0's: there rankStart measured the
//     costs of the probes that find their rank, as it does in one process;
//   - the time in commlib adds up per rank;
//   - the span runs from the earliest rank's start to the latest one's
//     end, by the wall clock the processes of a node share
//     (StartUnixNS; the longest span where a rank did not say when it
//     started).
//
// A sum of squares, exact in one process, is here the sum of the ranks'
// rounded sums (within a few units in the last place). The first rank's
// error, if any, is the run's.
func Merge(ranks []Raw) (Raw, error) {
	if len(ranks) == 0 {
		return Raw{}, errors.New("no rank's measurements to merge")
	}
	r0 := ranks[0]
	out := Raw{Version: r0.Version, NP: r0.NP, Args: r0.Args, Clock: r0.Clock, Overhead: r0.Overhead}
	starts, walls := make([]int64, len(ranks)), make([]int64, len(ranks))
	frags := map[int32][]rankFragment{}
	for r, raw := range ranks {
		switch {
		case raw.Version != r0.Version:
			return Raw{}, fmt.Errorf("rank %d wrote raw data version %d, rank 0 version %d", r, raw.Version, r0.Version)
		case raw.NP != len(ranks):
			return Raw{}, fmt.Errorf("rank %d's process ran %d ranks' run, want one rank of %d: was the program built with the mpi tag?", r, raw.NP, len(ranks))
		case raw.Clock != r0.Clock:
			return Raw{}, fmt.Errorf("rank %d timed its fragments by the %s clock, rank 0 by the %s clock", r, raw.Clock, r0.Clock)
		}
		if raw.Error != "" && out.Error == "" {
			out.Error = fmt.Sprintf("rank %d: %s", r, raw.Error)
		}
		starts[r], walls[r] = raw.StartUnixNS, raw.WallNS
		out.SkippedRegions += raw.SkippedRegions
		for k, ns := range raw.CommNS {
			if out.CommNS == nil {
				out.CommNS = map[int]int64{}
			}
			out.CommNS[k] += ns
		}
		for i := range raw.Fragments {
			f := &raw.Fragments[i]
			frags[f.ID] = append(frags[f.ID], rankFragment{rank: r, f: f})
		}
	}
	out.WallNS, out.StartUnixNS = runclock.Span(starts, walls)
	for _, id := range slices.Sorted(maps.Keys(frags)) {
		f, err := mergeFragment(id, frags[id])
		if err != nil {
			return Raw{}, err
		}
		out.Fragments = append(out.Fragments, f)
	}
	return out, nil
}

// rankFragment is one rank's data of a fragment.
type rankFragment struct {
	rank int
	f    *RawFragment
}

// kindOrder ranks the kinds of a fragment as Snapshot sets them, later
// ones over earlier ones: a fragment with decisions recorded is a
// "branch" whatever else it timed.
var kindOrder = map[string]int{"seg": 0, "loop": 1, "region": 2, "branch": 3, "arg": 4}

// mergeFragment merges the ranks' data of fragment id.
func mergeFragment(id int32, parts []rankFragment) (RawFragment, error) {
	out := RawFragment{ID: id, Kind: "seg"}
	trips := map[int64]int64{}
	var other RawTripsOther
	sampledTrips := map[int64]int64{}
	timed := false // some rank timed executions: MinNS is theirs
	for _, p := range parts {
		f := p.f
		if kindOrder[f.Kind] > kindOrder[out.Kind] {
			out.Kind = f.Kind
		}
		if durations(f) > 0 {
			if !timed || f.MinNS < out.MinNS {
				out.MinNS = f.MinNS
			}
			timed = true
			out.MaxNS = max(out.MaxNS, f.MaxNS)
		}
		out.Count += f.Count
		out.SumNS += f.SumNS
		out.SumSqNS += f.SumSqNS
		out.IterSeen += f.IterSeen
		out.SampledEntries += f.SampledEntries
		out.Iterations += f.Iterations
		out.InclNS += f.InclNS
		for _, t := range f.Trips {
			trips[t[0]] += t[1]
		}
		if f.TripsOther != nil {
			other.merge(*f.TripsOther)
		}
		for _, t := range f.SampledTrips {
			sampledTrips[t[0]] += t[1]
		}
		for _, b := range f.Branches {
			if err := ownRank(id, p.rank, b.Rank, "decisions"); err != nil {
				return out, err
			}
		}
		for _, a := range f.Args {
			if err := ownRank(id, p.rank, a.Rank, "argument values"); err != nil {
				return out, err
			}
		}
		for _, t := range f.RankTrips {
			if err := ownRank(id, p.rank, t.Rank, "trip counts"); err != nil {
				return out, err
			}
		}
	}
	out.Trips, out.TripsOther = tripTable(trips, other) // none where no rank counted trips
	for _, t := range slices.Sorted(maps.Keys(sampledTrips)) {
		out.SampledTrips = append(out.SampledTrips, [2]int64{t, sampledTrips[t]})
	}
	out.IterSamples = mergeSamples(parts)
	out.Branches = mergeBranches(parts)
	out.Args = mergeArgs(parts)
	out.RankTrips = mergeRankTrips(parts)
	return out, nil
}

// durations returns how many executions f timed: its count less the
// decisions' outcomes and the arguments' calls it counts too.
func durations(f *RawFragment) int64 {
	n := f.Count
	for _, b := range f.Branches {
		n -= b.True + b.False
	}
	for _, a := range f.Args {
		for _, r := range a.Runs {
			n -= r.Len
		}
	}
	return n
}

// ownRank checks that a process recorded only its own rank's values (or
// those of goroutines of no rank): a process running several ranks is
// not one rank of a launched run.
func ownRank(id int32, process, rank int, what string) error {
	if rank == process || rank == -1 {
		return nil
	}
	return fmt.Errorf("fragment %d: rank %d's process recorded rank %d's %s: the launcher ran several ranks in one process", id, process, rank, what)
}

// mergeSamples shares each iteration index's samplesPerIndex samples
// among the ranks that have some, by the iterations each offered
// (D'Hondt's method: the next sample goes to the rank with the largest
// IterSeen/(taken+1) that has samples left, the lower rank on a tie).
// Each rank's samples are a uniform sample of its iterations, so its
// first ones are too.
func mergeSamples(parts []rankFragment) [][]int64 {
	n := 0
	for _, p := range parts {
		n = max(n, len(p.f.IterSamples))
	}
	if n == 0 {
		return nil
	}
	out := make([][]int64, n)
	for k := range n {
		taken := make([]int, len(parts))
		have := func(i int) int {
			if s := parts[i].f.IterSamples; k < len(s) {
				return len(s[k])
			}
			return 0
		}
		weight := func(i int) int64 { return max(parts[i].f.IterSeen, 1) }
		for range samplesPerIndex {
			best := -1
			for i := range parts {
				if taken[i] >= have(i) {
					continue
				}
				// weight(i)/(taken[i]+1) > weight(best)/(taken[best]+1)
				if best < 0 || weight(i)*int64(taken[best]+1) > weight(best)*int64(taken[i]+1) {
					best = i
				}
			}
			if best < 0 {
				break
			}
			taken[best]++
		}
		for i, p := range parts {
			if taken[i] > 0 {
				out[k] = append(out[k], p.f.IterSamples[k][:taken[i]]...)
			}
		}
	}
	return out
}

// byRank returns the records of every rank (get reads a fragment's), by
// rank: each rank's as its process recorded it (a copy, by clone), those
// of goroutines of no rank (rank -1) joined in rank order.
func byRank[T any](parts []rankFragment, get func(*RawFragment) []T, rank func(*T) int, clone func(T) T, join func(*T, T)) []T {
	var out []T
	orphans := -1 // index of rank -1's record in out
	for _, p := range parts {
		for _, x := range get(p.f) {
			if rank(&x) == -1 && orphans >= 0 {
				join(&out[orphans], x)
				continue
			}
			if rank(&x) == -1 {
				orphans = len(out)
			}
			out = append(out, clone(x))
		}
	}
	slices.SortStableFunc(out, func(a, b T) int { return cmp.Compare(rank(&a), rank(&b)) })
	return out
}

// mergeBranches returns the ranks' outcomes of a decision.
func mergeBranches(parts []rankFragment) []RawBranch {
	return byRank(parts, func(f *RawFragment) []RawBranch { return f.Branches },
		func(b *RawBranch) int { return b.Rank },
		func(b RawBranch) RawBranch { b.Runs = slices.Clone(b.Runs); return b },
		func(a *RawBranch, b RawBranch) {
			a.True += b.True
			a.False += b.False
			for _, r := range b.Runs {
				switch k := len(a.Runs); {
				case a.Truncated:
				case k > 0 && a.Runs[k-1].Value == r.Value:
					a.Runs[k-1].Len += r.Len
				case k < maxRuns:
					a.Runs = append(a.Runs, r)
				default:
					a.Truncated = true
				}
			}
			a.Truncated = a.Truncated || b.Truncated
		})
}

// mergeArgs returns the ranks' values of an opaque argument.
func mergeArgs(parts []rankFragment) []RawArg {
	return byRank(parts, func(f *RawFragment) []RawArg { return f.Args },
		func(a *RawArg) int { return a.Rank },
		func(a RawArg) RawArg { a.Runs = slices.Clone(a.Runs); return a },
		func(a *RawArg, b RawArg) {
			a.Runs = appendRuns(a.Runs, b.Runs, func(x, y *RawArgRun) bool {
				if !slices.Equal(x.Vals, y.Vals) {
					return false
				}
				x.Len += y.Len
				return true
			})
			a.Truncated = a.Truncated || b.Truncated
		})
}

// mergeRankTrips returns the ranks' trip counts of a loop with an opaque
// bound.
func mergeRankTrips(parts []rankFragment) []RawRankTrips {
	return byRank(parts, func(f *RawFragment) []RawRankTrips { return f.RankTrips },
		func(t *RawRankTrips) int { return t.Rank },
		func(t RawRankTrips) RawRankTrips { t.Runs = slices.Clone(t.Runs); return t },
		func(a *RawRankTrips, b RawRankTrips) {
			a.Runs = appendRuns(a.Runs, b.Runs, func(x, y *RawTripRun) bool {
				if x.Trips != y.Trips {
					return false
				}
				x.Len += y.Len
				return true
			})
			a.Truncated = a.Truncated || b.Truncated
		})
}

// appendRuns appends the runs of b to a, each joined to the run before it
// where join says it continues it.
func appendRuns[R any](a, b []R, join func(last, next *R) bool) []R {
	for _, r := range b {
		if k := len(a); k == 0 || !join(&a[k-1], &r) {
			a = append(a, r)
		}
	}
	return a
}
