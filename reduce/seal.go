// This file defines sealed loops: counted loops that do not communicate,
// which the interpreter always collapses, so that nothing their bodies
// compute needs to be kept.

package reduce

import (
	"go/token"

	"github.com/predict-tools/predict/model"
	"golang.org/x/tools/go/ssa"
)

// A sealed loop is a collapse candidate (DESIGN §5.5) that the interpreter
// never enters: its time is trips × the measured time of an iteration,
// its trip count a formula of values known on entry. So the branch
// conditions inside it are not roots: the data that only decides how its
// body runs (the row pointers of a sparse matrix-vector product, a random
// draw deciding a retry) is dropped, with everything computed only for it
// (the matrix's construction).
//
// The tests of the loops inside a sealed loop stay roots (unless they
// depend on data the interpreter will not have): they count the work of an
// iteration, which changes with the decomposition (a loop over ranks
// whose inner loops shrink as np grows), and the interpreter may count it.
//
// A loop is sealed when it does not communicate, is counted (its test
// compares an induction variable with a bound that does not change in
// it, both known on entry), is left only by its test, calls only
// functions outside the module, commlib's queries and the module's small
// helpers (no loops, no calls: never timed apart from their callers), and
// no value it computes is needed outside it: after the backward closure
// no instruction inside it is control but its own test's, and no store
// inside it is kept. A loop failing the last condition is unsealed and the
// closure is computed again, until no sealed loop fails (a fixed point:
// the set only shrinks). Only the outermost sealed loops of a nest are
// sealed; an inner loop may be sealed once its outer loop is not.
type sealedLoop struct {
	node   *model.Node
	fn     *ssa.Function
	blocks map[int]bool // the natural loop of the header
	test   *ssa.If      // the loop's own test: still a root
	ind    *Induction
	// own: the values inside the loop that its test and its inner loops'
	// tests depend on (the inductions, their steps, the comparisons, loads
	// of bounds): they may be control.
	own map[ssa.Value]bool
	// inner, for a perfect nest: the inner loop's induction when its
	// count is known on entry (the timing pass may time the nest per
	// innermost iteration, and the interpreter then needs it).
	inner *Induction
	// nested: the tests of the loops inside it (by block), unless they
	// depend on data the interpreter will not have. They stay roots: the
	// trip counts of the inner loops are the work of an iteration, which
	// the interpreter may count (interp's units).
	nested map[*ssa.BasicBlock]*ssa.If
	// lengths: the bounds of the slices copy moves inside it.
	lengths []ssa.Value
}

// sealCandidates finds the loops that may be sealed, before any root is
// known. Nested candidates are all returned; seal picks the outermost.
func (a *analysis) sealCandidates(prog *model.Program) []*sealedLoop {
	if a.opts.Exact {
		return nil
	}
	comm := a.communicates(prog)
	small := smallFunctions(prog)
	var out []*sealedLoop
	for _, f := range prog.Functions {
		fn := a.ssaOf[f]
		model.Walk(f.Tree, func(n *model.Node) bool {
			if n.Kind != model.KindLoop {
				return true
			}
			if s := a.sealable(fn, n, comm, small); s != nil {
				out = append(out, s)
			}
			return true
		})
	}
	return out
}

// smallFunctions are the functions without loops and without calls of
// the module's functions.
func smallFunctions(prog *model.Program) map[*model.Function]bool {
	small := map[*model.Function]bool{}
	for _, f := range prog.Functions {
		ok := true
		model.Walk(f.Tree, func(n *model.Node) bool {
			if n.Kind == model.KindLoop || (n.Leaf != nil && n.Leaf.Kind != model.LeafCB && n.Leaf.Kind != model.LeafEFC && n.Leaf.Kind != model.LeafRet) {
				ok = false
			}
			return ok
		})
		small[f] = ok
	}
	return small
}

// sealable returns loop n of fn as a sealed loop, or nil.
func (a *analysis) sealable(fn *ssa.Function, n *model.Node, comm map[string]string, small map[*model.Function]bool) *sealedLoop {
	switch n.Loop.Range {
	case "map", "chan", "func":
		return nil
	}
	if a.loopCommunicates(n, comm) != "" {
		return nil
	}
	ind, test := a.inductionOf(fn, n)
	if ind == nil || a.taint[test.Cond] != "" {
		return nil
	}
	header := ind.Phi.Block()
	blocks := naturalLoop(header, model.Blocks(n))
	inside := func(v ssa.Value) bool {
		i, ok := v.(ssa.Instruction)
		return ok && i.Block() != nil && i.Parent() == fn && blocks[i.Block().Index]
	}
	if inside(ind.Init) {
		return nil
	}
	// Left only from its test.
	_, exitFrom, _ := loopExit(fn, blocks)
	if exitFrom == nil || exitFrom != test.Block() {
		return nil
	}
	if inside(ind.Bound) && ind.Bound.(ssa.Instruction).Block() != exitFrom {
		return nil // recomputed in the body: the interpreter cannot know it on entry
	}
	for b := range blocks {
		for _, instr := range fn.Blocks[b].Instrs {
			switch instr := instr.(type) {
			case *ssa.Go, *ssa.Defer, *ssa.Panic, *ssa.Select, *ssa.Send, *ssa.Return:
				return nil
			case *ssa.UnOp:
				if instr.Op == token.ARROW {
					return nil
				}
			case ssa.CallInstruction:
				cc := instr.Common()
				if _, builtin := cc.Value.(*ssa.Builtin); builtin {
					continue
				}
				callee := cc.StaticCallee()
				switch {
				case callee == nil:
					return nil // a dynamic call: its targets would be roots
				case isCommlib(callee):
					if !smallQueries[opName(callee)] {
						return nil
					}
				case a.analyzed[callee]:
					if !small[a.modelOf[callee]] {
						return nil
					}
				}
			}
		}
	}
	s := &sealedLoop{node: n, fn: fn, blocks: blocks, test: test, ind: ind, own: map[ssa.Value]bool{}}
	var walk func(v ssa.Value)
	walk = func(v ssa.Value) {
		if !inside(v) || s.own[v] {
			return
		}
		s.own[v] = true
		var ops []*ssa.Value
		for _, op := range v.(ssa.Instruction).Operands(ops) {
			if *op != nil {
				walk(*op)
			}
		}
	}
	walk(test.Cond)
	// The lengths of what copy moves inside it: its work (ft's unpacking
	// copies nz/np elements a line).
	for b := range blocks {
		for _, instr := range fn.Blocks[b].Instrs {
			for _, v := range copyLengths(instr) {
				if a.taint[v] == "" {
					s.lengths = append(s.lengths, v)
					walk(v)
				}
			}
		}
	}
	s.nested = map[*ssa.BasicBlock]*ssa.If{}
	model.Walk(n.Loop.Body, func(x *model.Node) bool {
		if x.Kind == model.KindLoop {
			xind, _ := a.inductionOf(fn, x)
			for _, iff := range append(loopGuards(fn, x, xind), loopTest(fn, x)) {
				if iff != nil && a.taint[iff.Cond] == "" {
					s.nested[iff.Block()] = iff
					walk(iff.Cond)
				}
			}
		}
		return true
	})
	if in := model.InnerLoop(n); in != nil {
		if iind, _ := a.inductionOf(fn, in); iind != nil && iind.StepValue == nil && !a.varies(iind.Init, blocks) && !a.varies(iind.Bound, blocks) {
			s.inner = iind
			walk(iind.Init)
			walk(iind.Bound)
		}
	}
	return s
}

// inductionOf returns the induction of a counted loop and its test.
func (a *analysis) inductionOf(fn *ssa.Function, n *model.Node) (*Induction, *ssa.If) {
	formula, _, ind := a.loopFormula(fn, n)
	if formula == "" || ind == nil {
		return nil, nil
	}
	return ind, loopTest(fn, n)
}

// rootCosts keeps, where it costs nothing else, the lengths that decide
// what the program allocates and moves (costLengths), so that the
// interpreter counts a segment in its bytes (interp/segunits.go). They are
// soft roots: one that would need data the model does not compute, or
// the body of a sealed loop (a length summed by a loop the model would
// then run iteration by iteration), is left out, and its segment is
// charged as measured.
func (a *analysis) rootCosts() {
	var vs []ssa.Value
	for _, fn := range a.fns {
		for _, b := range fn.Blocks {
			if a.unrun(b) {
				continue // rootSealed's, or never run
			}
			for _, instr := range b.Instrs {
				for _, v := range a.costLengths(instr) {
					if !a.ctl[v] && a.taint[v] == "" {
						vs = append(vs, v)
					}
				}
			}
		}
	}
	keep := func(vs ...ssa.Value) bool {
		saved := a.saveControl()
		if !a.trialOf(false, vs) { // lengths: not the slices' contents
			return false
		}
		for _, s := range a.sealedLoops {
			if a.sealBroken(s) {
				a.restoreControl(saved)
				return false
			}
		}
		for _, s := range a.sealedRecs {
			if a.recBroken(s) {
				a.restoreControl(saved)
				return false
			}
		}
		for _, v := range vs {
			if a.roots[v] == "" {
				a.roots[v] = "length allocated or moved"
			}
		}
		return true
	}
	if len(vs) == 0 || keep(vs...) {
		return
	}
	for _, v := range vs {
		if !a.ctl[v] {
			keep(v)
		}
	}
}

// costLengths returns the values that decide how many bytes instr
// allocates or moves: a make's length, the bounds of the slices a copy
// moves between (copyLengths), those of the slice append(s, x...)
// moves, and the slices a function outside the program works over
// (WorksOver: the bounds of x[lo:hi], a make's length, or the slice
// itself, passed as an interface too).
func (a *analysis) costLengths(instr ssa.Instruction) []ssa.Value {
	switch in := instr.(type) {
	case *ssa.MakeSlice:
		return []ssa.Value{in.Len}
	case *ssa.Call:
		if worked := WorkedSlices(in, a.followed); worked != nil {
			var vs []ssa.Value
			for _, arg := range worked {
				switch x := arg.(type) {
				case *ssa.Slice:
					vs = append(vs, sliceBounds(x)...)
				case *ssa.MakeSlice:
					vs = append(vs, x.Len)
				default:
					vs = append(vs, arg)
				}
			}
			return vs
		}
		if b, ok := in.Call.Value.(*ssa.Builtin); ok && b.Name() == "append" && len(in.Call.Args) == 2 {
			if sl, ok := in.Call.Args[1].(*ssa.Slice); ok {
				return sliceBounds(sl)
			}
			return nil
		}
		return copyLengths(in)
	}
	return nil
}

// copyLengths returns, for a call of the builtin copy whose arguments are
// both sliced with an explicit high bound (x[lo:hi], x[:hi]), the bounds
// that give the number of elements moved: min(hi − lo) over the two;
// nil for other instructions.
func copyLengths(instr ssa.Instruction) []ssa.Value {
	call, ok := instr.(*ssa.Call)
	if !ok {
		return nil
	}
	if b, ok := call.Call.Value.(*ssa.Builtin); !ok || b.Name() != "copy" || len(call.Call.Args) != 2 {
		return nil
	}
	var vs []ssa.Value
	for _, arg := range call.Call.Args {
		sl, ok := arg.(*ssa.Slice)
		if !ok || sl.High == nil {
			return nil
		}
		vs = append(vs, sliceBounds(sl)...)
	}
	return vs
}

// sliceBounds returns the bounds that give x[lo:hi]'s length, hi then lo
// (none for lo), or nil when x has no high bound.
func sliceBounds(x *ssa.Slice) []ssa.Value {
	switch {
	case x.High == nil:
		return nil
	case x.Low == nil:
		return []ssa.Value{x.High}
	}
	return []ssa.Value{x.High, x.Low}
}

// loopGuards returns the branches that decide whether loop n of fn (with
// induction ind, or nil) is entered at all: a loop tested at the bottom
// (Go's range over an int) is preceded by one.
func loopGuards(fn *ssa.Function, n *model.Node, ind *Induction) []*ssa.If {
	var header *ssa.BasicBlock
	if ind != nil {
		header = ind.Phi.Block()
	} else if iff := loopTest(fn, n); iff != nil {
		header = iff.Block()
	}
	if header == nil {
		return nil
	}
	blocks := naturalLoop(header, model.Blocks(n))
	var guards []*ssa.If
	for _, p := range header.Preds {
		if blocks[p.Index] {
			continue
		}
		if iff, ok := p.Instrs[len(p.Instrs)-1].(*ssa.If); ok {
			guards = append(guards, iff)
		}
	}
	return guards
}

// loopTest returns the branch that tests loop n of fn, or nil when its
// condition is not a single test.
func loopTest(fn *ssa.Function, n *model.Node) *ssa.If {
	iff, _ := condTest(fn, n)
	return iff
}

// condTest returns the branch of loop n's condition when it is a single
// test (under any number of nots), and whether the loop goes on when the
// branch's condition is false (an odd number of nots).
func condTest(fn *ssa.Function, n *model.Node) (iff *ssa.If, negated bool) {
	cond := n.Cond
	for cond != nil && cond.Kind == model.KindNot {
		cond, negated = cond.Children[0], !negated
	}
	if cond == nil || cond.Kind != model.KindTest || cond.Block == nil {
		return nil, false
	}
	blk := fn.Blocks[*cond.Block]
	iff, _ = blk.Instrs[len(blk.Instrs)-1].(*ssa.If)
	return iff, negated
}

// seal seals the loops of cands not inside another of them.
func (a *analysis) seal(cands []*sealedLoop) {
	a.sealed, a.sealedLoops = map[*ssa.BasicBlock]*sealedLoop{}, nil
	for _, s := range cands {
		nested := false
		for _, t := range cands {
			if t != s && t.fn == s.fn && t.blocks[s.ind.Phi.Block().Index] && !s.blocks[t.ind.Phi.Block().Index] {
				nested = true
				break
			}
		}
		if !nested {
			a.sealedLoops = append(a.sealedLoops, s)
			for b := range s.blocks {
				a.sealed[s.fn.Blocks[b]] = s
			}
		}
	}
}

// broken reports whether the closure needs something sealed loop s
// computes: a control value inside it other than its own test's (or one
// of those used after it, but the induction variable, whose final value
// the interpreter sets), or a kept store or call.
func (a *analysis) broken(s *sealedLoop) bool {
	for b := range s.blocks {
		for _, instr := range s.fn.Blocks[b].Instrs {
			if a.keepCalls[instr] {
				return true
			}
			if call, ok := instr.(ssa.CallInstruction); ok {
				// A helper called inside: a store it makes that the
				// closure keeps would be lost with the loop's body.
				for _, t := range a.callees[call] {
					for _, tb := range t.Blocks {
						for _, ti := range tb.Instrs {
							if a.keepCalls[ti] {
								return true
							}
						}
					}
				}
			}
			v, ok := instr.(ssa.Value)
			if !ok || !a.ctl[v] {
				continue
			}
			if !s.own[v] {
				return true
			}
			if v == ssa.Value(s.ind.Phi) {
				continue
			}
			for _, ref := range *v.Referrers() {
				if ref.Block() != nil && !s.blocks[ref.Block().Index] {
					return true
				}
			}
		}
	}
	return false
}

// loopExit returns the loop's only exit edge (from a block of blocks to
// one outside them), and how many exit edges it has: 0, 1, or 2 for
// several (exit and from are then nil).
func loopExit(fn *ssa.Function, blocks map[int]bool) (exit, from *ssa.BasicBlock, edges int) {
	for b := range blocks {
		for _, s := range fn.Blocks[b].Succs {
			if blocks[s.Index] || s == exit && fn.Blocks[b] == from {
				continue
			}
			if exit != nil {
				return nil, nil, 2
			}
			exit, from, edges = s, fn.Blocks[b], 1
		}
	}
	return exit, from, edges
}

// naturalLoop returns the blocks of the natural loop of header: the blocks
// from which a back edge to header is reached without passing through it.
// (covered gives the blocks the model's leaves cover; a loop without a
// back edge keeps them.)
func naturalLoop(header *ssa.BasicBlock, covered map[int]bool) map[int]bool {
	blocks := map[int]bool{header.Index: true}
	var work []*ssa.BasicBlock
	for _, p := range header.Preds {
		if p == header || header.Dominates(p) { // a back edge
			if !blocks[p.Index] {
				blocks[p.Index] = true
				work = append(work, p)
			}
		}
	}
	if len(work) == 0 {
		return covered
	}
	for len(work) > 0 {
		b := work[len(work)-1]
		work = work[:len(work)-1]
		for _, p := range b.Preds {
			if !blocks[p.Index] {
				blocks[p.Index] = true
				work = append(work, p)
			}
		}
	}
	return blocks
}

// sealBroken reports whether s is sealed and the closure breaks it.
func (a *analysis) sealBroken(s *sealedLoop) bool {
	return a.sealed[s.ind.Phi.Block()] == s && a.broken(s)
}

// resetControl forgets the roots and the closure, to compute them again
// with fewer sealed loops.
func (a *analysis) resetControl() {
	a.ctl, a.ctlLoc = map[ssa.Value]bool{}, map[loc]bool{}
	a.ctlParams, a.ctlResults = map[*ssa.Function]map[int]bool{}, map[*ssa.Function]map[int]bool{}
	a.keepCalls = map[ssa.Instruction]bool{}
	a.work, a.workLoc = nil, nil
	a.opaque, a.roots = map[ssa.Value]string{}, map[ssa.Value]string{}
	a.opaqueArgs = nil
	a.checks, a.checkWhy = map[*ssa.If]string{}, map[*ssa.If]string{}
}

// control computes the roots and their closure with the largest set of
// sealed loops that the closure leaves intact.
func (a *analysis) control(prog *model.Program) {
	cands := a.sealCandidates(prog)
	recs := a.recursionCandidates(prog)
	for {
		a.seal(cands)
		a.sealRecursions(recs)
		a.findRoots()
		a.closure()
		a.settleChecks()
		a.rootMessages()
		var left []*sealedLoop
		for _, s := range cands {
			if a.sealBroken(s) {
				continue
			}
			left = append(left, s)
		}
		var leftRecs []*sealedRec
		for _, s := range recs {
			if !a.recBroken(s) {
				leftRecs = append(leftRecs, s)
			}
		}
		if len(left) == len(cands) && len(leftRecs) == len(recs) {
			a.rootCosts()
			return
		}
		cands, recs = left, leftRecs
		a.resetControl()
	}
}
