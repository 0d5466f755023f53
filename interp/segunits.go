// This file defines segments counted by the bytes they allocate and move:
// straight-line code whose make and copy calls, and calls of functions
// outside the program that work over slices (a sort), take lengths the
// model computes is charged by those bytes, so that a rank's share of the
// problem costs what it costs at every np.

package interp

import (
	"fmt"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"github.com/predict-tools/predict/model"
	"github.com/predict-tools/predict/reduce"
	"golang.org/x/tools/go/ssa"
)

// A straight-line segment that allocates or copies problem-sized slices
// costs, at the profiled np, what zeroing and moving them costs: charged
// as measured at every np, a profile at np=1 makes a rank at np=256
// allocate or copy the whole problem (a serial fraction that does not
// exist), and a profile at np=2 makes a rank at np=1 move half of it.
// Such a segment is counted in units: 1 + the bytes it allocates + the
// bytes its copies move, each costing the measured time over the units
// counted at the profiled np — when they averaged at least allocUnitsMin
// bytes an execution there (below, the segment's fixed work dominates and
// it is charged as measured).
const allocUnitsMin = 64 << 10

// allocUnits is the cost of a segment counted by the bytes it allocates
// and moves.
type allocUnits struct {
	bytes []func(p *proc, fr *frame) (int64, bool) // per make or copy call, at the segment's start
	unit  unitTime                                 // total/units: a unit's time
	// over names the functions outside the program counted by their
	// slices' bytes, for the run's assumptions ("": none).
	over string
}

// planAllocUnits makes segment n (fragment f, holding the time of the
// leaves covers, n first) counted by the bytes it allocates and copies
// and the bytes of the slices it hands to functions outside the program
// that work over them (reduce.WorksOver: a sort, a hash; a slice passed as
// an interface too, as sort.Slice takes it), when their lengths are
// computed from values known at its start.
func (cp *Compiled) planAllocUnits(c *compiler, fn *ssa.Function, n *model.Node, covers []*model.Node, f *fragment) {
	leaves := []*model.Node{n}
	for _, l := range covers {
		if l != n && l.Leaf != nil {
			leaves = append(leaves, l)
		}
	}
	blocks := map[int]bool{}
	for _, l := range leaves {
		blocks[l.Leaf.Block] = true
	}
	cf := c.fn(fn)
	first := fn.Blocks[n.Leaf.Block].Instrs[n.Leaf.First]
	var bytes []func(p *proc, fr *frame) (int64, bool)
	var over []string // the functions outside the program counted
	for _, l := range leaves {
		lf := l.Leaf
		blk := fn.Blocks[lf.Block]
		for i := lf.First; i < lf.Last && i < len(blk.Instrs); i++ {
			switch in := blk.Instrs[i].(type) {
			case *ssa.MakeSlice:
				l, ok := c.valueOnEntry(cf, in.Len, blocks)
				if !ok {
					return
				}
				bytes = append(bytes, times(l, sizeof(in.Type().Underlying().(*types.Slice).Elem())))
			case *ssa.Call:
				if worked := reduce.WorkedSlices(in, c.rep.Plan.Followed); worked != nil {
					// A slice whose length the model does not compute
					// leaves the call out, as an append's.
					counted := false
					for _, arg := range worked {
						if n, ok := c.argLenAtStart(cf, arg, blocks, first); ok {
							bytes, counted = append(bytes, times(n, elemSize(arg.Type()))), true
						}
					}
					if name := c.calleeName(in); counted && !slices.Contains(over, name) {
						over = append(over, name)
					}
					continue
				}
				b, ok := in.Call.Value.(*ssa.Builtin)
				if ok && b.Name() == "append" && len(in.Call.Args) == 2 {
					// append(s, x...) moves x's elements (and the literal
					// arguments of append(s, a, b), which SSA passes as a
					// slice of an array of theirs).
					// A length the model does not compute leaves the
					// append out, as before appends were counted: the
					// segment's other bytes still count.
					if n, ok := c.lenOnEntry(cf, in.Call.Args[1], blocks); ok {
						bytes = append(bytes, times(n, movedSize(in.Call.Args[1].Type())))
					}
					continue
				}
				if !ok || b.Name() != "copy" {
					continue
				}
				dst, ok1 := c.lenOnEntry(cf, in.Call.Args[0], blocks)
				src, ok2 := c.lenOnEntry(cf, in.Call.Args[1], blocks)
				if !ok1 || !ok2 {
					return // a copy of a length the model does not know: charged as measured
				}
				bytes = append(bytes, times(copied(dst, src), elemSize(in.Call.Args[0].Type())))
			}
		}
	}
	if len(bytes) == 0 {
		return
	}
	ut := unitTime{total: 1, units: 1}
	if !cp.counting {
		if ut = cp.unitTime[f.node]; ut.units == 0 {
			return
		}
	}
	f.alloc = &allocUnits{bytes: bytes, unit: ut, over: strings.Join(over, ", ")}
	cp.unitFrags = append(cp.unitFrags, unitFrag{entry: f, units: f, minUnits: allocUnitsMin})
}

// movedSize is the size of an element of x that append(s, x...) moves: a
// byte of a string, else an element of the slice.
func movedSize(t types.Type) int64 {
	if b, ok := t.Underlying().(*types.Basic); ok && b.Info()&types.IsString != 0 {
		return 1
	}
	return elemSize(t)
}

// times returns n × size.
func times(n func(p *proc, fr *frame) (int64, bool), size int64) func(p *proc, fr *frame) (int64, bool) {
	return func(p *proc, fr *frame) (int64, bool) {
		k, ok := n(p, fr)
		return k * size, ok
	}
}

// lenOnEntry returns a function computing the length of slice v from values
// known at the start of rel: a slice expression x[lo:hi] (hi − lo; without
// hi, x's length − lo), a slice the model makes with a length it knows, an
// array (through its pointer), or a slice value the model computes (its
// length read when it runs).
func (c *compiler) lenOnEntry(cf *function, v ssa.Value, rel map[int]bool) (func(p *proc, fr *frame) (int64, bool), bool) {
	zero := func(*proc, *frame) (int64, bool) { return 0, true }
	switch x := v.(type) {
	case *ssa.Slice:
		lo, ok := zero, true
		if x.Low != nil {
			if lo, ok = c.valueOnEntry(cf, x.Low, rel); !ok {
				return nil, false
			}
		}
		var hi func(p *proc, fr *frame) (int64, bool)
		if x.High != nil {
			hi, ok = c.valueOnEntry(cf, x.High, rel)
		} else {
			hi, ok = c.lenOnEntry(cf, x.X, rel)
		}
		if !ok {
			return nil, false
		}
		return difference(hi, lo), true
	case *ssa.MakeSlice:
		return c.valueOnEntry(cf, x.Len, rel)
	}
	if pt, ok := v.Type().Underlying().(*types.Pointer); ok {
		if at, ok := pt.Elem().Underlying().(*types.Array); ok { // a slice of an array: its length is the type's
			n := at.Len()
			return func(*proc, *frame) (int64, bool) { return n, true }, true
		}
	}
	if _, ok := v.Type().Underlying().(*types.Slice); !ok || !c.cp.prog.Report.Plan.Invariant(v, rel) {
		return nil, false
	}
	return c.computeOnEntry(cf, v, rel, func(x V) int64 {
		if s, _ := x.R.(*sliceV); s != nil {
			return int64(s.len)
		}
		return 0 // a nil slice
	}), true
}

// argLenAtStart is lenOnEntry for a slice a segment hands to a function
// outside the program, its first instruction first: a variable a closure
// captures (sort.Slice(x, func(i, j int) bool { … x[i] … })) lives in
// memory, and its value at the segment's start is the one loaded for the
// call when nothing in the segment stores to it before.
func (c *compiler) argLenAtStart(cf *function, v ssa.Value, rel map[int]bool, first ssa.Instruction) (func(p *proc, fr *frame) (int64, bool), bool) {
	load, ok := v.(*ssa.UnOp)
	if !ok || load.Op != token.MUL {
		return c.lenOnEntry(cf, v, rel)
	}
	cell, ok := load.X.(*ssa.Alloc)
	if !ok || storedAfter(cell, rel, first) {
		return nil, false
	}
	// The cell itself is made before the segment: in a block before it,
	// or earlier in its first block.
	if b := cell.Block(); rel[b.Index] && (b != first.Block() || slices.Index(b.Instrs, ssa.Instruction(cell)) > slices.Index(b.Instrs, first)) {
		return nil, false
	}
	op := c.operand(cf, cell)
	return func(p *proc, fr *frame) (int64, bool) {
		if s, _ := loadFrom(op.get(fr), false).R.(*sliceV); s != nil {
			return int64(s.len), true
		}
		return 0, true
	}, true
}

// storedAfter reports whether an instruction of the blocks rel of cell's
// function stores to cell, those of first's block from first on.
func storedAfter(cell *ssa.Alloc, rel map[int]bool, first ssa.Instruction) bool {
	for _, b := range cell.Parent().Blocks {
		if !rel[b.Index] {
			continue
		}
		from := 0
		if b == first.Block() {
			from = slices.Index(b.Instrs, first)
		}
		for _, instr := range b.Instrs[max(from, 0):] {
			if st, ok := instr.(*ssa.Store); ok && st.Addr == cell {
				return true
			}
		}
	}
	return false
}

// op charges the segment its units' time.
func (au *allocUnits) op(f *fragment) op {
	return func(p *proc, fr *frame) ctl {
		units := int64(1)
		for _, b := range au.bytes {
			n, ok := b(p, fr)
			if !ok {
				if p.err != nil {
					return cStop
				}
				return p.fail(f.pos, "the length of an allocation or copy of this segment could not be computed on entry")
			}
			units += max(n, 0)
		}
		if _, noted := p.w.assumptions[f.pos]; !noted && au.over != "" && p.w.prof != nil && p.w.cfg.NP != p.w.prof.NP {
			p.w.noteAssumption(f.pos, fmt.Sprintf("%s: charged by the bytes of the slices it works over, in proportion (the timing pass timed it at np=%d)",
				au.over, p.w.prof.NP))
		}
		work := roundTime(float64(units) * float64(au.unit.total) / float64(au.unit.units))
		return p.charge(f, p.w.compute(work))
	}
}

// calleeName names what a call calls, for the run's assumptions: the
// function, or the function or interface value a sealed call goes
// through (by its variable's name, or the method's).
func (c *compiler) calleeName(call *ssa.Call) string {
	if f := call.Call.StaticCallee(); f != nil {
		return f.String()
	}
	if call.Call.IsInvoke() {
		return "the method " + call.Call.Method.Name() + " of an interface value"
	}
	if name := c.l.Names[call.Call.Value]; name != "" {
		return "the function value " + name
	}
	return "a function value"
}
