// This file defines the loop nests counted in units (see interp's units):
// which sealed nests the model can run as a skeleton, and the values
// invariant in a loop that the interpreter may compute on entry.

package reduce

import (
	"go/token"
	"maps"
	"slices"

	"github.com/predict-tools/predict/model"
	"golang.org/x/tools/go/ssa"
)

// unitNest returns loop l as a nest counted in units, or nil when the
// model cannot run its skeleton: it must be sealed, every loop in it
// counted with a test (and guards) the model computes, no other branch and
// no kept effect outside its innermost loops, and what its innermost
// loops' copies move known on entry to them.
func (p *Plan) unitNest(l *Loop) *UnitNest {
	if !l.Sealed {
		return nil
	}
	fn := l.Fn
	u := &UnitNest{}
	var loops []*model.Node
	model.Walk(l.Node, func(x *model.Node) bool {
		if x.Kind == model.KindLoop {
			loops = append(loops, x)
		}
		return true
	})
	tests := map[*ssa.If]bool{}
	phis := map[*ssa.Phi]bool{}
	inner := map[int]bool{} // blocks of the innermost loops
	for _, x := range loops {
		xl := p.byNode[x]
		if xl == nil || xl.Ind == nil || xl.Test == nil || !p.Computed(xl.Test.Cond) || model.OpaqueCond(x) {
			return nil
		}
		tests[xl.Test] = true
		for _, g := range xl.Guards {
			if !p.Computed(g.Cond) {
				return nil
			}
			tests[g] = true
		}
		phis[xl.Ind.Phi] = true
		if x == l.Node || len(model.ChildLoops(x)) > 0 {
			continue
		}
		u.Innermost = append(u.Innermost, x)
		for b := range xl.Blocks {
			inner[b] = true
		}
		// What copy moves per iteration must be known on entry.
		for _, b := range slices.Sorted(maps.Keys(xl.Blocks)) {
			for _, instr := range fn.Blocks[b].Instrs {
				call, ok := instr.(*ssa.Call)
				if !ok {
					continue
				}
				if bi, ok := call.Call.Value.(*ssa.Builtin); !ok || bi.Name() != "copy" {
					continue
				}
				var bounds []ssa.Value
				for _, arg := range call.Call.Args {
					sl, ok := arg.(*ssa.Slice)
					if !ok || sl.High == nil || !p.Invariant(sl.High, xl.Blocks) || (sl.Low != nil && !p.Invariant(sl.Low, xl.Blocks)) {
						return nil
					}
					bounds = append(bounds, sl.High, sl.Low)
				}
				if u.Copies == nil {
					u.Copies = map[*model.Node][][]ssa.Value{}
				}
				u.Copies[x] = append(u.Copies[x], bounds)
			}
		}
	}
	if len(u.Innermost) == 0 {
		return nil
	}
	for b := range l.Blocks {
		if inner[b] {
			continue
		}
		for _, instr := range fn.Blocks[b].Instrs {
			switch in := instr.(type) {
			case *ssa.If:
				if !tests[in] {
					return nil // a branch the skeleton would not follow
				}
			case *ssa.Phi:
				if p.keep[in] && !phis[in] {
					return nil // a value merged from branches
				}
			case *ssa.Call:
				if p.keep[in] {
					if f := in.Call.StaticCallee(); (f != nil && p.models[f] != nil) || !p.QuietCall(in) {
						return nil // its work is the loop's: it must not run
					}
				}
			case *ssa.Go, *ssa.Defer, *ssa.Panic, *ssa.Store, *ssa.MapUpdate, *ssa.Send:
				if p.keep[in] {
					return nil
				}
			}
		}
	}
	u.Entries = l.EntryJumps()
	return u
}

// EntryJumps returns where the loop statement is entered: the jump into
// its header from outside, or the guard that decides whether it runs
// (reached on every execution of the loop statement, as the timing pass
// counts them).
func (l *Loop) EntryJumps() []ssa.Instruction {
	var out []ssa.Instruction
	for _, pr := range l.Header.Preds {
		if !l.Blocks[pr.Index] && len(pr.Instrs) > 0 {
			out = append(out, pr.Instrs[len(pr.Instrs)-1])
		}
	}
	return out
}

// Invariant reports whether v is computed, before the loop of blocks or
// in it from values that do not change in it (no φ of the loop, no call
// but len and cap), so that computing it on entry gives every iteration's
// value. For sealed loops: nothing kept in them writes memory.
func (p *Plan) Invariant(v ssa.Value, blocks map[int]bool) bool {
	instr, ok := v.(ssa.Instruction)
	if !ok || instr.Block() == nil || !blocks[instr.Block().Index] {
		return !ok || p.Computed(v)
	}
	if !p.Computed(v) {
		return false
	}
	switch in := v.(type) {
	case *ssa.BinOp, *ssa.Convert, *ssa.ChangeType, *ssa.Field, *ssa.FieldAddr, *ssa.IndexAddr, *ssa.Index, *ssa.Extract:
	case *ssa.UnOp:
		if in.Op == token.ARROW {
			return false
		}
	case *ssa.Call:
		if b, ok := in.Call.Value.(*ssa.Builtin); !ok || (b.Name() != "len" && b.Name() != "cap") {
			return false
		}
	default:
		return false
	}
	var rands []*ssa.Value
	for _, r := range instr.Operands(rands) {
		if *r != nil && !p.Invariant(*r, blocks) {
			return false
		}
	}
	return true
}
