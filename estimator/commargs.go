// This file defines the recording of the opaque arguments of commlib
// calls: a peer, a count or a buffer's length that depends on data the
// model does not compute. The timing pass records their values per rank,
// in the order of the calls, and the interpreter replays them.

package estimator

import (
	"fmt"
	"go/ast"
	"go/token"
	"maps"
	"slices"
	"strings"

	"github.com/predict-tools/predict/estimator/probe"
	"github.com/predict-tools/predict/model"
	"github.com/predict-tools/predict/profile"
	"github.com/predict-tools/predict/reduce"
	"golang.org/x/tools/go/ssa"
)

// commArgs wraps each opaque argument of the commlib calls of fc's
// function in body with a probe that records it (probe.Arg): the
// argument's expression as written, so its type and evaluation are the
// program's.
func (in *instrumenter) commArgs(body *ast.BlockStmt, fc *funcCtx) {
	type opaqueCall struct {
		call  ssa.CallInstruction
		parts map[int]reduce.ArgPart
	}
	calls := map[token.Pos]opaqueCall{}
	for _, b := range fc.fn.Blocks {
		for _, instr := range b.Instrs {
			call, ok := instr.(ssa.CallInstruction)
			if !ok {
				continue
			}
			if parts := in.loops.ReplayParts(call); len(parts) > 0 && call.Pos().IsValid() {
				calls[call.Pos()] = opaqueCall{call, parts}
			}
		}
	}
	if len(calls) == 0 {
		return
	}
	ast.Inspect(body, func(n ast.Node) bool {
		if _, lit := n.(*ast.FuncLit); lit {
			return false // a function of its own
		}
		ce, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		oc, ok := calls[ce.Lparen]
		if !ok || ce.Ellipsis.IsValid() {
			return true
		}
		// The analysis counts a method's receiver as argument 0 (also
		// through an interface or a method value); the source lists
		// the arguments after it.
		cc := oc.call.Common()
		k := len(cc.Args)
		if cc.IsInvoke() || (cc.StaticCallee() != nil && strings.HasPrefix(cc.StaticCallee().Synthetic, "bound method wrapper")) {
			k++
		}
		offset := k - len(ce.Args)
		if offset < 0 || offset > 1 {
			return true
		}
		site := in.pos(ce.Lparen)
		node := in.leafAt(fc, site)
		parts := oc.parts
		for _, i := range slices.Sorted(maps.Keys(parts)) {
			if i < offset {
				continue // the method's receiver: nothing to replay
			}
			arg := ce.Args[i-offset]
			id := in.fragment(profile.FragArg, fc, node, nil, model.Range{Start: site, End: site})
			in.plan.Fragments[id].Parent = -1
			in.plan.Fragments[id].Arg, in.plan.Fragments[id].Part = i, string(parts[i])
			in.insert(fc.file, arg.Pos(), fmt.Sprintf("__probe.Arg(%d, %d, ", id, probePart(parts[i])))
			in.insert(fc.file, arg.End(), ")")
		}
		return true
	})
}

// probePart is the probe's name of a part.
func probePart(p reduce.ArgPart) int {
	switch p {
	case reduce.ArgLength:
		return probe.ArgLength
	case reduce.ArgElements:
		return probe.ArgElements
	}
	return probe.ArgValue
}

// leafAt returns the ID of fc's commlib call leaf at site, or "".
func (in *instrumenter) leafAt(fc *funcCtx, site model.Pos) string {
	for _, n := range fc.leaves {
		if n.Leaf.Kind == model.LeafCFC && n.Pos.Start == site {
			return n.ID
		}
	}
	return ""
}
