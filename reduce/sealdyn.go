// This file defines sealed calls through function values and interfaces:
// a call whose target the model cannot compute (a kernel chosen by a
// random draw, by the data) and whose every possible target does not
// communicate is timed whole at its site, as a sealed recursion's calls
// are (sealcall.go).

package reduce

import (
	"go/types"
	"slices"
	"strings"

	"github.com/predict-tools/predict/modelgen"
	"golang.org/x/tools/go/ssa"
)

// A call through a function value, or a method call through an interface
// value, that depends on data the model does not have can only be
// followed by knowing the value, which the model does not: such a call
// ran no function at all in the model ("call of a nil function value",
// "method apply of a nil interface"). Issue 17, item 2: calls the model
// does not follow are timed inclusively at their call sites. Such a site
// is sealed when the functions it may call (the model's candidates: by
// signature and values taken, or the methods of the types converted to
// the interface) and every function they reach neither communicate nor
// synchronize (selfContained); sites whose functions overlap are sealed
// together. The call is part of its caller's straight-line fragment. When
// those functions are reached only from one another or from such sites,
// they are sealed too (nothing inside them is a root); when other code
// calls them as well, only the sites are, and the functions stay the
// model's. A site whose result turns out to be needed is
// unsealed with its functions (recBroken).

// dynamicCandidates returns the sealed calls through function values
// that may be sealed, before any root is known: one sealedRec per group
// of sites sharing functions. Functions of the recursions in recs are
// left to them.
func (a *analysis) dynamicCandidates(recs []*sealedRec) []*sealedRec {
	inRec := map[*ssa.Function]bool{}
	for _, s := range recs {
		for f := range s.fns {
			inRec[f] = true
		}
	}
	var sites []*ssa.Call
	for _, fn := range a.fns {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				call, ok := instr.(*ssa.Call)
				if !ok || call.Call.StaticCallee() != nil || len(a.callees[call]) == 0 {
					continue
				}
				if _, builtin := call.Call.Value.(*ssa.Builtin); builtin || a.taint[call.Call.Value] == "" {
					continue
				}
				if call.Call.IsInvoke() && a.commlibBehind(call.Call.Value.Type()) {
					continue // it may call commlib, which the candidates do not list
				}
				sites = append(sites, call)
			}
		}
	}
	var groups []*sealedRec
	for _, call := range sites {
		s := &sealedRec{fns: map[*ssa.Function]bool{}, sites: []*ssa.Call{call},
			why: a.where(call.Pos()) + ": " + a.taint[call.Call.Value]}
		if !a.reachSealable(s, a.callees[call], inRec) {
			continue
		}
		// Merge with the groups sharing a function: sealed together.
		var keep []*sealedRec
		for _, g := range groups {
			shared := false
			for f := range g.fns {
				if s.fns[f] {
					shared = true
					break
				}
			}
			if !shared {
				keep = append(keep, g)
				continue
			}
			for f := range g.fns {
				s.fns[f] = true
			}
			s.sites = append(g.sites, s.sites...)
			s.why = g.why
		}
		groups = append(keep, s)
	}
	// A group whose functions are also called where the model follows
	// them keeps them: only its sites are sealed (never followed, timed
	// whole), the functions' bodies stay the model's.
	var out []*sealedRec
	for _, g := range groups {
		if !a.calledOnlyFrom(g) {
			g.fns = map[*ssa.Function]bool{}
		}
		out = append(out, g)
	}
	slices.SortFunc(out, func(x, y *sealedRec) int { return strings.Compare(x.why, y.why) })
	return out
}

// reachSealable fills s.fns with targets and every function they reach,
// and reports whether all of them may be sealed: known to the model, not
// in a recursion of recs (inRec), neither communicating nor
// synchronizing.
func (a *analysis) reachSealable(s *sealedRec, targets []*ssa.Function, inRec map[*ssa.Function]bool) bool {
	work := slices.Clone(targets)
	for len(work) > 0 {
		f := work[len(work)-1]
		work = work[:len(work)-1]
		if s.fns[f] {
			continue
		}
		m := a.modelOf[f]
		if m == nil || inRec[f] || a.comm[m.ID] != "" || !a.selfContained(f) {
			return false
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
	return true
}

// calledOnlyFrom reports whether every call of g's functions is in one of
// them or is one of g's sites (the sites whose targets overlap were
// merged into g; a site whose targets could not be sealed was not, and
// the model follows it).
func (a *analysis) calledOnlyFrom(g *sealedRec) bool {
	for f := range g.fns {
		for _, call := range a.callers[f] {
			if c, ok := call.(*ssa.Call); !g.fns[call.Parent()] && !(ok && slices.Contains(g.sites, c)) {
				return false // also called where the model follows it
			}
		}
	}
	return true
}

// SealedCall returns, for a call through a function value that the model
// does not follow (its target depends on data the model does not have),
// why; "" for the others.
func (p *Plan) SealedCall(call *ssa.Call) string { return p.sealedSites[call] }

// sealedSite reports whether call is a sealed call through a function
// or interface value, whose target the model does not need.
func (a *analysis) sealedSite(call ssa.CallInstruction) bool {
	c, ok := call.(*ssa.Call)
	return ok && a.sealedSites[c] != nil
}

// followed reports whether the model runs a call itself: a builtin, a
// call of the program's (static or through a value) that is not sealed. A
// call of a function outside the program is not. program says which
// functions are the program's, sealed which of them are sealed,
// sealedSite which calls through values are.
func followed(call *ssa.Call, program, sealed func(*ssa.Function) bool, sealedSite func(*ssa.Call) bool) bool {
	f := call.Call.StaticCallee()
	if f == nil {
		_, builtin := call.Call.Value.(*ssa.Builtin)
		return builtin || !sealedSite(call)
	}
	return program(f) && !sealed(f)
}

// followed is the package function with the analysis's answers.
func (a *analysis) followed(call *ssa.Call) bool {
	return followed(call, func(f *ssa.Function) bool { return a.modelOf[f] != nil },
		func(f *ssa.Function) bool { return a.sealedFn[f] != nil }, func(c *ssa.Call) bool { return a.sealedSites[c] != nil })
}

// Followed reports whether the model runs call itself (followed), by the
// plan: for the interpreter's count of a segment's bytes (WorkedSlices).
func (p *Plan) Followed(call *ssa.Call) bool {
	return followed(call, func(f *ssa.Function) bool { return p.models[f] != nil },
		func(f *ssa.Function) bool { return p.sealed[f] != "" }, func(c *ssa.Call) bool { return p.sealedSites[c] != "" })
}

// commlibBehind reports whether a value of commlib's (a *commlib.Comm)
// is converted anywhere in the model to a type that implements interface
// iface: a call through iface may then reach commlib, which the model's
// candidate targets (the program's functions) do not list.
func (a *analysis) commlibBehind(iface types.Type) bool {
	it, ok := iface.Underlying().(*types.Interface)
	if !ok {
		return true
	}
	if a.commlibConverted == nil {
		a.commlibConverted = []types.Type{}
		for _, fn := range a.fns {
			for _, b := range fn.Blocks {
				for _, instr := range b.Instrs {
					mi, ok := instr.(*ssa.MakeInterface)
					if !ok {
						continue
					}
					t := mi.X.Type()
					if p, isPtr := t.(*types.Pointer); isPtr {
						t = p.Elem()
					}
					if named, ok := types.Unalias(t).(*types.Named); ok && named.Obj().Pkg() != nil && named.Obj().Pkg().Path() == modelgen.CommlibPath {
						a.commlibConverted = append(a.commlibConverted, mi.X.Type())
					}
				}
			}
		}
	}
	for _, t := range a.commlibConverted {
		if types.Implements(t, it) {
			return true
		}
	}
	return false
}
