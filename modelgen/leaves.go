// This file defines leaves: how the instructions of a basic block are cut
// into computation runs and calls, classified, and described.

package modelgen

import (
	"fmt"
	"go/types"
	"slices"
	"strings"

	"github.com/predict-tools/predict/commlib/catalog"
	"github.com/predict-tools/predict/model"
	"golang.org/x/tools/go/ssa"
)

// leaves cuts block b into leaves: maximal runs of computation (cb), and
// one leaf per call, go, defer, rundefers, return and panic. The final If
// or Jump is not a leaf: the tree's structure stands for it.
func (fb *funcBuilder) leaves(b *ssa.BasicBlock) []*model.Node {
	var out []*model.Node
	start := -1
	flush := func(end int) {
		if start >= 0 {
			out = append(out, fb.leaf(b, start, end, &model.Leaf{Kind: model.LeafCB}))
			start = -1
		}
	}
	for i, instr := range b.Instrs {
		var lf *model.Leaf
		switch instr := instr.(type) {
		case *ssa.If, *ssa.Jump:
			flush(i)
			continue
		case *ssa.Return:
			lf = &model.Leaf{Kind: model.LeafRet}
		case *ssa.Panic:
			lf = &model.Leaf{Kind: model.LeafPanic}
		case *ssa.RunDefers:
			lf = &model.Leaf{Kind: model.LeafRunDefers}
		case *ssa.Go:
			lf = fb.callLeaf(instr.Common())
			lf.Kind = model.LeafSpawn
		case *ssa.Defer:
			lf = fb.callLeaf(instr.Common())
			lf.Kind = model.LeafDefer
		case *ssa.Call:
			if bi, ok := instr.Call.Value.(*ssa.Builtin); ok && bi.Name() != "recover" {
				break // len, append, copy, ...: computation
			}
			lf = fb.callLeaf(instr.Common())
		}
		if lf == nil {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
		out = append(out, fb.leaf(b, i, i+1, lf))
	}
	flush(len(b.Instrs))
	return out
}

// callLeaf classifies a call: commlib (cfc), the program's module (ufc),
// anything else (efc); dynamic calls list their candidates.
func (fb *funcBuilder) callLeaf(cc *ssa.CallCommon) *model.Leaf {
	lf := &model.Leaf{}
	for _, a := range cc.Args {
		lf.Args = append(lf.Args, valueName(a))
	}
	if cc.IsInvoke() {
		lf.Args = append([]string{valueName(cc.Value)}, lf.Args...)
	}
	if bi, ok := cc.Value.(*ssa.Builtin); ok {
		lf.Kind, lf.Callee = model.LeafEFC, "builtin "+bi.Name()
		return lf
	}
	if callee := cc.StaticCallee(); callee != nil {
		switch {
		case IsCommlib(callee):
			lf.Kind, lf.Op, lf.Callee = model.LeafCFC, CommlibOp(callee), callee.String()
		case GoSyncOp(callee) != "":
			lf.Kind, lf.Op, lf.Callee = model.LeafCFC, GoSyncOp(callee), callee.String()
		case fb.b.inModule(callee):
			lf.Kind, lf.Callee = model.LeafUFC, fb.b.funcID(callee)
			fb.b.enqueue(callee)
		default:
			lf.Kind, lf.Callee = model.LeafEFC, callee.String()
		}
		return lf
	}
	// Dynamic: an interface method or a function value.
	lf.Dynamic = true
	lf.Kind = model.LeafEFC
	if cc.IsInvoke() {
		lf.Callee = fmt.Sprintf("(%s).%s", types.TypeString(cc.Value.Type(), nil), cc.Method.Name())
	} else {
		lf.Callee = valueName(cc.Value)
	}
	commlib := ""
	for _, t := range fb.b.candidates(cc) {
		switch {
		case fb.b.inModule(t):
			lf.Kind = model.LeafUFC
			lf.Targets = append(lf.Targets, fb.b.funcID(t))
			fb.b.enqueue(t)
		case IsCommlib(t):
			commlib = CommlibOp(t)
			lf.Targets = append(lf.Targets, t.String())
		default:
			lf.Targets = append(lf.Targets, t.String())
		}
	}
	if commlib != "" {
		// It may communicate (a *Comm in an interface): kept, as a
		// commlib call is.
		lf.Kind, lf.Op = model.LeafCFC, commlib
	}
	slices.Sort(lf.Targets)
	return lf
}

// CommlibOp names a commlib operation as commlib's catalog does:
// "Comm.Send", "Pool.SetTask", "Main".
func CommlibOp(fn *ssa.Function) string {
	if o := fn.Origin(); o != nil {
		fn = o
	}
	if recv := fn.Signature.Recv(); recv != nil {
		t := recv.Type()
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		if n, ok := t.(*types.Named); ok {
			return catalog.NameOf(n.Obj().Name(), fn.Name())
		}
	}
	return catalog.NameOf("", fn.Name())
}

// leaf completes a leaf for instructions [first, last) of b: instruction
// text, input and output variables, source range.
func (fb *funcBuilder) leaf(b *ssa.BasicBlock, first, last int, lf *model.Leaf) *model.Node {
	lf.Block, lf.First, lf.Last = b.Index, first, last
	n := &model.Node{Kind: model.KindLeaf, Leaf: lf}
	defined := map[ssa.Value]bool{}
	for _, instr := range b.Instrs[first:last] {
		lf.Instrs = append(lf.Instrs, instrString(instr))
		if _, phi := instr.(*ssa.Phi); !phi { // a phi's position is its variable's declaration
			n.Pos.Extend(fb.b.pos(instr.Pos()))
		}
		if v, ok := instr.(ssa.Value); ok {
			defined[v] = true
		}
	}
	in := map[string]bool{}
	var ops []*ssa.Value
	for _, instr := range b.Instrs[first:last] {
		for _, op := range instr.Operands(ops[:0]) {
			if op == nil || *op == nil || defined[*op] {
				continue
			}
			if isVariable(*op) {
				in[valueName(*op)] = true
			}
		}
	}
	out := map[string]bool{}
	for v := range defined {
		refs := v.Referrers()
		if refs == nil {
			continue
		}
		for _, r := range *refs {
			if rb := r.Block(); rb != b || !fb.inRange(b, r, first, last) {
				out[valueName(v)] = true
				break
			}
		}
	}
	lf.In, lf.Out = sortedKeys(in), sortedKeys(out)
	return n
}

// inRange reports whether instr is among instructions [first, last) of b.
func (fb *funcBuilder) inRange(b *ssa.BasicBlock, instr ssa.Instruction, first, last int) bool {
	if fb.index == nil {
		fb.index = map[ssa.Instruction]int{}
	}
	if _, ok := fb.index[b.Instrs[0]]; !ok {
		for i, x := range b.Instrs {
			fb.index[x] = i
		}
	}
	i, ok := fb.index[instr]
	return ok && i >= first && i < last
}

// isVariable reports whether v is a value a block reads from elsewhere
// (not a constant or a function).
func isVariable(v ssa.Value) bool {
	switch v.(type) {
	case *ssa.Const, *ssa.Function, *ssa.Builtin:
		return false
	}
	return true
}

// valueName names an SSA value: its register or variable name, or the
// constant.
func valueName(v ssa.Value) string {
	switch v := v.(type) {
	case *ssa.Const:
		return v.String()
	case *ssa.Function:
		return v.String()
	case *ssa.Global:
		return v.String()
	}
	return v.Name()
}

// instrString prints an instruction as "t3 = t1 + t2" or "store ...".
func instrString(instr ssa.Instruction) string {
	if v, ok := instr.(ssa.Value); ok && v.Name() != "" {
		return v.Name() + " = " + strings.TrimSpace(instr.String())
	}
	return strings.TrimSpace(instr.String())
}

func sortedKeys(m map[string]bool) []string {
	if len(m) == 0 {
		return nil
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
