package interp

import (
	"slices"
	"strings"
	"testing"

	"github.com/predict-tools/predict/profile"
)

// TestScaledRecords replays, by hand, records at np = 2 (the profile's)
// and np = 1 (its second record) at np = 1, 2 and 4:
//   - a decision whose share of true is 1 at np = 1 and 1/2 at np = 2 (is
//     the neighbour mine) keeps 1/4 of np = 2's sequence at np = 4: its
//     trues thinned evenly, the k-th kept when ⌊(k+1)/2⌋ > ⌊k/2⌋;
//   - an exit test staying 100 times per entry at np = 1 and 50 at np = 2
//     stays 25 times at np = 4;
//   - a loop of 2000 trips at np = 1 and 1000 at np = 2 runs 500 at np = 4;
//   - at np = 1 and 2 each record is replayed as it is.
func TestScaledRecords(t *testing.T) {
	alt := []int64{1, 1, 1, 1, 1, 1, 1, 1}
	p := &profile.File{NP: 2,
		Decisions: []profile.DecisionStats{
			{Node: "mine", Ranks: []profile.RankOutcomes{{Rank: 0, True: 4, False: 4, FirstTrue: true, Runs: alt}, {Rank: 1, True: 4, False: 4, FirstTrue: true, Runs: alt}}},
			{Node: "exit", Ranks: []profile.RankOutcomes{{Rank: 0, True: 50, False: 1, FirstTrue: true, Runs: []int64{50, 1}}, {Rank: 1, True: 50, False: 1, FirstTrue: true, Runs: []int64{50, 1}}}},
		},
		Loops: []profile.LoopStats{{Node: "loop", Trips: []profile.TripCount{{Trips: 1000, Count: 2}},
			Ranks: []profile.RankTrips{{Rank: 0, Runs: [][2]int64{{1000, 1}}}, {Rank: 1, Runs: [][2]int64{{1000, 1}}}}}},
		Replays: []profile.Replay{{NP: 1,
			Decisions: []profile.DecisionStats{
				{Node: "mine", Ranks: []profile.RankOutcomes{{Rank: 0, True: 16, FirstTrue: true, Runs: []int64{16}}}},
				{Node: "exit", Ranks: []profile.RankOutcomes{{Rank: 0, True: 100, False: 1, FirstTrue: true, Runs: []int64{100, 1}}}},
			},
			Loops: []profile.LoopTrips{{Node: "loop", Ranks: []profile.RankTrips{{Rank: 0, Runs: [][2]int64{{2000, 1}}}}}},
		}},
	}
	cp := &Compiled{prof: p, profNP: 2, recs: p.Records()}
	mine := &decision{index: 0, stats: &p.Decisions[0]}
	exit := &decision{index: 1, stats: &p.Decisions[1], exit: true, stay: true}
	loop := &loopPlan{node: "loop", ranked: &p.Loops[0]}
	for _, rec := range cp.recs {
		for _, d := range []*decision{mine, exit} {
			m := map[int]*profile.RankOutcomes{}
			ds := rec.Decisions[map[*decision]string{mine: "mine", exit: "exit"}[d]]
			for i := range ds.Ranks {
				m[ds.Ranks[i].Rank] = &ds.Ranks[i]
			}
			d.byRec = append(d.byRec, m)
		}
		m := map[int]*profile.RankTrips{}
		for i, r := range rec.Loops["loop"] {
			m[r.Rank] = &rec.Loops["loop"][i]
		}
		loop.byRec = append(loop.byRec, m)
		loop.meanRec = append(loop.meanRec, int64(meanTripsOf(m)))
	}
	cp.decisions, cp.loops = []*decision{mine, exit}, []*loopPlan{loop}
	run := func(np int) (mineOut []bool, stays int, trips int64) {
		cp.chooseRecord(np)
		w := &World{Compiled: cp}
		w.procs = make([]*proc, np)
		for r := range np {
			w.procs[r] = &proc{w: w, rank: r}
		}
		p0 := w.procs[0]
		for range 8 {
			mineOut = append(mineOut, p0.decide(mine))
		}
		for p0.decide(exit) {
			stays++
		}
		return mineOut, stays, p0.nextTrips(loop)
	}
	T, F := true, false
	for _, c := range []struct {
		np    int
		mine  []bool
		stays int
		trips int64
	}{
		{1, []bool{T, T, T, T, T, T, T, T}, 100, 2000},
		{2, []bool{T, F, T, F, T, F, T, F}, 50, 1000},
		{4, []bool{F, F, T, F, F, F, T, F}, 25, 500},
	} {
		mineOut, stays, trips := run(c.np)
		if !slices.Equal(mineOut, c.mine) || stays != c.stays || trips != c.trips {
			t.Errorf("np=%d: mine %v, exit stayed %d, loop %d trips; want %v, %d, %d", c.np, mineOut, stays, trips, c.mine, c.stays, c.trips)
		}
	}
	for _, want := range []string{"share of true scaled from 0.5 to 0.25 at np=4 (∝ np^-1.00 between np=1 and 2)", "trips per entry scaled by 0.5 to np=4"} {
		if !strings.Contains(mine.trend+"|"+exit.trend, want) {
			t.Errorf("trends %q / %q: want %q", mine.trend, exit.trend, want)
		}
	}
}
