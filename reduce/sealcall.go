// This file defines sealed recursions: recursive functions that do not
// communicate and whose course depends on data the model does not have,
// which the interpreter never enters: each call of them from outside is
// timed whole by the timing pass and charged as measured.

package reduce

import (
	"go/token"
	"go/types"
	"maps"
	"slices"
	"strings"

	"github.com/predict-tools/predict/internal/callgraph"
	"github.com/predict-tools/predict/model"
	"github.com/predict-tools/predict/modelgen"
	"golang.org/x/tools/go/ssa"
)

// A recursion (a cycle of the call graph: a tree insertion, a walk, a
// divide and conquer) whose branches test data the model does not compute
// could only be followed by replaying those tests' outcomes from the
// profile, call after call. Past the outcomes the profile keeps, the
// model's recursion takes another course than the program's (a tree of
// another shape) and costs what that course costs (issue 17, item 2;
// barneshut's tree, built and walked by the model, read +15 %). ParJava's
// rule is the way out: the largest fragment the model need not enter. Such
// a recursion is sealed, like a loop (seal.go): nothing inside it is a
// root, so the data that only decides its course (the tree) is dropped,
// with everything computed only for it; each call of it from outside is
// part of its caller's straight-line fragment, timed there, and counted in
// the bytes of the slices it is handed (WorkedSlices), as a function
// outside the program is.
//
// A recursion is sealed when:
//
//   - it has a branch whose condition depends on data the model will not
//     have, or on memory it reads (a linked structure): the reason the
//     model cannot, or should not, follow it;
//   - it and every function it reaches neither communicate nor start
//     goroutines, synchronize, use channels or defer, and call no
//     function value the model cannot name;
//   - those functions are reached only from it (a helper also called from
//     elsewhere keeps its own course: a small one, no loops and no calls,
//     stays the model's and the recursion is sealed without it; a larger
//     one keeps the recursion from being sealed), and it only by static
//     calls: none
//     of them is taken as a value (a function or method value, a method
//     expression), nor called by a go or a defer statement;
//   - after the backward closure no value inside them is control and no
//     store or call inside them is kept (nothing they compute is needed
//     outside). One failing this is unsealed and the closure computed
//     again (control's fixed point).
type sealedRec struct {
	// scc are the recursion's functions (a strongly connected component
	// of the call graph), fns those and every function they reach.
	scc []*ssa.Function
	fns map[*ssa.Function]bool
	// why is the first branch inside it that tests data the model does
	// not have: file:line and the reason.
	why string
	// sites, for calls through function values (sealdyn.go, scc nil),
	// are the calls sealed, whose targets are fns; fns is empty where
	// the targets stay the model's (other code calls them).
	sites []*ssa.Call
}

// recursionCandidates finds the recursions that may be sealed, before any
// root is known (a recursion inside another's reach is left to it), and
// then the calls through function values (dynamicCandidates).
func (a *analysis) recursionCandidates(prog *model.Program) []*sealedRec {
	if a.opts.Exact {
		return nil
	}
	a.communicates(prog)
	values := a.funcsAsValues()
	small := smallFunctions(prog)
	var out []*sealedRec
	for _, scc := range a.callCycles() {
		if s := a.sealableRec(scc, values, small); s != nil {
			out = append(out, s)
		}
	}
	var outer []*sealedRec
	for _, s := range out {
		inside := false
		for _, t := range out {
			if t != s && t.fns[s.scc[0]] && !s.fns[t.scc[0]] {
				inside = true
			}
		}
		if !inside {
			outer = append(outer, s)
		}
	}
	return append(outer, a.dynamicCandidates(outer)...)
}

// callCycles returns the strongly connected components of the model's
// call graph that are cycles (more than one function, or one calling
// itself), each sorted by name, in the order of their first function.
func (a *analysis) callCycles() [][]*ssa.Function {
	out := map[*ssa.Function][]*ssa.Function{}
	for _, f := range a.fns {
		for _, b := range f.Blocks {
			for _, instr := range b.Instrs {
				if call, ok := instr.(ssa.CallInstruction); ok {
					out[f] = append(out[f], a.callees[call]...)
				}
			}
		}
	}
	succ := func(f *ssa.Function) []*ssa.Function { return out[f] }
	var cycles [][]*ssa.Function
	for _, comp := range callgraph.Components(a.fns, succ) {
		if callgraph.Cyclic(comp, succ) {
			slices.SortFunc(comp, func(x, y *ssa.Function) int { return strings.Compare(x.String(), y.String()) })
			cycles = append(cycles, comp)
		}
	}
	slices.SortFunc(cycles, func(x, y []*ssa.Function) int { return strings.Compare(x[0].String(), y[0].String()) })
	return cycles
}

// funcsAsValues returns the functions of the model taken as values
// anywhere in it: a function value, a method value (its bound wrapper)
// or a method expression (its thunk). Such a function may be called
// where no static call shows it.
func (a *analysis) funcsAsValues() map[*ssa.Function]bool {
	byObj := map[types.Object]*ssa.Function{}
	for _, f := range a.fns {
		if obj := f.Object(); obj != nil {
			byObj[obj] = f
		}
	}
	out := map[*ssa.Function]bool{}
	for _, f := range a.valueFuncs() {
		out[f] = true
	}
	var ops []*ssa.Value
	for _, fn := range a.fns {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				for _, op := range instr.Operands(ops[:0]) {
					if g, ok := (*op).(*ssa.Function); ok && g.Synthetic != "" && g.Object() != nil && byObj[g.Object()] != nil {
						out[byObj[g.Object()]] = true // a bound method wrapper or a thunk
					}
				}
			}
		}
	}
	return out
}

// sealableRec returns recursion scc as a sealed recursion, or nil. values
// are the functions taken as values (funcsAsValues), small the model's
// small helpers (no loops, no calls of the module's functions:
// smallFunctions).
func (a *analysis) sealableRec(scc []*ssa.Function, values map[*ssa.Function]bool, small map[*model.Function]bool) *sealedRec {
	s := &sealedRec{scc: scc, fns: map[*ssa.Function]bool{}}
	work := slices.Clone(scc)
	for len(work) > 0 {
		f := work[len(work)-1]
		work = work[:len(work)-1]
		if s.fns[f] {
			continue
		}
		s.fns[f] = true
		for _, b := range f.Blocks {
			for _, instr := range b.Instrs {
				if call, ok := instr.(ssa.CallInstruction); ok {
					work = append(work, a.callees[call]...)
				}
			}
		}
	}
	inSCC := map[*ssa.Function]bool{}
	for _, f := range scc {
		inSCC[f] = true
	}
	entered := false // called from outside
	for _, f := range slices.SortedFunc(maps.Keys(s.fns), func(x, y *ssa.Function) int { return strings.Compare(x.String(), y.String()) }) {
		m := a.modelOf[f]
		if m == nil || a.comm[m.ID] != "" || !a.selfContained(f) || values[f] {
			return nil
		}
		for _, mc := range a.closures[f] {
			if !s.fns[mc.Parent()] {
				return nil // a function value made outside: called who knows where
			}
		}
		shared := false
		for _, call := range a.callers[f] {
			if s.fns[call.Parent()] {
				continue
			}
			c, ok := call.(*ssa.Call)
			switch {
			case !inSCC[f] && small[m]:
				shared = true // a small helper also called from elsewhere: it stays the model's
			case !inSCC[f] || !ok || c.Call.StaticCallee() != f:
				return nil // a helper also called from elsewhere, or a go, defer or dynamic entry
			default:
				entered = true
			}
		}
		if shared {
			// Its calls from inside the recursion are never run; the
			// closure does not follow them (backward, at parameters).
			delete(s.fns, f)
			continue
		}
		if s.why == "" {
			s.why = a.opaqueBranch(f)
		}
	}
	if s.why == "" || !entered {
		return nil
	}
	return s
}

// selfContained reports whether f neither synchronizes nor uses channels,
// nor defers, nor calls a function value the model cannot name, nor a
// method of an interface that a commlib value may stand behind.
func (a *analysis) selfContained(f *ssa.Function) bool {
	for _, b := range f.Blocks {
		for _, instr := range b.Instrs {
			switch in := instr.(type) {
			case *ssa.Go, *ssa.Defer, *ssa.RunDefers, *ssa.Send, *ssa.Select:
				return false
			case *ssa.UnOp:
				if in.Op == token.ARROW {
					return false
				}
			case *ssa.Call:
				cc := &in.Call
				if bi, ok := cc.Value.(*ssa.Builtin); ok {
					if bi.Name() == "close" {
						return false
					}
					continue
				}
				callee := cc.StaticCallee()
				switch {
				case callee == nil && len(a.callees[in]) == 0:
					return false
				case cc.IsInvoke() && a.commlibBehind(cc.Value.Type()):
					return false // it may reach commlib through the interface
				case callee != nil && (isCommlib(callee) || modelgen.GoSyncOp(callee) != ""):
					return false
				}
			}
		}
	}
	return true
}

// opaqueBranch returns the first branch of f (by position) whose
// condition depends on data the model will not have, or else the first
// that tests memory (a linked structure: a pointer, or what a load
// reads), as "file:line: why"; "" when there is none. Following a walk
// of a linked structure would need the model to build the structure
// (barneshut's quadtree, built by insertions whose course is the
// bodies'): the model computes neither.
func (a *analysis) opaqueBranch(f *ssa.Function) string {
	best, why := token.NoPos, ""
	mem, memWhy := token.NoPos, ""
	for _, b := range f.Blocks {
		iff, ok := b.Instrs[len(b.Instrs)-1].(*ssa.If)
		if !ok {
			continue
		}
		p := a.condPos(b, iff.Cond)
		switch {
		case a.taint[iff.Cond] != "":
			if why == "" || p < best {
				best, why = p, a.where(p)+": "+a.taint[iff.Cond]
			}
		case readsMemory(iff.Cond, map[ssa.Value]bool{}):
			if memWhy == "" || p < mem {
				mem, memWhy = p, a.where(p)+": a branch on memory it reads, a linked structure the model would have to build"
			}
		}
	}
	if why == "" {
		return memWhy
	}
	return why
}

// readsMemory reports whether v, within its function, is a pointer or is
// computed from one or from a load (not through calls or parameters
// other than pointers).
func readsMemory(v ssa.Value, seen map[ssa.Value]bool) bool {
	if seen[v] {
		return false
	}
	seen[v] = true
	if _, ok := v.(*ssa.Const); ok {
		return false
	}
	if _, ok := v.Type().Underlying().(*types.Pointer); ok {
		return true
	}
	switch v := v.(type) {
	case *ssa.UnOp:
		if v.Op == token.MUL {
			return true
		}
		return readsMemory(v.X, seen)
	case *ssa.BinOp:
		return readsMemory(v.X, seen) || readsMemory(v.Y, seen)
	case *ssa.Phi:
		for _, e := range v.Edges {
			if readsMemory(e, seen) {
				return true
			}
		}
	case *ssa.Convert:
		return readsMemory(v.X, seen)
	case *ssa.ChangeType:
		return readsMemory(v.X, seen)
	case *ssa.Field:
		return readsMemory(v.X, seen)
	case *ssa.Index:
		return readsMemory(v.X, seen)
	case *ssa.Extract:
		return readsMemory(v.Tuple, seen)
	}
	return false
}

// sealRecursions seals the recursions and calls through values of cands.
func (a *analysis) sealRecursions(cands []*sealedRec) {
	a.sealedFn, a.sealedSites, a.sealedRecs = map[*ssa.Function]*sealedRec{}, map[*ssa.Call]*sealedRec{}, cands
	for _, s := range cands {
		for f := range s.fns {
			a.sealedFn[f] = s
		}
		for _, call := range s.sites {
			a.sealedSites[call] = s
		}
	}
}

// recBroken reports whether the closure needs something sealed recursion
// s computes: a control value, parameter or result inside it, a kept
// store or call, or the result of one of its sealed sites.
func (a *analysis) recBroken(s *sealedRec) bool {
	for _, site := range s.sites {
		if a.ctl[site] {
			return true // its result is needed
		}
		for _, ref := range *site.Referrers() {
			if x, ok := ref.(*ssa.Extract); ok && a.ctl[x] {
				return true
			}
		}
	}
	for f := range s.fns {
		if len(a.ctlParams[f]) > 0 || len(a.ctlResults[f]) > 0 {
			return true
		}
		for _, fv := range f.FreeVars {
			if a.ctl[fv] {
				return true
			}
		}
		for _, b := range f.Blocks {
			for _, instr := range b.Instrs {
				if a.keepCalls[instr] {
					return true
				}
				if v, ok := instr.(ssa.Value); ok && a.ctl[v] {
					return true
				}
			}
		}
	}
	return false
}

// unrun reports whether the model never runs block b: it is inside a
// sealed loop or a sealed recursion.
func (a *analysis) unrun(b *ssa.BasicBlock) bool {
	return a.sealed[b] != nil || a.sealedFn[b.Parent()] != nil
}

// Sealed returns, for a function of the program the model never enters
// (a sealed recursion, or a function only it reaches), why: the branch
// inside it that tests data the model does not have. "" for the others.
func (p *Plan) Sealed(f *ssa.Function) string { return p.sealed[f] }

// sealedReport writes the sealed recursions and calls into the functions'
// reports.
func (a *analysis) sealedReport(fn *ssa.Function, fr *FunctionReport) {
	for _, r := range a.sealedRecs {
		for _, site := range r.sites {
			if site.Parent() == fn {
				what := "call of " + a.callName(&site.Call)
				if !site.Call.IsInvoke() {
					what = "call through a function value"
					if name := a.loaded.Names[site.Call.Value]; name != "" {
						what = "call of " + name
					}
				}
				fr.SealedCalls = append(fr.SealedCalls, Decision{Where: a.where(site.Pos()), What: what, Reason: a.taint[site.Call.Value]})
			}
		}
	}
	s := a.sealedFn[fn]
	if s == nil {
		return
	}
	if s.scc == nil {
		fr.Sealed = "called only through a function or interface value the model does not compute (" + s.why + "), or from functions so called: the model never enters it; the call is timed whole, in its caller's fragment"
		return
	}
	names := strings.Join(funcNames(a, s.scc), ", ")
	if !slices.Contains(s.scc, fn) {
		fr.Sealed = "reached only from the sealed recursion " + names + ": the model never enters it"
		return
	}
	fr.Sealed = "a recursion (" + names + ") that does not communicate and whose course depends on data the model does not have (" + s.why + "): the model never enters it; each call of it from outside is timed whole, in its caller's fragment"
}

// funcNames are the model's names of fns.
func funcNames(a *analysis, fns []*ssa.Function) []string {
	var out []string
	for _, f := range fns {
		out = append(out, a.modelOf[f].ID)
	}
	return out
}
