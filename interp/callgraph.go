// This file defines what the compiler knows of the program's functions
// through its call graph: which have no effect the reduced model keeps
// (quiet), which are charged no time (timeless). Both are fixed points over
// the static call graph, so recursive functions (a multigrid V-cycle, a
// tree walk) are answered like any other, never by following their calls
// forever.

package interp

import (
	"github.com/predict-tools/predict/commlib/catalog"
	"github.com/predict-tools/predict/modelgen"
	"golang.org/x/tools/go/ssa"
)

// quietCall reports whether a kept call has no effect the reduced model
// keeps: a pure builtin, a query of commlib, or a function of the program
// whose kept instructions (and calls) have none.
func (c *compiler) quietCall(call *ssa.Call) bool {
	if _, ok := call.Call.Value.(*ssa.Builtin); ok {
		return pureBuiltin(call)
	}
	f := call.Call.StaticCallee()
	if f != nil && modelgen.IsCommlib(f) {
		return commlibQuery(f)
	}
	if f == nil || c.models[f] == nil {
		return false
	}
	if c.quiet == nil {
		c.quiet = c.quietFuncs()
	}
	return c.quiet[f]
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
// stays quiet. The kept instructions must be known (plan marks them
// first).
func (c *compiler) quietFuncs() map[*ssa.Function]bool {
	quiet := map[*ssa.Function]bool{}
	callers := map[*ssa.Function][]*ssa.Function{}
	var loud []*ssa.Function
	for f := range c.models {
		quiet[f] = true
		own := false
		for _, b := range f.Blocks {
			for _, instr := range b.Instrs {
				if !c.keep[instr] {
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
					case g != nil && modelgen.IsCommlib(g):
						own = own || !commlibQuery(g)
					case g != nil && c.models[g] != nil:
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

// timeless reports whether nothing in the blocks is charged time or calls
// a function (which could be): no fragment starts there, no timed loop
// heads there, no kept call but pure builtins and queries.
func (c *compiler) timeless(fn *ssa.Function, blocks map[int]bool) bool {
	for b := range blocks {
		blk := fn.Blocks[b]
		if c.loopHeads[blk] != nil {
			return false
		}
		for _, instr := range blk.Instrs {
			if len(c.charges[instr]) > 0 {
				return false
			}
			if call, ok := instr.(*ssa.Call); ok && c.keep[instr] {
				if !c.quietCall(call) {
					return false
				}
				if f := call.Call.StaticCallee(); f != nil && c.models[f] != nil && !c.timelessFunc(f, map[*ssa.Function]bool{}) {
					return false
				}
			}
		}
	}
	return true
}

// timelessFunc reports whether a function of the program (already known
// quiet) is charged no time, nor are the functions it calls. A function
// already being visited adds nothing: the search is over the call graph's
// reachable functions, each once.
func (c *compiler) timelessFunc(f *ssa.Function, visiting map[*ssa.Function]bool) bool {
	if visiting[f] {
		return true
	}
	visiting[f] = true
	for _, b := range f.Blocks {
		if c.loopHeads[b] != nil {
			return false
		}
		for _, instr := range b.Instrs {
			if len(c.charges[instr]) > 0 {
				return false
			}
			if call, ok := instr.(*ssa.Call); ok && c.keep[instr] {
				if g := call.Call.StaticCallee(); g != nil && c.models[g] != nil && !c.timelessFunc(g, visiting) {
					return false
				}
			}
		}
	}
	return true
}
