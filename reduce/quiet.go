// This file defines the functions without kept effects (quiet): the
// greatest fixed point over the static call graph, so that recursive
// functions are answered like any other.

package reduce

import (
	"github.com/predict-tools/predict/commlib/catalog"
	"github.com/predict-tools/predict/modelgen"
	"golang.org/x/tools/go/ssa"
)

// QuietCall reports whether a kept call has no effect the reduced model
// keeps: a pure builtin, a query of commlib, a sealed call through a
// function value, or a function of the program whose kept instructions
// (and calls) have none.
func (p *Plan) QuietCall(call *ssa.Call) bool {
	if _, ok := call.Call.Value.(*ssa.Builtin); ok {
		return pureBuiltin(call)
	}
	if p.sealedSites[call] != "" {
		return true // never followed (sealdyn.go)
	}
	f := call.Call.StaticCallee()
	if f != nil && modelgen.IsCommlib(f) {
		return commlibQuery(f)
	}
	if f == nil || p.models[f] == nil {
		return false
	}
	return p.quiet[f]
}

// commlibQuery reports whether a commlib function only answers a question
// (the catalog's queries).
func commlibQuery(f *ssa.Function) bool {
	o, ok := catalog.Lookup(modelgen.CommlibOp(f))
	return ok && o.Class == catalog.ClassQuery
}

// quietFuncs returns, for every function of the model, whether it is
// quiet: the greatest fixed point of "no kept effect of its own, and every
// function it calls is quiet". A function with an effect of its own makes
// its callers, and theirs, loud; a cycle of calls with no effect anywhere
// stays quiet.
func (p *Plan) quietFuncs() map[*ssa.Function]bool {
	quiet := map[*ssa.Function]bool{}
	callers := map[*ssa.Function][]*ssa.Function{}
	var loud []*ssa.Function
	for f := range p.models {
		quiet[f] = true
		if p.sealed[f] != "" {
			continue // never entered: no effect, whatever it keeps
		}
		own := false
		for _, b := range f.Blocks {
			for _, instr := range b.Instrs {
				if !p.keep[instr] {
					continue
				}
				switch in := instr.(type) {
				case *ssa.Call:
					if _, ok := in.Call.Value.(*ssa.Builtin); ok {
						own = own || !pureBuiltin(in)
						continue
					}
					g := in.Call.StaticCallee()
					switch {
					case p.sealedSites[in] != "":
						// never followed: no effect
					case g != nil && modelgen.IsCommlib(g):
						own = own || !commlibQuery(g)
					case g != nil && p.models[g] != nil:
						callers[g] = append(callers[g], f)
					default:
						own = true // a dynamic call or a function outside the model
					}
				case *ssa.Store, *ssa.Defer, *ssa.Go, *ssa.Panic, *ssa.Send, *ssa.MapUpdate, *ssa.RunDefers:
					own = true
				}
			}
		}
		if own {
			loud = append(loud, f)
		}
	}
	for len(loud) > 0 {
		f := loud[len(loud)-1]
		loud = loud[:len(loud)-1]
		if !quiet[f] {
			continue
		}
		quiet[f] = false
		loud = append(loud, callers[f]...)
	}
	return quiet
}
