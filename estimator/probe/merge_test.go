package probe

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestMerge: two ranks' files, written by hand, merge into what one
// process running both writes: sums added, extremes over the ranks that
// timed, trip tables added, per-rank records taken from their own rank's
// file (rank -1's joined), rank 0's overhead, the span across processes.
func TestMerge(t *testing.T) {
	ov0 := RawOverhead{SegNS: 25, IterNS: 33, PairNS: 56, BranchNS: 6, RegionInNS: 30, RegionOutNS: 20}
	rank0 := Raw{Version: RawVersion, NP: 2, Args: []string{"-class", "S"}, Clock: ClockWall,
		WallNS: 1000, StartUnixNS: 5000, Overhead: ov0, CommNS: map[int]int64{0: 300},
		Fragments: []RawFragment{
			{ID: 0, Kind: "seg", Count: 2, SumNS: 800, SumSqNS: 330000, MinNS: 390, MaxNS: 410},
			{ID: 1, Kind: "loop", Count: 3, SumNS: 900, SumSqNS: 270000, MinNS: 200, MaxNS: 400,
				Trips: [][2]int64{{10, 2}, {20, 1}}, IterSamples: [][]int64{{1, 2, 3}, {4}}, IterSeen: 30,
				SampledEntries: 2, SampledTrips: [][2]int64{{10, 2}}},
			{ID: 2, Kind: "branch", Count: 3, Branches: []RawBranch{
				{Rank: -1, True: 1, Runs: []RawRun{{Value: true, Len: 1}}},
				{Rank: 0, True: 1, False: 1, Runs: []RawRun{{Value: true, Len: 1}, {Value: false, Len: 1}}}}},
			{ID: 4, Kind: "region", Count: 1, SumNS: 50, SumSqNS: 2500, MinNS: 50, MaxNS: 50, Iterations: 7, InclNS: 90},
		}}
	rank1 := Raw{Version: RawVersion, NP: 2, Args: []string{"-class", "S"}, Clock: ClockWall,
		WallNS: 1100, StartUnixNS: 5050, Overhead: RawOverhead{SegNS: 99}, CommNS: map[int]int64{1: 200},
		Fragments: []RawFragment{
			{ID: 0, Kind: "seg", Count: 1, SumNS: 380, SumSqNS: 144400, MinNS: 380, MaxNS: 380},
			{ID: 1, Kind: "loop", Count: 1, SumNS: 500, SumSqNS: 250000, MinNS: 500, MaxNS: 500,
				Trips: [][2]int64{{20, 1}}, TripsOther: &RawTripsOther{Count: 1, Min: 5, Max: 5, Sum: 5},
				IterSamples: [][]int64{{7}, nil, {9}}, IterSeen: 10, SampledEntries: 1, SampledTrips: [][2]int64{{20, 1}}},
			{ID: 2, Kind: "branch", Count: 3, Branches: []RawBranch{
				{Rank: -1, True: 1, Runs: []RawRun{{Value: true, Len: 1}}},
				{Rank: 1, False: 2, Runs: []RawRun{{Value: false, Len: 2}}}}},
			{ID: 3, Kind: "arg", Count: 2, Args: []RawArg{{Rank: 1, Runs: []RawArgRun{{Len: 2, Vals: []int64{8}}}}}},
			{ID: 5, Kind: "loop", Count: 1, SumNS: 10, SumSqNS: 100, MinNS: 10, MaxNS: 10,
				Trips: [][2]int64{{3, 1}}, RankTrips: []RawRankTrips{{Rank: 1, Runs: []RawTripRun{{Trips: 3, Len: 1}}}}},
		}}
	got, err := Merge([]Raw{rank0, rank1})
	if err != nil {
		t.Fatal(err)
	}
	want := Raw{Version: RawVersion, NP: 2, Args: []string{"-class", "S"}, Clock: ClockWall,
		WallNS: 1150, StartUnixNS: 5000, Overhead: ov0, CommNS: map[int]int64{0: 300, 1: 200},
		Fragments: []RawFragment{
			{ID: 0, Kind: "seg", Count: 3, SumNS: 1180, SumSqNS: 474400, MinNS: 380, MaxNS: 410},
			{ID: 1, Kind: "loop", Count: 4, SumNS: 1400, SumSqNS: 520000, MinNS: 200, MaxNS: 500,
				Trips: [][2]int64{{10, 2}, {20, 2}}, TripsOther: &RawTripsOther{Count: 1, Min: 5, Max: 5, Sum: 5},
				IterSamples: [][]int64{{1, 2, 3, 7}, {4}, {9}}, IterSeen: 40,
				SampledEntries: 3, SampledTrips: [][2]int64{{10, 2}, {20, 1}}},
			{ID: 2, Kind: "branch", Count: 6, Branches: []RawBranch{
				{Rank: -1, True: 2, Runs: []RawRun{{Value: true, Len: 2}}},
				{Rank: 0, True: 1, False: 1, Runs: []RawRun{{Value: true, Len: 1}, {Value: false, Len: 1}}},
				{Rank: 1, False: 2, Runs: []RawRun{{Value: false, Len: 2}}}}},
			{ID: 3, Kind: "arg", Count: 2, Args: []RawArg{{Rank: 1, Runs: []RawArgRun{{Len: 2, Vals: []int64{8}}}}}},
			{ID: 4, Kind: "region", Count: 1, SumNS: 50, SumSqNS: 2500, MinNS: 50, MaxNS: 50, Iterations: 7, InclNS: 90},
			{ID: 5, Kind: "loop", Count: 1, SumNS: 10, SumSqNS: 100, MinNS: 10, MaxNS: 10,
				Trips: [][2]int64{{3, 1}}, RankTrips: []RawRankTrips{{Rank: 1, Runs: []RawTripRun{{Trips: 3, Len: 1}}}}},
		}}
	if !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", " ")
		w, _ := json.MarshalIndent(want, "", " ")
		t.Errorf("merged:\n%s\nwant:\n%s", g, w)
	}
}

// TestMergeSamples: an iteration index keeps samplesPerIndex samples,
// shared among the ranks by the iterations each offered (3:1 here), each
// rank's first ones; a rank with fewer left gives its share to the others.
func TestMergeSamples(t *testing.T) {
	seq := func(base, n int) []int64 {
		var s []int64
		for i := range n {
			s = append(s, int64(base+i))
		}
		return s
	}
	parts := []rankFragment{
		{rank: 0, f: &RawFragment{IterSamples: [][]int64{seq(0, 64), seq(0, 64)}, IterSeen: 300}},
		{rank: 1, f: &RawFragment{IterSamples: [][]int64{seq(1000, 64), seq(1000, 10)}, IterSeen: 100}},
	}
	got := mergeSamples(parts)
	if len(got) != 2 {
		t.Fatalf("%d indices, want 2", len(got))
	}
	// Index 1: 48 of rank 0's, 16 of rank 1's (3:1).
	if want := append(seq(0, 48), seq(1000, 16)...); !reflect.DeepEqual(got[0], want) {
		t.Errorf("index 1: %v, want %v", got[0], want)
	}
	// Index 2: rank 1 has 10; rank 0 fills the rest.
	if want := append(seq(0, 54), seq(1000, 10)...); !reflect.DeepEqual(got[1], want) {
		t.Errorf("index 2: %v, want %v", got[1], want)
	}
}

// TestMergeTripTable: trip counts added over the ranks keep the most
// frequent maxTripValues, the rest summarized, as Snapshot does.
func TestMergeTripTable(t *testing.T) {
	a := RawFragment{ID: 0, Kind: "loop", Count: 1}
	b := RawFragment{ID: 0, Kind: "loop", Count: 1}
	for i := range int64(maxTripValues) {
		a.Trips = append(a.Trips, [2]int64{i, 2})
	}
	b.Trips = [][2]int64{{5000, 1}, {7, 1}} // 7 now 3 entries; 5000 one: the least frequent, left out
	got, err := Merge([]Raw{{Version: RawVersion, NP: 2, Fragments: []RawFragment{a}}, {Version: RawVersion, NP: 2, Fragments: []RawFragment{b}}})
	if err != nil {
		t.Fatal(err)
	}
	f := got.Fragments[0]
	if len(f.Trips) != maxTripValues || f.Trips[7] != [2]int64{7, 3} || f.Trips[maxTripValues-1] != [2]int64{maxTripValues - 1, 2} {
		t.Errorf("trips: %d values, [7] %v, last %v", len(f.Trips), f.Trips[7], f.Trips[len(f.Trips)-1])
	}
	if want := (RawTripsOther{Count: 1, Min: 5000, Max: 5000, Sum: 5000}); f.TripsOther == nil || *f.TripsOther != want {
		t.Errorf("trips_other %+v, want %+v", f.TripsOther, want)
	}
}

// TestMergeErrors: files that are not one rank of the same launched run
// each are refused, naming the rank; a rank's failure is the run's.
func TestMergeErrors(t *testing.T) {
	ok := Raw{Version: RawVersion, NP: 2, Clock: ClockWall}
	for _, tc := range []struct {
		name  string
		ranks []Raw
		want  string
	}{
		{"none", nil, "no rank's"},
		{"in-process build", []Raw{{Version: RawVersion, NP: 1, Clock: ClockWall}, {Version: RawVersion, NP: 1, Clock: ClockWall}}, "rank 0's process ran 1 ranks' run, want one rank of 2: was the program built with the mpi tag?"},
		{"clock", []Raw{ok, {Version: RawVersion, NP: 2, Clock: ClockThread}}, "rank 1 timed its fragments by the thread clock"},
		{"version", []Raw{ok, {Version: RawVersion - 1, NP: 2, Clock: ClockWall}}, "rank 1 wrote raw data version"},
		{"other rank", []Raw{ok, {Version: RawVersion, NP: 2, Clock: ClockWall, Fragments: []RawFragment{
			{ID: 3, Kind: "branch", Count: 1, Branches: []RawBranch{{Rank: 0, True: 1}}}}}}, "fragment 3: rank 1's process recorded rank 0's decisions"},
	} {
		if _, err := Merge(tc.ranks); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
	failed := ok
	failed.Error = "boom"
	got, err := Merge([]Raw{ok, failed})
	if err != nil || got.Error != "rank 1: boom" {
		t.Errorf("a rank's failure: error %q (%v), want %q", got.Error, err, "rank 1: boom")
	}
}
