package interp

import (
	"strings"
	"testing"

	"github.com/predict-tools/predict/model"
	"github.com/predict-tools/predict/profile"
)

const unitsFile = "interp/testdata/units/main.go"

// unitsProfile is a synthetic profile of interp/testdata/units at np=2
// with args: the outer loop of the part (a loop over the ranks) is timed
// whole, mean per entry on each of the two ranks; nothing else is timed.
func unitsProfile(t *testing.T, p *Program, args []string, mean int64) *profile.File {
	t.Helper()
	pf := syntheticProfile(t, p, 2, args)
	// The sealed loop around the inner loop marked with the part's name.
	line := markLine(t, unitsFile, args[1])
	for _, f := range p.Model.Functions {
		model.Walk(f.Tree, func(n *model.Node) bool {
			if n.Kind != model.KindLoop || !p.Report.Plan.Loop(n).Sealed || n.Pos.Start.Line > line || n.Pos.End.Line < line {
				return true
			}
			pf.Fragments = append(pf.Fragments, profile.FragmentStats{Node: n.ID, Kind: profile.FragLoop, Pos: n.Pos.String(), Executions: 2, MeanPS: mean})
			pf.Loops = append(pf.Loops, profile.LoopStats{Node: n.ID, PerIterPS: mean / 2, Balanced: true})
			return false
		})
	}
	if len(pf.Loops) != 1 {
		t.Fatalf("%s: the sealed loop over the ranks not found (%d)", args[1], len(pf.Loops))
	}
	return pf
}

// TestUnits checks loops counted in units against hand computations: the
// time measured at np=2 is spread over the innermost iterations (and the
// elements copied) the model counts at np=2, and charged for those it
// counts at the predicted np; the old charge, trips × the time of an
// outer iteration, would grow with np.
func TestUnits(t *testing.T) {
	p := prepare(t, "./interp/testdata/units")
	m := handMachine(t)
	cases := []struct {
		part string
		mean int64
		np   int
		want int64
	}{
		// pack at np=2: 2 × 4096/4 = 2048 units a rank, 4096 in all for
		// 2 × 1 µs: a unit costs 1e6/2048 ps. At np=8: 8 × 4096/64 = 512
		// units, a quarter of the measured microsecond.
		{"pack", 1_000_000, 8, 250_000},
		{"pack", 1_000_000, 2, 1_000_000},
		{"pack", 1_000_000, 1, 2_000_000},
		// copy at np=2: 2 × 4 iterations of 1 + 32 units: 264 a rank, 528
		// in all for 2 × 528 000 ps: 2000 ps a unit. At np=8: 32
		// iterations of 1 + 8 units: 288 units, 576 000 ps.
		{"copy", 528_000, 8, 576_000},
		{"copy", 528_000, 2, 528_000},
	}
	for _, c := range cases {
		args := []string{"-part", c.part}
		pf := unitsProfile(t, p, args, c.mean)
		r, err := p.Run(Config{NP: c.np, Machine: m, Profile: pf, Args: args})
		if err != nil {
			t.Fatalf("%s np=%d: %v", c.part, c.np, err)
		}
		if got := int64(r.Compute.Max); got != c.want {
			t.Errorf("%s np=%d: compute %d ps a rank, hand computation %d ps", c.part, c.np, got, c.want)
		}
		for _, h := range r.Hot {
			if h.Freq != int64(c.np) {
				t.Errorf("%s np=%d: %s counted %d times, want once a rank (%d)", c.part, c.np, h.Pos, h.Freq, c.np)
			}
		}
	}
}

// TestAllocUnits: a segment allocating a problem-sized slice costs the
// bytes it allocates, each the measured time over the bytes counted at the
// profiled np.
func TestAllocUnits(t *testing.T) {
	p := prepare(t, "./interp/testdata/units")
	const n = 1 << 20
	args := []string{"-part", "alloc", "-n", "1048576"}
	// At np=2 the segment allocates n/2 float64s: 1 + 4 MiB units a rank.
	const units = 1 + n/2*8
	pf := syntheticProfile(t, p, 2, args)
	alloc := markLine(t, unitsFile, "alloc")
	for _, f := range p.Model.Functions {
		model.Walk(f.Tree, func(x *model.Node) bool {
			if lf := x.Leaf; lf != nil && x.Pos.Start.Line == alloc && lf.Kind == model.LeafCB {
				pf.Fragments = append(pf.Fragments, profile.FragmentStats{Node: x.ID, Kind: profile.FragSegment, Pos: x.Pos.String(), Executions: 2, MeanPS: units})
			}
			return true
		})
	}
	if len(pf.Fragments) != 1 {
		t.Fatalf("the allocation's segment not found (%d)", len(pf.Fragments))
	}
	for _, c := range []struct {
		np   int
		want int64
	}{{2, units}, {8, 1 + n/8*8}, {1, 1 + n*8}} {
		r, err := p.Run(Config{NP: c.np, Machine: handMachine(t), Profile: pf, Args: args})
		if err != nil {
			t.Fatal(err)
		}
		if got := int64(r.Compute.Max); got != c.want {
			t.Errorf("np=%d: compute %d ps a rank, want %d (a picosecond a byte)", c.np, got, c.want)
		}
	}
}

// TestSegmentCopyUnits: a straight-line segment that copies a rank's
// share costs the bytes it moves (and allocates), each the measured time
// over the bytes counted at the profiled np, whatever the copy's
// arguments are: a slice expression with a bound, one without, a slice
// the model makes.
func TestSegmentCopyUnits(t *testing.T) {
	const n = 1 << 16
	// The segment holding the copy: at np the rank allocates n/np int32s,
	// copies nothing into them (from an empty literal) and
	// min(n/np, n−np) float64s into part.
	checkSegmentUnits(t, "segcopy", "65536", []int64{2, 1, 8, 64}, func(np int64) int64 { return 1 + n/np*4 + min(n/np, n-np)*8 })
}

// TestSegmentAppendUnits: a segment that allocates a rank's share and
// copies it by append costs the bytes it allocates and the elements it
// moves (a string's bytes one each), though the model keeps neither slice
// (their contents and lengths decide nothing).
func TestSegmentAppendUnits(t *testing.T) {
	const n = 1 << 16
	checkSegmentUnits(t, "segappend", "65536", []int64{2, 1, 8}, func(np int64) int64 { return 1 + n/np*8 + n/np*8 + 2*8 + 4 })
}

// TestSegmentSortUnits: a segment that sorts a rank's share with a
// function outside the program (slices.Sort, reduce.WorksOver) costs the
// bytes of the slice it sorts, beside the bytes the segment's other leaves
// allocate (the whole problem's, the same at every np; the call is a
// leaf of its own, the fragment covers it, the allocation's, a sort.Sort
// of the same slice as a sort.Interface and a sort.Slice of it, a
// variable its closure captures);
// slices.Contains, which the model executes, adds
// nothing. At another np the run says how the call was charged.
func TestSegmentSortUnits(t *testing.T) {
	const n = 1 << 16
	p := prepare(t, "./interp/testdata/units")
	args := []string{"-part", "segsort", "-n", "65536"}
	bytes := func(np int64) int64 { return 1 + n/np*8 + n*4 + n/np*8 + n/np*8 }
	pf := syntheticProfile(t, p, 2, args)
	pf.Fragments = append(pf.Fragments, segmentAt(t, p, "segsort", 4, 3, bytes(2)))
	checkSegmentBytes(t, p, pf, args, bytes, "slices.Sort[[]int, int], sort.Sort, sort.Slice")
}

// segmentAt is a segment fragment of mean ps per execution (2 of them)
// covering the leaves of the units program from the line marked part to
// the lines after it, at least min leaves (the first the fragment's).
func segmentAt(t *testing.T, p *Program, part string, lines, min int, mean int64) profile.FragmentStats {
	t.Helper()
	line := markLine(t, unitsFile, part)
	var covers []string
	for _, f := range p.Model.Functions {
		model.Walk(f.Tree, func(x *model.Node) bool {
			if lf := x.Leaf; lf != nil && x.Pos.Start.Line >= line && x.Pos.Start.Line < line+lines {
				covers = append(covers, x.ID)
			}
			return true
		})
	}
	if len(covers) < min {
		t.Fatalf("%s: the segment not found (covers %v)", part, covers)
	}
	return profile.FragmentStats{Node: covers[0], Kind: profile.FragSegment, Pos: part, Covers: covers, Executions: 2, MeanPS: mean}
}

// checkSegmentBytes runs the profile at np 2 (its own), 1 and 8 and checks
// that a rank computes bytes(np) ps, a picosecond a byte, and that the
// run says the functions named over are charged by their slices' bytes
// where np is not the profile's.
func checkSegmentBytes(t *testing.T, p *Program, pf *profile.File, args []string, bytes func(np int64) int64, over string) {
	t.Helper()
	for _, np := range []int64{2, 1, 8} {
		r, err := p.Run(Config{NP: int(np), Machine: handMachine(t), Profile: pf, Args: args})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := int64(r.Compute.Max), bytes(np); got != want {
			t.Errorf("np=%d: compute %d ps a rank, want %d (a picosecond a byte)", np, got, want)
		}
		note := strings.Join(r.Assumptions, "\n")
		if said := strings.Contains(note, over+": charged by the bytes of the slices it works over, in proportion (the timing pass timed it at np=2)"); said != (np != 2) {
			t.Errorf("np=%d: assumptions %q", np, note)
		}
		if strings.Contains(note, "taken as false") {
			t.Errorf("np=%d: the model took a branch it does not compute: %q", np, note)
		}
	}
}

// TestSealedRecursionUnits: a recursion of the program's own whose course
// is its data's (a quicksort) is sealed: the model never enters it, and
// its call is charged in its caller's segment, counted in the bytes of the
// slice it is handed as a function outside the program is. Hand-computed
// as TestSegmentSortUnits: a picosecond a byte at the profile's np = 2,
// 1 + n/np·8 (the keys) + n·4 (the allocation) a rank at every np.
func TestSealedRecursionUnits(t *testing.T) {
	const n = 1 << 16
	p := prepare(t, "./interp/testdata/units")
	args := []string{"-part", "segrec", "-n", "65536"}
	bytes := func(np int64) int64 { return 1 + n/np*8 + n*4 }
	quick := ""
	for _, f := range p.Model.Functions {
		if strings.HasSuffix(f.ID, "quick") {
			quick = p.Report.Plan.Sealed(p.SSA[f])
		}
	}
	if !strings.Contains(quick, "main.go") {
		t.Fatalf("quick: sealed %q, want why with file:line", quick)
	}
	pf := syntheticProfile(t, p, 2, args)
	pf.Fragments = append(pf.Fragments, segmentAt(t, p, "segrec", 2, 2, bytes(2)))
	checkSegmentBytes(t, p, pf, args, bytes, "github.com/predict-tools/predict/interp/testdata/units.quick")
	checkSealedNote(t, p, pf, args, "units.quick, which the model never enters (sealed), is charged in its caller's fragment as the timing pass measured it at np=2")
}

// checkSealedNote checks that a run says note among its assumptions at
// np = 8 and 1, not at the profile's np = 2.
func checkSealedNote(t *testing.T, p *Program, pf *profile.File, args []string, note string) {
	t.Helper()
	for _, np := range []int{2, 1, 8} {
		r, err := p.Run(Config{NP: np, Machine: handMachine(t), Profile: pf, Args: args})
		if err != nil {
			t.Fatal(err)
		}
		if said := strings.Contains(strings.Join(r.Assumptions, "\n"), note); said != (np != 2) {
			t.Errorf("np=%d: said %v (assumptions %q)", np, said, r.Assumptions)
		}
	}
}

// TestSealedCallUnits: a call through a function value drawn at random,
// one of whose kernels is also called directly (the call alone sealed),
// and a method call through an interface value drawn at random (sealed:
// the model never follows them; they ran no function before, "call of a
// nil function value", "method filter of a nil interface"), are charged
// in their caller's segment, counted in the bytes of the slice they are
// handed. Hand-computed as TestSealedRecursionUnits: 1 + n/np·8 + n·4 a
// rank.
func TestSealedCallUnits(t *testing.T) {
	const n = 1 << 16
	p := prepare(t, "./interp/testdata/units")
	bytes := func(np int64) int64 { return 1 + n/np*8 + n*4 }
	for _, c := range []struct{ part, over string }{{"segdyn", "a function value"}, {"segiface", "the method filter of an interface value"}, {"segshared", "a function value"}} {
		part, over := c.part, c.over
		t.Run(part, func(t *testing.T) {
			args := []string{"-part", part, "-n", "65536"}
			pf := syntheticProfile(t, p, 2, args)
			pf.Fragments = append(pf.Fragments, segmentAt(t, p, part, 2, 2, bytes(2)))
			checkSegmentBytes(t, p, pf, args, bytes, over)
			checkSealedNote(t, p, pf, args, over+", which the model never enters (sealed)")
		})
	}
}

// TestCyclicTrips: a loop stepped by np from the rank (a cyclic
// distribution) has a trip formula (its step a value the loop does not
// change) and is collapsed with it: at every np each rank runs
// ⌈(n − rank)/np⌉ iterations, 1 µs each in the profile (n = 10: at np = 3,
// 4 for rank 0 and 3 for the others; at np = 4, 3 and 2).
func TestCyclicTrips(t *testing.T) {
	p := prepare(t, "./interp/testdata/units")
	args := []string{"-part", "cyclic", "-n", "10"}
	line := markLine(t, unitsFile, "cyclic")
	pf := syntheticProfile(t, p, 2, args)
	for _, f := range p.Model.Functions {
		model.Walk(f.Tree, func(x *model.Node) bool {
			if x.Kind == model.KindLoop && x.Pos.Start.Line == line {
				if tr := x.Loop.Trip; tr == nil || !strings.Contains(tr.Formula, "ceil(") {
					t.Errorf("the cyclic loop's trips %+v: want a formula", tr)
				}
				pf.Fragments = append(pf.Fragments, profile.FragmentStats{Node: x.ID, Kind: profile.FragLoop, Pos: x.Pos.String(), Executions: 2, MeanPS: 5_000_000})
				pf.Loops = append(pf.Loops, profile.LoopStats{Node: x.ID, Trips: []profile.TripCount{{Trips: 5, Count: 2}}, PerIterPS: 1_000_000, Balanced: true})
			}
			return true
		})
	}
	if len(pf.Loops) != 1 {
		t.Fatalf("the cyclic loop at line %d not found", line)
	}
	const us = 1_000_000
	for _, c := range []struct{ np, max, min int64 }{{1, 10, 10}, {2, 5, 5}, {3, 4, 3}, {4, 3, 2}, {16, 1, 0}} {
		r, err := p.Run(Config{NP: int(c.np), Machine: handMachine(t), Profile: pf, Args: args})
		if err != nil {
			t.Fatal(err)
		}
		if got := [2]int64{int64(r.Compute.Max), int64(r.Compute.Min)}; got != [2]int64{c.max * us, c.min * us} {
			t.Errorf("np=%d: compute max %d, min %d ps, want %d and %d µs", c.np, got[0], got[1], c.max, c.min)
		}
	}
}

// checkSegmentUnits profiles, synthetically at np = 2, the segment of the
// units program's part that holds its mark (1 ps a unit: bytes(2) an
// execution), and checks that a rank at each np computes bytes(np).
func checkSegmentUnits(t *testing.T, part, n string, nps []int64, bytes func(np int64) int64) {
	t.Helper()
	p := prepare(t, "./interp/testdata/units")
	args := []string{"-part", part, "-n", n}
	line := markLine(t, unitsFile, part)
	pf := syntheticProfile(t, p, 2, args)
	for _, f := range p.Model.Functions {
		model.Walk(f.Tree, func(x *model.Node) bool {
			if lf := x.Leaf; lf != nil && lf.Kind == model.LeafCB && x.Pos.Start.Line <= line && x.Pos.End.Line >= line {
				pf.Fragments = append(pf.Fragments, profile.FragmentStats{Node: x.ID, Kind: profile.FragSegment, Pos: x.Pos.String(), Executions: 2, MeanPS: bytes(2)})
			}
			return true
		})
	}
	if len(pf.Fragments) != 1 {
		t.Fatalf("the %s segment not found (%d)", part, len(pf.Fragments))
	}
	for _, np := range nps {
		r, err := p.Run(Config{NP: int(np), Machine: handMachine(t), Profile: pf, Args: args})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := int64(r.Compute.Max), bytes(np); got != want {
			t.Errorf("np=%d: compute %d ps a rank, want %d (a picosecond a byte)", np, got, want)
		}
	}
}

// TestAloneShare checks by hand how a fragment measured alone and shared
// is charged: alone for a rank alone on its node, as measured (shared) on
// a node whose cores are as busy as the profiling machine's, in between
// in proportion to the busy share of the node's cores. The profile: pack
// at np=2 on 2 CPUs, 1 µs an entry shared, half of that alone.
func TestAloneShare(t *testing.T) {
	p := prepare(t, "./interp/testdata/units")
	args := []string{"-part", "pack"}
	pf := unitsProfile(t, p, args, 1_000_000)
	pf.CPUs, pf.AloneRel = 2, 0.5
	for i := range pf.Fragments {
		pf.Fragments[i].AloneRel = 0.5
	}
	checkComputeMax(t, p, pf, args, []computeCase{
		{2, 2, 2, 1_000_000}, // as profiled
		{1, 2, 2, 1_000_000}, // twice the work (TestUnits), alone: half the time
		{8, 2, 2, 250_000},   // a quarter of the work, nodes as busy as profiled
		{8, 2, 1, 125_000},   // a rank a node: alone
		{2, 4, 4, 666_666},   // 1 of 3 other cores busy: 0.5 + 0.5/3 of the time (two charges of 333 333 ps)
		{8, 4, 4, 250_000},   // 3 of 3: more than profiled, not extrapolated
	})
}

// TestLoadedShare checks the charge of a fragment's slowdown beside the
// timing pass's memory co-runners: a profile at np = 2 on 4 CPUs, whose
// loaded runs had 2 co-runners (all 4 CPUs busy) and found every fragment
// 1.5 times slower, charges a rank on a node whose cores are as busy as
// the profile's ranks kept its machine (1 of 3 other cores) its measured
// time, on a node all busy 1.5 times that, between in proportion, and
// never less than measured.
func TestLoadedShare(t *testing.T) {
	p := prepare(t, "./interp/testdata/units")
	args := []string{"-part", "pack"}
	pf := unitsProfile(t, p, args, 1_000_000)
	pf.CPUs, pf.LoadedRel, pf.LoadedBy = 4, 1.5, 2
	for i := range pf.Fragments {
		pf.Fragments[i].LoadedRel = 1.5
	}
	checkComputeMax(t, p, pf, args, []computeCase{
		{2, 4, 4, 1_000_000}, // as profiled: as measured
		{4, 4, 4, 750_000},   // half the work, every core busy: × 1.5
		{4, 4, 2, 500_000},   // half the work, nodes as busy as profiled
		{8, 8, 8, 375_000},   // a quarter of the work, every core busy
		{1, 4, 4, 2_000_000}, // twice the work, less busy than profiled: as measured
	})
}

// computeCase is a run at np on nodes of cores with perNode ranks, and the
// compute a rank must be charged.
type computeCase struct {
	np, cores, perNode int
	want               int64
}

// checkComputeMax runs p with profile pf and args for each case on the
// hand machine and checks the busiest rank's compute.
func checkComputeMax(t *testing.T, p *Program, pf *profile.File, args []string, cases []computeCase) {
	t.Helper()
	for _, c := range cases {
		m := handMachine(t)
		m.CoresPerNode, m.RanksPerNode = c.cores, c.perNode
		r, err := p.Run(Config{NP: c.np, Machine: m, Profile: pf, Args: args})
		if err != nil {
			t.Fatalf("np=%d: %v", c.np, err)
		}
		if got := int64(r.Compute.Max); got != c.want {
			t.Errorf("np=%d on nodes of %d cores and %d ranks: compute %d ps a rank, hand computation %d ps", c.np, c.cores, c.perNode, got, c.want)
		}
	}
}

// TestIteratedUnits checks a nest the model iterates at every level (its
// appends' length is sent: testdata/units -part fill) against hand
// computations: the time measured at np=2 is spread over the iterations of
// both loops, np + np·(n/np²) a rank, and charged for those at the
// predicted np. The old charge, trips × the time of an outer iteration,
// read np=8 at 4 × the measured microsecond instead of about a quarter.
func TestIteratedUnits(t *testing.T) {
	p := prepare(t, "./interp/testdata/units")
	m := handMachine(t)
	args := []string{"-part", "fill"}
	pf := syntheticProfile(t, p, 2, args)
	line := markLine(t, unitsFile, "fill")
	for _, f := range p.Model.Functions {
		model.Walk(f.Tree, func(n *model.Node) bool {
			if n.Kind != model.KindLoop || n.Pos.Start.Line > line || n.Pos.End.Line < line {
				return true
			}
			pf.Fragments = append(pf.Fragments, profile.FragmentStats{Node: n.ID, Kind: profile.FragLoop, Pos: n.Pos.String(), Executions: 2, MeanPS: 1_000_000})
			pf.Loops = append(pf.Loops, profile.LoopStats{Node: n.ID, PerIterPS: 500_000, Balanced: true})
			return false // the outer loop, timed whole
		})
	}
	if len(pf.Loops) != 1 {
		t.Fatalf("the loop over the ranks not found (%d)", len(pf.Loops))
	}
	// At np=2: 2 + 2·1024 = 2050 units a rank, 4100 in all for 2 µs: a
	// unit costs (2 000 000 + 2050)/4100 = 488 ps (rounded to the ps).
	for _, c := range []struct {
		np   int
		want int64
	}{
		{2, 2050 * 488},          // 1 000 400: the measured µs, to the rounding
		{8, (8 + 8*64) * 488},    // 253 760
		{1, (1 + 4096) * 488},    // 1 999 336
		{16, (16 + 16*16) * 488}, // 132 736
	} {
		r, err := p.Run(Config{NP: c.np, Machine: m, Profile: pf, Args: args})
		if err != nil {
			t.Fatalf("np=%d: %v", c.np, err)
		}
		if got := int64(r.Compute.Max); got != c.want {
			t.Errorf("np=%d: compute %d ps a rank, hand computation %d ps", c.np, got, c.want)
		}
		for _, h := range r.Hot {
			if h.Freq != int64(c.np) {
				t.Errorf("np=%d: %s counted %d times, want once a rank (%d)", c.np, h.Pos, h.Freq, c.np)
			}
		}
	}
}
