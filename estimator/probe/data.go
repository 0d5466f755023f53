// This file defines the raw data the probes write, and writing it.

package probe

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"slices"

	"github.com/predict-tools/predict/estimator/runclock"
)

// RawVersion is the version of the raw data format.
const RawVersion = 8

// OutEnv is the environment variable naming the file the data is written
// to.
const OutEnv = "PREDICT_PROBE_OUT"

// Raw is what a probed run measured. Times are nanoseconds.
type Raw struct {
	Version int      `json:"version"`
	NP      int      `json:"np"`             // ranks of the latest run
	Args    []string `json:"args,omitempty"` // the program's arguments
	WallNS  int64    `json:"wall_ns"`        // from the first rank's start to the end of the latest run
	// StartUnixNS is when WallNS began, by the wall clock (Unix ns): the
	// processes of a launched run share it, so that Merge finds the span
	// across them (0: no rank started).
	StartUnixNS int64  `json:"start_unix_ns,omitempty"`
	Error       string `json:"error,omitempty"` // the run's error, if it failed
	// Clock is the clock of the fragments' durations and of the overheads:
	// ClockWall, or ClockThread for the CPU time of the OS thread that ran
	// the fragment (DeclareThreads). WallNS is always wall time.
	Clock     string        `json:"clock"`
	Overhead  RawOverhead   `json:"overhead"`
	Fragments []RawFragment `json:"fragments"` // the fragments that ran, by ID
	// CommNS is, per rank, the time spent inside commlib calls (blocked,
	// copying, synchronizing): not compute.
	CommNS map[int]int64 `json:"comm_ns,omitempty"`
	// SkippedRegions counts the entries of regions not timed because
	// regions held MaxHeldThreads OS threads already (region.go).
	SkippedRegions int64 `json:"skipped_regions,omitempty"`
}

// RawOverhead are the costs of the probes, medians in nanoseconds.
type RawOverhead struct {
	// SegNS is what a Now/Seg pair around nothing records: the bias of
	// every Seg and Loop measurement.
	SegNS float64 `json:"seg_ns"`
	// IterNS is what a sampled iteration's Iter call adds to the loop's
	// time, and what an iteration sample reads for an empty body.
	IterNS float64 `json:"iter_ns"`
	// CounterNS is what the per-iteration counter of a loop whose trip
	// count is not known before it runs adds to an iteration.
	CounterNS float64 `json:"counter_ns"`
	// TestNS is what the counter and the test of a loop's sampled copy
	// add to an iteration past the sampled ones.
	TestNS float64 `json:"test_ns"`
	// SampledNS is what the Sampled call that ends a loop's sampled copy
	// adds to the entry.
	SampledNS float64 `json:"sampled_ns"`
	// PairNS is the whole cost of a Now/Seg pair (the bias plus the part
	// outside the measured interval): the slowdown per segment executed.
	PairNS float64 `json:"pair_ns"`
	// RegionInNS is what an entry of an empty region records (the part
	// of its RegionStart/Region pair inside its interval); RegionOutNS
	// the rest of the pair's cost, which the region around it sees.
	RegionInNS  float64 `json:"region_in_ns,omitempty"`
	RegionOutNS float64 `json:"region_out_ns,omitempty"`
	// BranchNS is the cost of recording an opaque decision's outcome.
	BranchNS float64 `json:"branch_ns,omitempty"`
}

// RawFragment are the statistics of one fragment. Seg and loop fragments
// have the durations of their executions; loops also their trip counts
// and sampled iterations; branches their outcomes per rank (Count is then
// the number of outcomes).
type RawFragment struct {
	ID      int32   `json:"id"`
	Kind    string  `json:"kind"` // "seg", "loop", "branch", "arg" or "region"
	Count   int64   `json:"count"`
	SumNS   int64   `json:"sum_ns"`
	SumSqNS float64 `json:"sum_sq_ns"` // Σ d², summed exactly, rounded once
	MinNS   int64   `json:"min_ns"`
	MaxNS   int64   `json:"max_ns"`
	// Trips are (trip count, entries) pairs by trip count, for at most
	// 1024 trip counts (the most frequent); TripsOther the other entries.
	Trips      [][2]int64     `json:"trips,omitempty"`
	TripsOther *RawTripsOther `json:"trips_other,omitempty"`
	// IterSamples are sampled iteration times by iteration index: element
	// k-1 holds times of iteration k of the sampled entries (at most 64
	// per index, a uniform sample of those offered); IterSeen counts the
	// times offered.
	IterSamples [][]int64 `json:"iter_samples,omitempty"`
	IterSeen    int64     `json:"iter_seen,omitempty"`
	// SampledEntries are the entries of a loop that ran its sampled copy.
	SampledEntries int64 `json:"sampled_entries,omitempty"`
	// SampledTrips are (trip count, entries) pairs, by trip count, of the
	// entries that ran the sampled copy (the iterations they ran there,
	// see Sampled): what the sampling code cost them depends on their own
	// trip counts.
	SampledTrips [][2]int64  `json:"sampled_trips,omitempty"`
	Branches     []RawBranch `json:"branches,omitempty"` // by rank
	// Args are, for an opaque argument of a commlib call (Kind "arg"),
	// each rank's sequence of its values (Count: the calls recorded).
	Args []RawArg `json:"args,omitempty"`
	// RankTrips are, for loops with an opaque bound, each rank's sequence
	// of trip counts.
	RankTrips []RawRankTrips `json:"rank_trips,omitempty"`
	// Iterations are a loop region's iterations (Kind "region": Count is
	// its entries, the durations their times less what was timed apart
	// inside them).
	Iterations int64 `json:"iterations,omitempty"`
	// InclNS is a region's entries' times with all that ran inside them,
	// probes included.
	InclNS int64 `json:"incl_ns,omitempty"`
}

// RawRankTrips is one rank's sequence of trip counts of a loop.
type RawRankTrips struct {
	Rank      int          `json:"rank"`
	Runs      []RawTripRun `json:"runs"`
	Truncated bool         `json:"truncated,omitempty"`
}

// RawTripRun is a run of entries with the same trip count.
type RawTripRun struct {
	Trips int64 `json:"trips"`
	Len   int64 `json:"len"`
}

// RawTripsOther summarizes the loop entries whose trip count is not in
// RawFragment.Trips.
type RawTripsOther struct {
	Count int64 `json:"count"` // entries
	Min   int64 `json:"min"`
	Max   int64 `json:"max"`
	Sum   int64 `json:"sum"` // Σ trip count
}

// RawBranch are one rank's outcomes of a decision. Rank -1 gathers the
// goroutines that are not known to belong to a rank.
type RawBranch struct {
	Rank  int   `json:"rank"`
	True  int64 `json:"true"`
	False int64 `json:"false"`
	// Runs are the outcomes in order, run-length encoded. When Truncated,
	// they are the beginning of the sequence (100000 runs) and True and
	// False still count every outcome.
	Runs      []RawRun `json:"runs,omitempty"`
	Truncated bool     `json:"truncated,omitempty"`
}

// RawRun is a run of equal outcomes.
type RawRun struct {
	Value bool  `json:"value"`
	Len   int64 `json:"len"`
}

// Snapshot returns the data measured so far. It may run while probes
// record.
func Snapshot() Raw {
	raw := Raw{Version: RawVersion, NP: int(np.Load()), Args: os.Args[1:], Clock: ClockName()}
	commMu.Lock()
	if len(commNS) > 0 {
		raw.CommNS = map[int]int64{}
		for r, ns := range commNS {
			raw.CommNS[r] = ns
		}
	}
	commMu.Unlock()
	if t0 := wallT0.Load(); t0 > 0 {
		end := wallEnd.Load()
		if end < t0 {
			end = wallNow()
		}
		raw.WallNS = end - t0
		raw.StartUnixNS = start.UnixNano() + t0
	}
	raw.Overhead = Overhead()
	raw.SkippedRegions = skippedRegions.Load()
	t := tab.Load()
	for i, f := range t.frags[1:] {
		if rf, ok := f.raw(int32(i)); ok {
			raw.Fragments = append(raw.Fragments, rf)
		}
	}
	return raw
}

// raw returns fragment id's data, and whether it ran.
func (f *frag) raw(id int32) (RawFragment, bool) {
	rf := RawFragment{ID: id, Kind: "seg"}
	var sqHi, sqLo uint64
	trips := map[int64]int64{}
	var other RawTripsOther
	loop := false
	for i := range f.cells {
		c := &f.cells[i]
		c.mu.Lock()
		if c.n > 0 {
			if rf.Count == 0 || c.min < rf.MinNS {
				rf.MinNS = c.min
			}
			rf.MaxNS = max(rf.MaxNS, c.max)
			rf.Count += c.n
			rf.SumNS += c.sum
			var carry uint64
			sqLo, carry = bits.Add64(sqLo, c.sqLo, 0)
			sqHi += c.sqHi + carry
		}
		if l := c.loop; l != nil {
			loop = true
			for t, n := range l.trips {
				trips[t] += n
			}
			if l.lastN > 0 {
				trips[l.last] += l.lastN
			}
			other.merge(l.other)
		}
		c.mu.Unlock()
	}
	rf.SumSqNS = float64(sqHi)*math.Exp2(64) + float64(sqLo)
	if loop {
		rf.Kind = "loop"
		rf.Trips, rf.TripsOther = tripTable(trips, other)
	}

	if f.region.Load() {
		rf.Kind, rf.Iterations, rf.InclNS = "region", f.iters.Load(), f.incl.Load()
	}
	rf.SampledEntries = f.sampled.Load()
	f.mu.Lock()
	defer f.mu.Unlock()
	for t, n := range f.sampledTrips {
		rf.SampledTrips = append(rf.SampledTrips, [2]int64{t, n})
	}
	slices.SortFunc(rf.SampledTrips, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
	for i, s := range f.samples {
		if f.seen[i] == 0 {
			continue
		}
		rf.Kind = "loop"
		if rf.IterSamples == nil {
			rf.IterSamples = make([][]int64, len(f.samples))
		}
		rf.IterSamples[i] = slices.Clone(s)
		rf.IterSeen += f.seen[i]
	}
	for len(rf.IterSamples) > 0 && rf.IterSamples[len(rf.IterSamples)-1] == nil {
		rf.IterSamples = rf.IterSamples[:len(rf.IterSamples)-1]
	}
	var branches []*branchRec
	if bs := f.branches.Load(); bs != nil {
		branches = *bs
	}
	for i, b := range branches {
		b.mu.Lock()
		if b.trueN+b.falseN == 0 {
			b.mu.Unlock()
			continue
		}
		rf.Kind = "branch"
		rf.Count += b.trueN + b.falseN
		rf.Branches = append(rf.Branches, RawBranch{Rank: i - 1, True: b.trueN, False: b.falseN,
			Runs: slices.Clone(b.runs), Truncated: b.truncated})
		b.mu.Unlock()
	}
	if args := f.rawArgs(); len(args) > 0 {
		rf.Kind, rf.Args = "arg", args
		for _, a := range args {
			for _, r := range a.Runs {
				rf.Count += r.Len
			}
		}
	}
	for i, t := range f.ranked {
		if t != nil {
			rf.RankTrips = append(rf.RankTrips, RawRankTrips{Rank: i - 1, Runs: slices.Clone(t.runs), Truncated: t.truncated})
		}
	}
	return rf, rf.Count > 0 || rf.IterSeen > 0
}

// tripTable returns trip counts (trip count → entries) as Trips and
// TripsOther hold them: at most maxTripValues, the most frequent, by trip
// count, the rest added to other (nil when it counts none).
func tripTable(trips map[int64]int64, other RawTripsOther) ([][2]int64, *RawTripsOther) {
	var out [][2]int64
	for t, n := range trips {
		out = append(out, [2]int64{t, n})
	}
	if len(out) > maxTripValues {
		// Keep the most frequent trip counts.
		slices.SortFunc(out, func(a, b [2]int64) int { return cmp.Or(cmp.Compare(b[1], a[1]), cmp.Compare(a[0], b[0])) })
		for _, t := range out[maxTripValues:] {
			other.add(t[0], t[1])
		}
		out = out[:maxTripValues]
	}
	slices.SortFunc(out, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
	if other.Count == 0 {
		return out, nil
	}
	return out, &other
}

// merge adds p's entries.
func (o *RawTripsOther) merge(p RawTripsOther) {
	if p.Count == 0 {
		return
	}
	if o.Count == 0 {
		*o = p
		return
	}
	o.Min, o.Max = min(o.Min, p.Min), max(o.Max, p.Max)
	o.Count += p.Count
	o.Sum += p.Sum
}

// Flush writes the data measured so far to the file named by
// $PREDICT_PROBE_OUT, if it is set.
func Flush() error { return write(Snapshot()) }

// flushAtEnd writes the data when a run ends, with the run's error.
func flushAtEnd(err error) {
	if os.Getenv(OutEnv) == "" {
		return
	}
	raw := Snapshot()
	if err != nil {
		raw.Error = err.Error()
	}
	if werr := write(raw); werr != nil {
		fmt.Fprintf(os.Stderr, "predict probe: %v\n", werr)
	}
}

// write writes raw to $PREDICT_PROBE_OUT (its rank's file in a launched
// run: runclock.PerRankEnv), through a temporary file renamed into place,
// so that a reader never sees half of it.
func write(raw Raw) error {
	path := os.Getenv(OutEnv)
	if path == "" {
		return nil
	}
	path, err := runclock.OutPath(path, int(firstRank.Load())-1)
	if err != nil {
		return fmt.Errorf("writing the measurements: %v", err)
	}
	data, err := json.Marshal(raw)
	if err != nil {
		return fmt.Errorf("encoding the measurements: %v", err)
	}
	data = append(data, '\n')
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("writing the measurements to %s: %v", path, err)
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(0o644)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing the measurements to %s: %v", path, err)
	}
	return nil
}
