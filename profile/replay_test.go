package profile

import (
	"math"
	"testing"
)

// TestTrend checks the two laws by hand: a rank's share of N (N at np = 1,
// N/2 at np = 2) is N/np; a loop over the other ranks is np − 1 between
// its records (0 at np = 1, 7 at np = 8: 3 at np = 4), but what rises from
// nothing at np = 1 stays at its value beyond the second record (0 at
// np = 1, 1 at np = 2: 1 at np = 8, not 7; a zero at np = 2 is a trend:
// 0, 1 at np = 2, 4 is 2 at np = 6); nothing goes below zero.
func TestTrend(t *testing.T) {
	for _, c := range []struct {
		t    Trend
		np   int
		want float64
	}{
		{Trend{1, 2, 1000, 500}, 4, 250},
		{Trend{1, 2, 1000, 500}, 256, 1000.0 / 256},
		{Trend{1, 2, 1000, 500}, 1, 1000},
		{Trend{1, 2, 7, 7}, 64, 7},
		{Trend{1, 2, 0, 1}, 8, 1},
		{Trend{1, 2, 0, 1}, 2, 1},
		{Trend{1, 8, 0, 7}, 4, 3},
		{Trend{1, 8, 0, 7}, 64, 7},
		{Trend{2, 4, 0, 1}, 6, 2},
		{Trend{1, 2, 2, 0}, 8, 0},
		{Trend{2, 2, 3, 5}, 8, 5},
	} {
		if got := c.t.At(c.np); math.Abs(got-c.want) > 1e-9*max(1, c.want) {
			t.Errorf("%+v at np=%d: %g, want %g", c.t, c.np, got, c.want)
		}
	}
	if k := (Trend{1, 2, 1000, 500}).K(); math.Abs(k+1) > 1e-12 {
		t.Errorf("K = %g, want -1", k)
	}
}

// TestRecords checks that a profile's records list its own first, the
// others by np, and that the nearest record is chosen by ratio, the larger
// np on a tie, exact when there is one.
func TestRecords(t *testing.T) {
	p := &File{NP: 4,
		Decisions: []DecisionStats{{Node: "d", Ranks: []RankOutcomes{{Rank: 0, True: 1}}}},
		Loops:     []LoopStats{{Node: "l", Ranks: []RankTrips{{Rank: 0, Runs: [][2]int64{{5, 1}}}}}, {Node: "timed"}},
		Replays:   []Replay{{NP: 16}, {NP: 1, Loops: []LoopTrips{{Node: "l"}}}},
	}
	recs := p.Records()
	var nps []int
	for _, r := range recs {
		nps = append(nps, r.NP)
	}
	if len(nps) != 3 || nps[0] != 4 || nps[1] != 1 || nps[2] != 16 {
		t.Fatalf("records at np %v, want [4 1 16]", nps)
	}
	if recs[0].Decisions["d"] == nil || len(recs[0].Loops) != 1 || recs[0].Loops["l"] == nil {
		t.Errorf("own record: %+v", recs[0])
	}
	if _, ok := recs[1].Loops["l"]; !ok {
		t.Errorf("record at np=1 lost its loop: %+v", recs[1])
	}
	for _, c := range []struct {
		np, want int
		exact    bool
	}{{4, 0, true}, {1, 1, true}, {2, 0, false}, {3, 0, false}, {8, 2, false}, {1000, 2, false}} {
		i, exact := Nearest(recs, c.np)
		if i != c.want || exact != c.exact {
			t.Errorf("np=%d: record %d (exact %v), want %d (%v)", c.np, i, exact, c.want, c.exact)
		}
	}
}
