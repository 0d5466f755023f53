// This file defines what the compiler knows of the program's functions
// through its call graph: which have no effect the reduced model keeps
// (quiet), which are charged no time (timeless). Both are fixed points over
// the static call graph, so recursive functions (a multigrid V-cycle, a
// tree walk) are answered like any other, never by following their calls
// forever.

package interp

import (
	"golang.org/x/tools/go/ssa"
)

// quietCall reports whether a kept call has no effect the reduced model
// keeps (the loop plan's answer).
func (c *compiler) quietCall(call *ssa.Call) bool { return c.cp.prog.Report.Plan.QuietCall(call) }

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
