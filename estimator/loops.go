// This file defines the loops timed whole: which loops (the loop plan
// says, planWholeLoops decides), their trip counts before they run, and
// how a sampled entry leaves its copy for the original (resumable).

package estimator

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"maps"

	"github.com/predict-tools/predict/model"
	"github.com/predict-tools/predict/reduce"
	"golang.org/x/tools/go/ssa"
)

// resumable reports whether the original copy of loop s can finish an
// entry that its sampled copy started, and returns the statements that
// leave the sampled copy for it: a for statement whose init declares one
// variable of a basic integer type (the original copy's init takes the
// saved value: __probe.Resume), whose condition calls nothing (it is
// tested once more on resuming), and whose body takes no address and
// makes no closure (the variable is no longer per iteration across the
// two copies: nothing may observe that).
func (in *instrumenter) resumable(s ast.Stmt, body *ast.BlockStmt, fc *funcCtx, rs, rx string) (bool, string) {
	st, ok := s.(*ast.ForStmt)
	if !ok || st.Cond == nil || !in.callFree(st.Cond, fc) {
		return false, ""
	}
	init, ok := st.Init.(*ast.AssignStmt)
	if !ok || init.Tok != token.DEFINE || len(init.Lhs) != 1 || len(init.Rhs) != 1 {
		return false, ""
	}
	id, ok := init.Lhs[0].(*ast.Ident)
	if !ok || id.Name == "_" || fc.fn == nil || fc.fn.Pkg == nil {
		return false, ""
	}
	info := in.l.TypesInfo(fc.fn.Pkg.Pkg)
	if info == nil {
		return false, ""
	}
	obj := info.Defs[id]
	if obj == nil {
		return false, ""
	}
	basic, ok := obj.Type().(*types.Basic)
	if !ok || basic.Info()&types.IsInteger == 0 {
		return false, ""
	}
	observed := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			observed = true
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				observed = true
			}
		}
		return !observed
	})
	if observed {
		return false, ""
	}
	in.insertPlain(fc.file, init.Rhs[0].Pos(), fmt.Sprintf("%s(__probe.Resume(%s == 2, %s, int64(", basic.Name(), rs, rx))
	in.insertPlain(fc.file, init.Rhs[0].End(), ")))")
	return true, fmt.Sprintf("%s = int64(%s); %s = 2; break", rx, id.Name, rs)
}

// wholeLoop returns the model node of loop statement s when it is timed
// whole, or nil.
func (in *instrumenter) wholeLoop(s ast.Stmt, fc *funcCtx) *model.Node {
	var node *model.Node
	for _, n := range fc.loops[in.pos(s.Pos())] {
		if in.whole[n] && n.Pos.End == in.pos(s.End()-1) {
			node = n
		}
	}
	return node
}

// planWholeLoops chooses the loops timed whole: those that neither
// communicate nor leave early. The functions they call get no probes of
// their own (the loop's time holds theirs), which is only right if they are
// called from nowhere else: a loop whose callees are also called outside
// such loops is instrumented inside instead, unless the callee is a small
// helper (no loops, no calls), whose other calls then go unmeasured.
// Fragments therefore never nest, and every nanosecond is measured at
// most once.
//
// The functions of sealed recursions (reduce/sealcall.go), which the model
// never enters, get no probes either: a call of one from outside is part
// of its caller's straight-line fragment (hasControlCall), or in a loop
// timed whole.
func (in *instrumenter) planWholeLoops(prog *model.Program, ssaOf map[*model.Function]*ssa.Function) {
	stmts := map[string]map[model.Pos]ast.Stmt{} // function → its loop statements by position
	for _, f := range prog.Functions {
		fn := ssaOf[f]
		m := map[model.Pos]ast.Stmt{}
		if fn != nil && fn.Syntax() != nil {
			ast.Inspect(fn.Syntax(), func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.FuncLit:
					return n == fn.Syntax()
				case *ast.ForStmt, *ast.RangeStmt:
					m[in.pos(n.Pos())] = n.(ast.Stmt)
				}
				return true
			})
		}
		stmts[f.ID] = m
	}
	roots := map[string]bool{prog.Body: true, prog.Driver: true}
	banned := map[*model.Node]bool{}
	// Small helpers (no loops, no calls of the module) are cheap enough
	// that their calls outside whole loops may go unmeasured: they never
	// ban a loop.
	small := map[string]bool{}
	for _, f := range prog.Functions {
		small[f.ID] = true
		model.Walk(f.Tree, func(n *model.Node) bool {
			if n.Kind == model.KindLoop || (n.Leaf != nil && n.Leaf.Kind == model.LeafUFC) {
				small[f.ID] = false
			}
			return small[f.ID]
		})
	}
	for {
		in.whole, in.quiet = map[*model.Node]bool{}, maps.Clone(in.sealed)
		type site struct {
			fn   string
			loop *model.Node // the whole loop holding the call, or nil
		}
		calls := map[string][]site{}            // callee → its call sites
		loopCalls := map[*model.Node][]string{} // whole loop → callees inside it
		callsOf := map[string][]string{}        // function → its callees
		for _, f := range prog.Functions {
			var walk func(n *model.Node, outer *model.Node)
			walk = func(n *model.Node, outer *model.Node) {
				if n == nil {
					return
				}
				if n.Kind == model.KindLoop && outer == nil && !banned[n] {
					st := stmts[f.ID][n.Pos.Start]
					if st != nil && n.Pos.End != in.pos(st.End()-1) {
						st = nil // a loop made by a goto, starting with the statement
					}
					if pl := in.loops.Loop(n); pl != nil && pl.Whole && st != nil && !leavesEarly(loopBody(st)) {
						outer = n
						in.whole[n] = true
					}
				}
				if lf := n.Leaf; lf != nil && lf.Kind == model.LeafUFC {
					targets := lf.Targets
					if !lf.Dynamic {
						targets = []string{lf.Callee}
					}
					for _, t := range targets {
						calls[t] = append(calls[t], site{f.ID, outer})
						callsOf[f.ID] = append(callsOf[f.ID], t)
						if outer != nil {
							loopCalls[outer] = append(loopCalls[outer], t)
						}
					}
				}
				walk(n.Cond, outer)
				if l := n.Loop; l != nil {
					walk(l.Header, outer)
					walk(l.Body, outer)
					walk(l.Post, outer)
				}
				for _, c := range n.Children {
					walk(c, outer)
				}
			}
			walk(f.Tree, nil)
			walk(f.Recover, nil)
		}
		// The functions the whole loops reach get no probes.
		var reach func(id string)
		reach = func(id string) {
			if in.quiet[id] || roots[id] {
				return
			}
			in.quiet[id] = true
			for _, c := range callsOf[id] {
				reach(c)
			}
		}
		for _, cs := range loopCalls {
			for _, c := range cs {
				reach(c)
			}
		}
		// A quiet function also called from outside whole loops and quiet
		// functions bans the loops that reach it; then plan again (their
		// inner loops may be timed whole instead).
		grew := false
		for g := range in.quiet {
			if small[g] || in.sealed[g] {
				continue
			}
			for _, cs := range calls[g] {
				if cs.loop != nil || in.quiet[cs.fn] {
					continue
				}
				for loop, callees := range loopCalls {
					if !banned[loop] && in.reaches(callees, g, callsOf) {
						banned[loop] = true
						grew = true
					}
				}
			}
		}
		if !grew {
			in.markReplayed(loopCalls, callsOf)
			return
		}
	}
}

// markReplayed marks the quiet functions that the loops timed whole which
// the model runs iteration by iteration (not collapsed) reach: the model
// enters them, and replays their opaque decisions.
func (in *instrumenter) markReplayed(loopCalls map[*model.Node][]string, callsOf map[string][]string) {
	in.replayed = map[string]bool{}
	var reach func(id string)
	reach = func(id string) {
		if in.replayed[id] || !in.quiet[id] {
			return
		}
		in.replayed[id] = true
		for _, c := range callsOf[id] {
			reach(c)
		}
	}
	for loop, callees := range loopCalls {
		if pl := in.loops.Loop(loop); pl == nil || pl.Verdict == reduce.Collapse {
			continue
		}
		for _, c := range callees {
			reach(c)
		}
	}
}

// reaches reports whether g is among the functions callees reach.
func (in *instrumenter) reaches(callees []string, g string, callsOf map[string][]string) bool {
	seen := map[string]bool{}
	var visit func(id string) bool
	visit = func(id string) bool {
		if id == g {
			return true
		}
		if seen[id] {
			return false
		}
		seen[id] = true
		for _, c := range callsOf[id] {
			if visit(c) {
				return true
			}
		}
		return false
	}
	for _, c := range callees {
		if visit(c) {
			return true
		}
	}
	return false
}

func loopBody(s ast.Stmt) *ast.BlockStmt {
	switch s := s.(type) {
	case *ast.ForStmt:
		return s.Body
	case *ast.RangeStmt:
		return s.Body
	}
	return nil
}

// opaqueBound reports whether a loop's test depends on opaque data.
func opaqueBound(node *model.Node) bool {
	return model.OpaqueCond(node) || (node.Loop.Trip != nil && node.Loop.Trip.Opaque != "")
}

// leavesEarly reports whether a loop body may leave the loop other than by
// its end or a plain break: return, goto, labeled break or continue. A
// body that declares a label (only reachable by such jumps) counts too:
// a loop timed whole is emitted twice, and a label may not be.
func leavesEarly(body *ast.BlockStmt) bool {
	early := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt, *ast.LabeledStmt:
			early = true
		case *ast.BranchStmt:
			if n.Tok == token.GOTO || n.Label != nil {
				early = true
			}
		}
		return !early
	})
	return early
}

// innerTrips returns the trip count of the loop that is the whole body of
// the loop s (a perfect nest), as an expression valid before s runs: the
// loop plan must find the inner loop's start and bound unchanged by the
// outer loop (its Inner induction).
func (in *instrumenter) innerTrips(s ast.Stmt, body *ast.BlockStmt, node *model.Node, fc *funcCtx) (string, bool) {
	if len(body.List) != 1 {
		return "", false
	}
	inner := body.List[0]
	switch inner.(type) {
	case *ast.ForStmt, *ast.RangeStmt:
	default:
		return "", false
	}
	var innerNode *model.Node
	model.Walk(node.Loop.Body, func(n *model.Node) bool {
		if n.Kind == model.KindLoop && innerNode == nil && n.Pos.Start == in.pos(inner.Pos()) {
			innerNode = n
		}
		return innerNode == nil
	})
	if innerNode == nil {
		return "", false
	}
	if pl := in.loops.Loop(node); pl == nil || pl.Inner == nil || in.loops.Loop(innerNode).Ind != pl.Inner {
		return "", false
	}
	return in.staticTrips(inner, innerNode, fc)
}
