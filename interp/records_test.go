package interp

import (
	"slices"
	"strings"
	"testing"

	"github.com/predict-tools/predict/profile"
	"github.com/predict-tools/predict/reduce"
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
	cp, ds, loop := replayFixture(p, map[string]bool{"exit": true}, "mine", "exit")
	mine, exit := ds["mine"], ds["exit"]
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

// replayFixture compiles, by hand, a profile's decisions (exit tests
// where exit names them, staying on true) and one loop "loop" as the plan
// does, for runs of decide and nextTrips.
func replayFixture(p *profile.File, exit map[string]bool, names ...string) (*Compiled, map[string]*decision, *loopPlan) {
	cp := &Compiled{prof: p, profNP: p.NP, recs: p.Records()}
	ds := map[string]*decision{}
	for i, name := range names {
		d := &decision{index: i, stats: &profile.DecisionStats{Node: name}, exit: exit[name], stay: true}
		for _, rec := range cp.recs {
			var m map[int]*profile.RankOutcomes
			if st := rec.Decisions[name]; st != nil {
				m = rankMap(st.Ranks, func(ro *profile.RankOutcomes) int { return ro.Rank })
			}
			d.byRec = append(d.byRec, m)
		}
		ds[name] = d
		cp.decisions = append(cp.decisions, d)
	}
	loop := &loopPlan{node: "loop", ranked: &profile.LoopStats{Node: "loop"}}
	for _, rec := range cp.recs {
		var m map[int]*profile.RankTrips
		if ranks, ok := rec.Loops["loop"]; ok {
			m = rankMap(ranks, func(rt *profile.RankTrips) int { return rt.Rank })
		}
		loop.byRec = append(loop.byRec, m)
		loop.meanRec = append(loop.meanRec, int64(meanTripsOf(m)))
	}
	cp.loops = []*loopPlan{loop}
	return cp, ds, loop
}

// TestScaledRecordsEdges: a record that lacks a decision gives way to one
// that has it; a loop with no trips at the nearest record (a loop over the
// other ranks: 0 at np = 1, 7 at np = 8) scales from the other, to 1 at
// np = 2; a share that rises with np (is the neighbour someone else's:
// 0, 1/2) thins the other outcome (3/4 at np = 4).
func TestScaledRecordsEdges(t *testing.T) {
	alt := []int64{1, 1, 1, 1, 1, 1, 1, 1}
	ranks := func(np int, ro profile.RankOutcomes) []profile.RankOutcomes {
		var out []profile.RankOutcomes
		for r := range np {
			ro.Rank = r
			out = append(out, ro)
		}
		return out
	}
	trips := func(np int, n int64) []profile.RankTrips {
		var out []profile.RankTrips
		for r := range np {
			out = append(out, profile.RankTrips{Rank: r, Runs: [][2]int64{{n, 1}}})
		}
		return out
	}
	p := &profile.File{NP: 8,
		Decisions: []profile.DecisionStats{
			{Node: "only8", Ranks: ranks(8, profile.RankOutcomes{True: 2, False: 1, FirstTrue: true, Runs: []int64{2, 1}})},
		},
		Loops: []profile.LoopStats{{Node: "loop", Ranks: trips(8, 7)}},
		Replays: []profile.Replay{{NP: 1,
			Loops: []profile.LoopTrips{{Node: "loop", Ranks: trips(1, 0)}}}},
	}
	cp, ds, loop := replayFixture(p, map[string]bool{"only8": true}, "only8")
	cp.chooseRecord(2)
	w := &World{Compiled: cp}
	w.procs = []*proc{{w: w}, {w: w, rank: 1}}
	stays := 0
	for w.procs[0].decide(ds["only8"]) {
		stays++
	}
	if stays != 2 {
		t.Errorf("np=2: the exit test recorded at np=8 only stayed %d times, want 2 (the np=8 record's)", stays)
	}
	if got := w.procs[0].nextTrips(loop); got != 1 {
		t.Errorf("np=2: the loop over the other ranks ran %d trips, want 1 (%s)", got, loop.trend)
	}

	q := &profile.File{NP: 2,
		Decisions: []profile.DecisionStats{{Node: "theirs", Ranks: ranks(2, profile.RankOutcomes{True: 4, False: 4, FirstTrue: true, Runs: alt})}},
		Replays:   []profile.Replay{{NP: 1, Decisions: []profile.DecisionStats{{Node: "theirs", Ranks: ranks(1, profile.RankOutcomes{False: 16, Runs: []int64{16}})}}}},
	}
	cp, ds, _ = replayFixture(q, nil, "theirs")
	cp.chooseRecord(4)
	w = &World{Compiled: cp}
	w.procs = []*proc{{w: w}, {w: w, rank: 1}, {w: w, rank: 2}, {w: w, rank: 3}}
	var got []bool
	for range 8 {
		got = append(got, w.procs[0].decide(ds["theirs"]))
	}
	T, F := true, false
	if want := []bool{T, T, T, F, T, T, T, F}; !slices.Equal(got, want) {
		t.Errorf("np=4: %v, want %v (%s)", got, want, ds["theirs"].trend)
	}
}

// TestOutcomesOfTrips: a loop's recorded trips per entry (2, 2, 0, 3)
// make its exit test's outcomes: stay, stay, leave; stay, stay, leave;
// leave; stay ×3, leave — runs 2 1 2 2 3 1, whichever outcome stays.
func TestOutcomesOfTrips(t *testing.T) {
	rt := profile.RankTrips{Rank: 1, Runs: [][2]int64{{2, 2}, {0, 1}, {3, 1}}}
	for _, stay := range []bool{true, false} {
		ro := outcomesOfTrips(rt, stay)
		trues, falses := int64(7), int64(4)
		if !stay {
			trues, falses = falses, trues
		}
		if ro.Rank != 1 || ro.FirstTrue != stay || !slices.Equal(ro.Runs, []int64{2, 1, 2, 2, 3, 1}) || ro.True != trues || ro.False != falses || ro.Truncated {
			t.Errorf("stay %v: %+v", stay, ro)
		}
	}
}

// TestZeroAtOneHeld: what a rank receives from its neighbours is nothing
// at np = 1, where it has none, and no more per rank at np = 8 than at
// np = 2 (the line through the records made it np − 1 times np = 2's:
// pic's particles arriving from a neighbour, 1.03 a step at np = 2, 15.4
// at np = 16). testdata/migrate loops over a random count of items that
// arrived, none at np = 1; a profile at np = 2 records 3 trips a rank
// (1000 ps each), its record at np = 1 none: by hand, a rank computes 0 ps
// at np = 1 and 3000 ps at np = 2, 8 and 64 (before: 21 000 ps at np = 8).
// The exit test of such a loop, iterated, stays once per entry at np = 2
// and at np = 8 alike.
func TestZeroAtOneHeld(t *testing.T) {
	p := prepare(t, "./interp/testdata/migrate")
	n, pl := markedLoop(t, p, "interp/testdata/migrate/main.go", "loop")
	if pl.Verdict != reduce.Collapse || pl.Source != reduce.TripsReplayed {
		t.Fatalf("plan: %s (%s), source %q; want a replayed collapse", pl.Verdict, pl.Why, pl.Source)
	}
	pf := syntheticProfile(t, p, 2, nil)
	pf.Fragments = append(pf.Fragments, profile.FragmentStats{Node: n.ID, Kind: profile.FragLoop, Pos: n.Pos.String(), Executions: 2, MeanPS: 3000})
	pf.Loops = append(pf.Loops, profile.LoopStats{Node: n.ID, PerIterPS: 1000, Balanced: true, Trips: []profile.TripCount{{Trips: 3, Count: 2}},
		Ranks: []profile.RankTrips{{Rank: 0, Runs: [][2]int64{{3, 1}}}, {Rank: 1, Runs: [][2]int64{{3, 1}}}}})
	pf.Replays = []profile.Replay{{NP: 1, Loops: []profile.LoopTrips{{Node: n.ID, Ranks: []profile.RankTrips{{Rank: 0, Runs: [][2]int64{{0, 1}}}}}}}}
	if err := pf.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		np   int
		want int64
	}{{1, 0}, {2, 3000}, {8, 3000}, {64, 3000}} {
		r, err := p.Run(Config{NP: c.np, Machine: handMachine(t), Profile: pf})
		if err != nil {
			t.Fatal(err)
		}
		if got := int64(r.Compute.Max); got != c.want {
			t.Errorf("np=%d: compute %d ps a rank, hand computation %d ps", c.np, got, c.want)
		}
	}

	q := &profile.File{NP: 2,
		Decisions: []profile.DecisionStats{{Node: "recv", Ranks: []profile.RankOutcomes{
			{Rank: 0, True: 2, False: 2, FirstTrue: true, Runs: []int64{1, 1, 1, 1}},
			{Rank: 1, True: 2, False: 2, FirstTrue: true, Runs: []int64{1, 1, 1, 1}}}}},
		Replays: []profile.Replay{{NP: 1, Decisions: []profile.DecisionStats{{Node: "recv", Ranks: []profile.RankOutcomes{{Rank: 0, False: 2, Runs: []int64{2}}}}}}},
	}
	cp, ds, _ := replayFixture(q, map[string]bool{"recv": true}, "recv")
	cp.chooseRecord(8)
	w := &World{Compiled: cp}
	for r := range 8 {
		w.procs = append(w.procs, &proc{w: w, rank: r})
	}
	stays := 0
	for w.procs[0].decide(ds["recv"]) {
		stays++
	}
	if stays != 1 {
		t.Errorf("np=8: the exit test stayed %d times on entry, want 1 as at np=2 (%s)", stays, ds["recv"].trend)
	}
}
