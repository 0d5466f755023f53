// This file defines how the interpreter finds and reports recursive calls.
// A profile with regions (estimator/region.go) charges every call of a
// function measured inside its time outside its fragments, and the time
// of a function not measured inside to its caller's region. Without them
// (a profile of an earlier version) the work of a recursive function
// outside its fragments is in no fragment: the prediction leaves it out,
// and says so.

package interp

import (
	"fmt"
	"go/token"
	"sort"

	"github.com/predict-tools/predict/internal/callgraph"
	"golang.org/x/tools/go/ssa"
)

// recursion is a function of the program that calls itself, directly or
// through others (a cycle of the call graph the model runs).
type recursion struct {
	fn    string // the function's name as the program reads
	site  string // its first recursive call site, file:line:col
	calls int64  // recursive calls run
}

// recursiveCalls returns, for each kept static call of the model that
// stays inside a cycle of the call graph, the recursion it belongs to
// (its caller's): the strongly connected components of the graph of kept
// static calls between the model's functions (callgraph.Components), each
// with more than one function or a function calling itself.
func (c *compiler) recursiveCalls() map[*ssa.Call]*recursion {
	funcs := make([]*ssa.Function, 0, len(c.models))
	for f := range c.models {
		funcs = append(funcs, f)
	}
	sort.Slice(funcs, func(i, j int) bool { return funcs[i].String() < funcs[j].String() })
	type edge struct {
		call *ssa.Call
		to   *ssa.Function
	}
	out := map[*ssa.Function][]edge{}
	for _, f := range funcs {
		for _, b := range f.Blocks {
			for _, instr := range b.Instrs {
				call, ok := instr.(*ssa.Call)
				if !ok || !c.keep[instr] {
					continue
				}
				if g := call.Call.StaticCallee(); g != nil && c.models[g] != nil {
					out[f] = append(out[f], edge{call, g})
				}
			}
		}
	}
	comp := map[*ssa.Function]int{} // function → its component
	succ := func(f *ssa.Function) []*ssa.Function {
		var to []*ssa.Function
		for _, e := range out[f] {
			to = append(to, e.to)
		}
		return to
	}
	for i, fns := range callgraph.Components(funcs, succ) {
		for _, f := range fns {
			comp[f] = i
		}
	}
	calls := map[*ssa.Call]*recursion{}
	for _, f := range funcs {
		var rec *recursion
		var first token.Pos
		for _, e := range out[f] {
			if comp[e.to] != comp[f] {
				continue
			}
			if rec == nil {
				rec = &recursion{fn: c.models[f].ID}
				c.cp.recursions = append(c.cp.recursions, rec)
			}
			if p := e.call.Pos(); p.IsValid() && (!first.IsValid() || p < first) {
				first = p
			}
			calls[e.call] = rec
		}
		if rec != nil {
			rec.site = c.l.PosString(first)
		}
	}
	return calls
}

// recursive returns the recursion a kept call stays inside, or nil.
func (c *compiler) recursive(call *ssa.Call) *recursion {
	if c.recCalls == nil {
		c.recCalls = c.recursiveCalls()
	}
	return c.recCalls[call]
}

// recursionLimits says, for each recursive function whose recursive calls
// ran, that their time is not in the prediction: unless the profile has
// regions, whose time is charged per call (a recursive function measured
// inside is a region; one that is not is in its caller's region).
func (w *World) recursionLimits() []string {
	if w.prof != nil && w.prof.Regions {
		return nil
	}
	var out []string
	for _, r := range w.recursions {
		if r.calls == 0 {
			continue
		}
		out = append(out, fmt.Sprintf("time of recursive calls is not modeled: %s at %s (%d calls in this run); the prediction leaves out their time but for the fragments the timing pass measured inside them",
			r.fn, r.site, r.calls))
	}
	return out
}
