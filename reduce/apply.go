// This file writes the reduction into the model and collects the report.

package reduce

import (
	"fmt"
	"go/token"
	"slices"
	"sort"

	"github.com/predict-tools/predict/model"
	"golang.org/x/tools/go/ssa"
)

// apply writes the results of the analysis into prog and returns the report.
func (a *analysis) apply(prog *model.Program) *Report {
	rep := &Report{Exact: a.opts.Exact, Package: prog.Package}
	a.shapes = map[ssa.Value]bool{}
	sealed := map[*model.Node]bool{}
	for _, s := range a.sealedLoops {
		sealed[s.node] = true
	}
	comm := a.communicates(prog)
	for _, f := range prog.Functions {
		fn := a.ssaOf[f]
		a.at = fn.Pos()
		fr := FunctionReport{ID: f.ID, Pos: f.Pos.String()}
		a.sealedReport(fn, &fr)
		f.ControlParams = sortedInts(a.ctlParams[fn])
		f.ControlResults = sortedInts(a.ctlResults[fn])
		for _, i := range f.ControlParams {
			if i >= 0 && i < len(fn.Params) {
				fr.ControlParams = append(fr.ControlParams, fn.Params[i].Name())
			}
		}
		f.ShapeOnly = nil
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				v, ok := instr.(ssa.Value)
				if !ok {
					continue
				}
				var desc string
				switch v := v.(type) {
				case *ssa.MakeSlice, *ssa.Alloc:
					desc = a.describe(v)
				case *ssa.Call:
					// An append whose result's length is needed but none of
					// whose elements are (a send count, a loop bound) grows
					// a shape: the model does not copy the data appended.
					if b, ok := v.Call.Value.(*ssa.Builtin); !ok || b.Name() != "append" {
						continue
					}
					desc = "append at " + a.where(v.Pos())
				default:
					continue
				}
				o := a.objects[v]
				if o == nil || !a.ctl[v] || a.ctlData(o) {
					continue
				}
				if _, isAlloc := v.(*ssa.Alloc); isAlloc && o.bulk == "" {
					continue // a small variable: nothing to save
				}
				f.ShapeOnly = append(f.ShapeOnly, desc)
				a.shapes[v] = true
			}
		}
		fr.ShapeOnly = f.ShapeOnly
		vars := map[string]bool{}
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				if v, ok := instr.(ssa.Value); ok && a.ctl[v] && a.loaded.Names[v] != "" {
					vars[a.loaded.Names[v]] = true
				}
			}
		}
		for _, p := range fn.Params {
			if a.ctl[p] {
				vars[p.Name()] = true
			}
		}
		for v := range vars {
			fr.ControlVars = append(fr.ControlVars, v)
		}
		slices.Sort(fr.ControlVars)
		for _, tree := range []*model.Node{f.Tree, f.Recover} {
			var visit func(n *model.Node, at model.Pos)
			visit = func(n *model.Node, at model.Pos) {
				if n == nil {
					return
				}
				if n.Pos.Start.IsValid() {
					at = n.Pos.Start
				}
				switch {
				case n.Leaf != nil:
					a.applyLeaf(fn, n, &fr)
				case n.Kind == model.KindTest:
					blk := fn.Blocks[*n.Block]
					iff := blk.Instrs[len(blk.Instrs)-1].(*ssa.If)
					cond := iff.Cond
					n.Opaque = a.opaque[cond]
					n.Check = ""
					if pass := a.checks[iff]; pass != "" && !a.ctl[cond] {
						why := a.taint[cond]
						if why == "" {
							why = "what its callers pass, which the model does not compute"
						}
						n.Opaque = why + "; a check of the program (the run ends with " + a.checkWhy[iff] + " when it fails): assumed to pass"
						n.Check = pass
					}
					if n.Opaque != "" {
						where := a.where(a.condPos(blk, cond))
						if where == "?" {
							where = fmt.Sprintf("%s:%d", at.File, at.Line)
						}
						fr.Opaque = append(fr.Opaque, Decision{Where: where, What: "branch on " + a.expr(cond, 4), Reason: n.Opaque})
					}
				}
				visit(n.Cond, at)
				if l := n.Loop; l != nil {
					visit(l.Header, at)
					visit(l.Body, at)
					visit(l.Post, at)
				}
				for _, c := range n.Children {
					visit(c, at)
				}
			}
			visit(tree, f.Pos.Start)
			// Loops bottom-up, so that nests see their inner loops.
			var loops []*model.Node
			model.Walk(tree, func(n *model.Node) bool {
				if n.Kind == model.KindLoop {
					loops = append(loops, n)
				}
				return true
			})
			for i := len(loops) - 1; i >= 0; i-- {
				n := loops[i]
				n.Loop.Trip = a.tripCount(fn, n, comm)
				n.Loop.Trip.Nest = a.nestFormula(n)
				n.Loop.Trip.Sealed = sealed[n]
			}
			for _, n := range loops {
				t := n.Loop.Trip
				fr.Loops = append(fr.Loops, LoopReport{node: n, Where: n.Pos.String(), Form: string(n.Loop.Form),
					Formula: t.Formula, Nest: t.Nest, Opaque: t.Opaque, Candidate: t.Candidate, Sealed: t.Sealed, Reason: t.Reason})
			}
		}
		// Opaque communication arguments.
		for v, why := range a.opaque {
			if instr, ok := v.(ssa.Instruction); ok && instr.Parent() == fn {
				if _, isIf := a.rootIsBranch(v); isIf {
					continue
				}
				where, use := a.rootUse(v)
				fr.Opaque = append(fr.Opaque, Decision{Where: where, What: a.argExpr(v) + " " + use, Reason: why})
			}
		}
		sort.SliceStable(fr.Opaque, func(i, j int) bool {
			if fr.Opaque[i].Where != fr.Opaque[j].Where {
				return fr.Opaque[i].Where < fr.Opaque[j].Where
			}
			if fr.Opaque[i].What != fr.Opaque[j].What {
				return fr.Opaque[i].What < fr.Opaque[j].What
			}
			return fr.Opaque[i].Reason < fr.Opaque[j].Reason
		})
		rep.Functions = append(rep.Functions, fr)
	}
	return rep
}

// applyLeaf marks the kept instructions of a leaf and its control values.
func (a *analysis) applyLeaf(fn *ssa.Function, n *model.Node, fr *FunctionReport) {
	lf := n.Leaf
	lf.Keep, lf.Control, lf.ZeroArgs = nil, nil, nil
	control := map[string]bool{}
	blk := fn.Blocks[lf.Block]
	for i := lf.First; i < lf.Last; i++ {
		instr := blk.Instrs[i]
		fr.Instrs++
		if !a.kept(lf, instr) {
			fr.Dropped++
			continue
		}
		fr.Kept++
		lf.Keep = append(lf.Keep, i-lf.First)
		if v, ok := instr.(ssa.Value); ok && a.ctl[v] {
			control[v.Name()] = true
		}
		var ops []*ssa.Value
		for _, op := range instr.Operands(ops) {
			if *op != nil && a.ctl[*op] && isNamed(*op) {
				control[(*op).Name()] = true
			}
		}
	}
	for name := range control {
		lf.Control = append(lf.Control, name)
	}
	slices.Sort(lf.Control)
	if lf.Kind == model.LeafUFC {
		call := blk.Instrs[lf.First].(ssa.CallInstruction)
		cc := call.Common()
		nargs := len(cc.Args)
		if cc.IsInvoke() {
			nargs++
		}
		for i := range nargs {
			used := false
			for _, t := range a.callees[call] {
				if a.ctlParams[t][i] {
					used = true
				}
			}
			if !used {
				lf.ZeroArgs = append(lf.ZeroArgs, i)
			}
		}
	}
}

// kept reports whether the reduced model executes instr.
func (a *analysis) kept(lf *model.Leaf, instr ssa.Instruction) bool {
	switch lf.Kind {
	case model.LeafUFC, model.LeafCFC, model.LeafRet, model.LeafSpawn, model.LeafDefer, model.LeafRunDefers, model.LeafPanic:
		return true
	}
	if a.keepCalls[instr] {
		return true
	}
	if v, ok := instr.(ssa.Value); ok {
		return a.ctl[v]
	}
	return false
}

func isNamed(v ssa.Value) bool {
	switch v.(type) {
	case *ssa.Const, *ssa.Function, *ssa.Builtin:
		return false
	}
	return true
}

// condPos is the position of a branch: its condition's, or the last
// positioned instruction of its block.
func (a *analysis) condPos(blk *ssa.BasicBlock, cond ssa.Value) (p token.Pos) {
	if cond.Pos().IsValid() {
		if _, isPhi := cond.(*ssa.Phi); !isPhi {
			return cond.Pos()
		}
	}
	for i := len(blk.Instrs) - 1; i >= 0; i-- {
		if _, isPhi := blk.Instrs[i].(*ssa.Phi); !isPhi && blk.Instrs[i].Pos().IsValid() {
			return blk.Instrs[i].Pos() // (a φ's position is its variable's declaration)
		}
	}
	return p
}

// rootIsBranch reports whether v is the condition of some branch.
func (a *analysis) rootIsBranch(v ssa.Value) (string, bool) {
	refs := v.Referrers()
	if refs == nil {
		return "", false
	}
	for _, r := range *refs {
		if _, ok := r.(*ssa.If); ok {
			return "", true
		}
	}
	return "", false
}

// rootUse says where and how an opaque value that is not a branch
// condition is used: as an argument of a call.
func (a *analysis) rootUse(v ssa.Value) (where, use string) {
	refs := v.Referrers()
	if refs != nil {
		for _, r := range *refs {
			if call, ok := r.(ssa.CallInstruction); ok {
				cc := call.Common()
				name := a.callName(cc)
				if f := cc.StaticCallee(); f != nil && isCommlib(f) {
					name = opName(f)
				}
				return a.where(call.Pos()), "as an argument of " + name
			}
		}
	}
	return a.where(v.Pos()), "in a control decision"
}

func sortedInts(m map[int]bool) []int {
	var out []int
	for i, ok := range m {
		if ok && i >= 0 {
			out = append(out, i)
		}
	}
	slices.Sort(out)
	return out
}

// ctlData reports whether some data of o (its elements, a field, a field
// of its elements for a slice of structs) is control: o then holds data
// the model needs.
func (a *analysis) ctlData(o *object) bool {
	for _, sel := range a.locsOf[o] {
		if a.ctlLoc[loc{o, sel}] {
			return true
		}
	}
	return false
}
