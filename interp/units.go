// This file defines units: the work of a loop timed whole, counted as the
// iterations of its innermost loops, so that the time of an iteration
// follows the decomposition.

package interp

import (
	"errors"
	"go/types"
	"sync"

	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/model"
	"github.com/predict-tools/predict/profile"
	"github.com/predict-tools/predict/reduce"
	"golang.org/x/tools/go/ssa"
)

// The timing pass measures a loop nest whole: its time per entry and per
// iteration at the profiled np. Charging trips × that time per iteration
// at another np is right when an iteration does the same work at every np
// (a row of a matrix), wrong when its inner loops shrink as np grows (ft's
// loops over the ranks, each moving 1/np of a plane: at np = 64 the outer
// loop runs 64 times, each iteration doing 1/32 of the work it did at
// np = 2).
//
// A sealed loop whose nest the model can run — every loop in it counted
// with a test the model computes, no other branch, no call of the
// module's functions outside its innermost loops — is run as a skeleton
// instead: its outer levels are iterated, its innermost loops collapsed,
// each charged its trip count × the time of a unit (an innermost
// iteration). The time of a unit is the loop's measured time divided by
// the units the model counts for it at the profiled np and arguments
// (a reference interpretation, made once per program and profile): what
// the timing pass measured is spread over the work the model sees.

// unitTime is the time of a unit of a loop: total ps over units.
type unitTime struct{ total, units int64 }

// unitTimes are the times of a unit per loop node, for one profile.
type unitTimes struct {
	once  sync.Once
	times map[string]unitTime // by node; absent: not counted
	err   error
}

// unitsOf returns the unit times of prof, counting the units of the
// profiled run once.
func (prog *Program) unitsOf(prof *profile.File, mach *machine.Machine) (map[string]unitTime, error) {
	ut := entryFor(&prog.perProfMu, &prog.units, prof)
	ut.once.Do(func() { ut.times, ut.err = prog.countUnits(prof, mach) })
	return ut.times, ut.err
}

// entryFor returns the entry of prof in *m, made on first use, under mu:
// what a program computes once per profile (unitsOf, balanceOf).
func entryFor[T any](mu *sync.Mutex, m *map[*profile.File]*T, prof *profile.File) *T {
	mu.Lock()
	defer mu.Unlock()
	if *m == nil {
		*m = map[*profile.File]*T{}
	}
	e := (*m)[prof]
	if e == nil {
		e = new(T)
		(*m)[prof] = e
	}
	return e
}

// meanMachine is mach with the profile's own compute: no CPU factor, no
// noise (each burst its mean), for the runs a program makes at the
// profile's np for itself.
func meanMachine(mach *machine.Machine) *machine.Machine {
	m := mach.Clone()
	m.CPUFactor = 1
	m.Noise = nil
	return m
}

// countUnits interprets the program at the profile's np and arguments,
// every unit costing 1 ps, and divides each counted loop's measured time
// by its units. A loop whose entries in the model differ from the
// profile's, or that saw no unit, is left out (charged per iteration).
func (prog *Program) countUnits(prof *profile.File, mach *machine.Machine) (map[string]unitTime, error) {
	if mach == nil {
		var err error
		if mach, err = machine.Preset("ideal"); err != nil {
			return nil, err
		}
	}
	m := meanMachine(mach) // units are counted, not timed
	w, err := prog.run(Config{NP: max(prof.NP, 1), Machine: m, Profile: prof, Args: prof.Args, RankDetail: -1}, nil, true)
	if oe := (*OverflowError)(nil); errors.As(err, &oe) {
		// The target's communication takes the profile's run past the
		// clock: count without it (only the units matter here); the
		// prediction's own run reports the overflow at its np.
		if m, err = machine.Preset("ideal"); err != nil {
			return nil, err
		}
		w, err = prog.run(Config{NP: max(prof.NP, 1), Machine: m, Profile: prof, Args: prof.Args, RankDetail: -1}, nil, true)
	}
	if err != nil {
		return nil, err
	}
	measured := map[string]profile.FragmentStats{}
	for _, fs := range prof.Fragments {
		measured[fs.Node] = fs
	}
	times := map[string]unitTime{}
	for _, u := range w.unitFrags {
		fs, ok := measured[u.entry.node]
		units := w.hot[u.units.index].time
		entries := w.hot[u.entry.index].freq
		if !ok || units <= 0 || entries != fs.Executions || (u.minUnits > 0 && units < u.minUnits*entries) {
			continue
		}
		times[u.entry.node] = unitTime{total: fs.MeanPS * fs.Executions, units: units}
	}
	return times, nil
}

// unitFrag pairs a counted loop's fragments: entry counts its entries
// (no time), units accumulates its innermost iterations' time. For a
// segment both are its fragment, and minUnits is the units an execution
// must average at the profiled np for the count to be used.
type unitFrag struct {
	entry, units *fragment
	minUnits     int64
}

// planUnits plans a nest counted in units: its entries are counted on f,
// its innermost loops collapsed, each unit costing ut.total/ut.units.
func (cp *Compiled) planUnits(c *compiler, u *reduce.Loop, f *fragment, ut unitTime) {
	entry := cp.track(&fragment{index: f.index, node: f.node, kind: f.kind, pos: f.pos})
	units := cp.track(&fragment{index: f.index, node: f.node, kind: f.kind, pos: f.pos, units: true})
	for _, e := range u.Units.Entries {
		c.charges[e] = append(c.charges[e], entry)
	}
	cf := c.fn(u.Fn)
	plan := cp.prog.Report.Plan
	per := (ut.total + ut.units/2) / ut.units // for loops that end up iterated
	// The outermost loops below the nest's head whose units are known on
	// entry are collapsed; the others run, and so on down.
	var visit func(x *model.Node)
	visit = func(x *model.Node) {
		for _, y := range model.ChildLoops(x) {
			yl := plan.Loop(y)
			if count, ok := c.unitsOnEntry(cf, u.Units, yl, yl.Blocks); ok {
				cp.planLoop(c, yl, units, &profile.LoopStats{Node: y.ID, PerIterPS: per})
				lp := c.loopHeads[yl.Header]
				if lp == nil && yl.Test != nil {
					lp = c.loopHeads[yl.Test.Block()]
				}
				if lp != nil {
					lp.unit, lp.count = ut, count
					continue
				}
			}
			// Iterated: its inner loops are planned (an innermost loop
			// iterated is charged a unit's time per iteration).
			visit(y)
		}
	}
	visit(u.Node)
	cp.unitFrags = append(cp.unitFrags, unitFrag{entry: entry, units: units})
}

// A nest the model iterates at every level (its loops have effects the
// model keeps: spmv's renumbering of each neighbour's ghosts) is timed
// whole too, and an iteration of its outer loop does the work of its inner
// loops, which shrinks as np grows while the outer loop's trips (the
// neighbours) grow. Its time is spread over the iterations of every loop
// in it, a unit each, counted as the model runs them: at the profiled np
// the units cost what the timing pass measured, at another np their
// number follows the decomposition.
//
// planIteratedUnits plans loop pl (fragment f) so when every loop in its
// nest has a place where an iteration starts and none is sealed (a sealed
// loop is collapsed and counts no unit: its work, spread over the others'
// units, would follow theirs); it reports whether it did.
func (cp *Compiled) planIteratedUnits(c *compiler, pl *reduce.Loop, f *fragment, ut unitTime) bool {
	plan := cp.prog.Report.Plan
	var starts []ssa.Instruction
	nested := false
	ok := true
	model.Walk(pl.Node, func(x *model.Node) bool {
		if x.Kind != model.KindLoop {
			return true
		}
		xl := plan.Loop(x)
		if xl != nil && xl.Sealed && x != pl.Node {
			// Collapsed, never run: its work would be spread over the
			// units of the loops around it, which need not follow it.
			ok = false
			return false
		}
		if xl == nil || xl.IterStart == nil {
			ok = false
			return false
		}
		nested = nested || x != pl.Node
		starts = append(starts, xl.IterStart)
		return true
	})
	if !ok || !nested {
		return false
	}
	entries := pl.EntryJumps()
	if len(entries) == 0 {
		return false
	}
	entry := cp.track(&fragment{index: f.index, node: f.node, kind: f.kind, pos: f.pos})
	unit := cp.track(&fragment{index: f.index, node: f.node, kind: f.kind, pos: f.pos, units: true,
		mean: (ut.total + ut.units/2) / ut.units, errRel: f.errRel})
	for _, e := range entries {
		c.charges[e] = append(c.charges[e], entry)
	}
	for _, at := range starts {
		c.charges[at] = append(c.charges[at], unit)
	}
	cp.unitFrags = append(cp.unitFrags, unitFrag{entry: entry, units: unit})
	return true
}

// unitsOnEntry returns a function that computes, on entry to loop y, the
// units all its runs will count — its innermost iterations and the
// elements their copies move — when every trip count and length they
// depend on is known then (does not change inside rel, y's blocks).
func (c *compiler) unitsOnEntry(cf *function, u *reduce.UnitNest, y *reduce.Loop, rel map[int]bool) (func(p *proc, fr *frame) int64, bool) {
	trips, ok := c.tripsOnEntry(cf, y, rel)
	if !ok {
		return nil, false
	}
	kids := model.ChildLoops(y.Node)
	if len(kids) == 0 {
		// An innermost loop: an iteration is a unit, plus what its
		// copies move.
		var moved []func(p *proc, fr *frame) (int64, bool)
		for _, bounds := range u.Copies[y.Node] {
			var sides [2]func(p *proc, fr *frame) (int64, bool)
			for i := 0; i < len(bounds); i += 2 {
				hi, ok := c.valueOnEntry(cf, bounds[i], rel)
				if !ok {
					return nil, false
				}
				lo := func(p *proc, fr *frame) (int64, bool) { return 0, true }
				if bounds[i+1] != nil {
					if lo, ok = c.valueOnEntry(cf, bounds[i+1], rel); !ok {
						return nil, false
					}
				}
				sides[i/2] = difference(hi, lo)
			}
			moved = append(moved, copied(sides[0], sides[1]))
		}
		return func(p *proc, fr *frame) int64 {
			t := trips(p, fr)
			if t == 0 {
				return 0
			}
			w := int64(1)
			for _, m := range moved {
				k, _ := m(p, fr)
				w += k
			}
			return t * w
		}, true
	}
	var inner []func(p *proc, fr *frame) int64
	for _, k := range kids {
		f, ok := c.unitsOnEntry(cf, u, c.cp.prog.Report.Plan.Loop(k), rel)
		if !ok {
			return nil, false
		}
		inner = append(inner, f)
	}
	return func(p *proc, fr *frame) int64 {
		t := trips(p, fr)
		if t == 0 {
			return 0
		}
		var sum int64
		for _, f := range inner {
			sum += f(p, fr)
		}
		return t * sum
	}, true
}

// tripsOnEntry returns a function computing loop y's iterations from
// values known before it runs (invariant in rel). A loop tested at the
// bottom behind a guard (Go's range over an int) runs as a loop tested at
// the top would.
func (c *compiler) tripsOnEntry(cf *function, y *reduce.Loop, rel map[int]bool) (func(p *proc, fr *frame) int64, bool) {
	ind := y.Ind
	if ind == nil {
		return nil, false
	}
	init, ok1 := c.valueOnEntry(cf, ind.Init, rel)
	bound, ok2 := c.valueOnEntry(cf, ind.Bound, rel)
	if !ok1 || !ok2 {
		return nil, false
	}
	step := func(*proc, *frame) (int64, bool) { return ind.Step, true }
	if ind.StepValue != nil {
		var ok bool
		if step, ok = c.valueOnEntry(cf, ind.StepValue, rel); !ok {
			return nil, false
		}
	}
	guarded := len(y.Guards) > 0
	return func(p *proc, fr *frame) int64 {
		i, _ := init(p, fr)
		b, _ := bound(p, fr)
		k, _ := step(p, fr)
		switch {
		case !ind.TestAtBottom:
			return tripCount(i+ind.Offset, b, k, ind.Op)
		case guarded:
			return tripCount(i, b, k, ind.Op)
		}
		return 1 + tripCount(i+ind.Offset, b, k, ind.Op)
	}, true
}

// valueOnEntry returns a function computing the integer v from values
// known before the loop of rel runs: v invariant in it, or the length of a
// slice expression x[lo:hi] whose bounds are (hi − lo, whatever x is).
func (c *compiler) valueOnEntry(cf *function, v ssa.Value, rel map[int]bool) (func(p *proc, fr *frame) (int64, bool), bool) {
	if call, ok := v.(*ssa.Call); ok {
		if b, ok := call.Call.Value.(*ssa.Builtin); ok && b.Name() == "len" {
			if sl, ok := call.Call.Args[0].(*ssa.Slice); ok && sl.High != nil {
				return c.lenOnEntry(cf, sl, rel) // hi − lo
			}
		}
	}
	if !c.cp.prog.Report.Plan.Invariant(v, rel) {
		return nil, false
	}
	return c.computeOnEntry(cf, v, rel, func(x V) int64 { return x.I }), true
}

// computeOnEntry returns a function computing v (invariant in rel) on
// entry to rel, read as an integer by read.
func (c *compiler) computeOnEntry(cf *function, v ssa.Value, rel map[int]bool, read func(V) int64) func(p *proc, fr *frame) (int64, bool) {
	prep := c.entryOps(cf, rel, v)
	op := c.operand(cf, v)
	return func(p *proc, fr *frame) (int64, bool) {
		for _, o := range prep {
			if o(p, fr) != cNext {
				return 0, false
			}
		}
		return read(op.get(fr)), true
	}
}

// copied returns what a copy between slices of lengths a and b moves.
func copied(a, b func(p *proc, fr *frame) (int64, bool)) func(p *proc, fr *frame) (int64, bool) {
	return func(p *proc, fr *frame) (int64, bool) {
		x, ok1 := a(p, fr)
		y, ok2 := b(p, fr)
		return max(min(x, y), 0), ok1 && ok2
	}
}

// difference returns hi − lo.
func difference(hi, lo func(p *proc, fr *frame) (int64, bool)) func(p *proc, fr *frame) (int64, bool) {
	return func(p *proc, fr *frame) (int64, bool) {
		h, ok1 := hi(p, fr)
		l, ok2 := lo(p, fr)
		return h - l, ok1 && ok2
	}
}

// sizeof is the size of a value of type t on the 64-bit targets.
func sizeof(t types.Type) int64 { return types.SizesFor("gc", "amd64").Sizeof(t) }
