// This file defines the trip counts computed before a loop runs, for the
// counted loops whose bounds allow it.

package estimator

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/printer"
	"go/token"
	"go/types"
	"strings"

	"github.com/predict-tools/predict/model"
	"golang.org/x/tools/go/ssa"
)

// staticTrips returns a Go expression computing the trip count of a loop
// before it runs, for the counted forms whose bounds have no side effects:
// range over a slice, array or integer, and for i := a; i < b; i += c
// (and <=, >, >=, with a constant step) over an integer type where the
// body neither assigns i nor breaks and b does not change in the loop. The
// count is computed in i's own type (probe.TripsTo), so unsigned and
// narrow types count right. Whether reduce could compute the count (kept
// values) does not matter here: the loop's own values are at hand.
func (in *instrumenter) staticTrips(s ast.Stmt, body *ast.BlockStmt, node *model.Node, fc *funcCtx) (string, bool) {
	if breaks(body) {
		return "", false
	}
	src := func(e ast.Expr) (string, bool) {
		if e == nil || !in.callFree(e, fc) {
			return "", false
		}
		var b strings.Builder
		if err := printer.Fprint(&b, in.fset, e); err != nil {
			return "", false
		}
		return b.String(), true
	}
	switch st := s.(type) {
	case *ast.RangeStmt:
		x, ok := src(st.X)
		if !ok {
			return "", false
		}
		switch node.Loop.Range {
		case "slice", "array":
			if !in.predeclared("len", fc) {
				return "", false
			}
			return fmt.Sprintf("int64(len(%s))", x), true
		case "int":
			// An untyped constant range is an int; a typed one's type
			// is the loop variable's.
			return fmt.Sprintf("__probe.TripsTo(0, %s, 1)", x), true
		}
	case *ast.ForStmt:
		init, ok1 := st.Init.(*ast.AssignStmt)
		cond, ok2 := st.Cond.(*ast.BinaryExpr)
		if !ok1 || !ok2 || len(init.Lhs) != 1 || len(init.Rhs) != 1 {
			return "", false
		}
		v, ok := init.Lhs[0].(*ast.Ident)
		if !ok || assigns(body, v.Name) {
			return "", false
		}
		if x, ok := cond.X.(*ast.Ident); !ok || x.Name != v.Name {
			return "", false
		}
		cmp := in.binOpAt(fc, cond.OpPos, cond.Op)
		typ := in.countedType(cmp, fc)
		if typ == "" {
			return "", false
		}
		if loop := model.Blocks(node); !loop[cmp.Block().Index] || !invariant(cmp.Y, loop) {
			return "", false
		}
		var step int64
		switch p := st.Post.(type) {
		case *ast.IncDecStmt:
			if x, ok := p.X.(*ast.Ident); !ok || x.Name != v.Name {
				return "", false
			}
			step = 1
			if p.Tok == token.DEC {
				step = -1
			}
		case *ast.AssignStmt:
			x, ok := p.Lhs[0].(*ast.Ident)
			if !ok || len(p.Lhs) != 1 || x.Name != v.Name || (p.Tok != token.ADD_ASSIGN && p.Tok != token.SUB_ASSIGN) {
				return "", false
			}
			k, ok := in.constStep(p, fc)
			if !ok || k <= 0 {
				return "", false
			}
			step = k
			if p.Tok == token.SUB_ASSIGN {
				step = -k
			}
		default:
			return "", false
		}
		a, ok1 := src(init.Rhs[0])
		b, ok2 := src(cond.Y)
		if !ok1 || !ok2 || mentionsIdent(cond.Y, v.Name) {
			return "", false
		}
		a, b = fmt.Sprintf("%s(%s)", typ, a), fmt.Sprintf("%s(%s)", typ, b)
		switch {
		case cond.Op == token.LSS && step > 0:
			return fmt.Sprintf("__probe.TripsTo(%s, %s, %d)", a, b, step), true
		case cond.Op == token.LEQ && step > 0:
			return fmt.Sprintf("__probe.TripsThrough(%s, %s, %d)", a, b, step), true
		case cond.Op == token.GTR && step < 0:
			return fmt.Sprintf("__probe.TripsTo(%s, %s, %d)", b, a, -step), true
		case cond.Op == token.GEQ && step < 0:
			return fmt.Sprintf("__probe.TripsThrough(%s, %s, %d)", b, a, -step), true
		}
	}
	return "", false
}

// countedType returns the name of the basic integer type underlying the
// loop variable compared in a loop's test cmp (its SSA form), or "" when
// it is not one or cmp was not found.
func (in *instrumenter) countedType(cmp *ssa.BinOp, fc *funcCtx) string {
	if cmp == nil {
		return ""
	}
	basic, ok := cmp.X.Type().Underlying().(*types.Basic)
	if !ok || basic.Info()&types.IsInteger == 0 || !in.predeclared(basic.Name(), fc) {
		return ""
	}
	return basic.Name()
}

// invariant reports whether v is the same in every iteration of the loop
// whose blocks are given: computed before the loop, or inside it from such
// values by arithmetic, conversions, fields and elements of values,
// len/cap, and loads of local variables the loop does not write.
func invariant(v ssa.Value, loop map[int]bool) bool {
	instr, ok := v.(ssa.Instruction)
	if !ok || instr.Block() == nil || !loop[instr.Block().Index] {
		return true // a constant, parameter, global or function, or computed before the loop
	}
	switch v := v.(type) {
	case *ssa.BinOp:
		return invariant(v.X, loop) && invariant(v.Y, loop)
	case *ssa.UnOp:
		switch v.Op {
		case token.ARROW:
			return false
		case token.MUL:
			return unwritten(v.X, loop)
		}
		return invariant(v.X, loop)
	case *ssa.Convert:
		return invariant(v.X, loop)
	case *ssa.Field: // of a struct value, not through memory
		return invariant(v.X, loop)
	case *ssa.Index: // of an array value
		return invariant(v.X, loop) && invariant(v.Index, loop)
	case *ssa.ChangeType:
		return invariant(v.X, loop)
	case *ssa.Call:
		if b, ok := v.Call.Value.(*ssa.Builtin); ok && (b.Name() == "len" || b.Name() == "cap") {
			return invariant(v.Call.Args[0], loop)
		}
	}
	return false
}

// unwritten reports whether the memory at p is a part of a local variable
// (a struct or array the SSA form keeps in memory, say a struct parameter
// whose fields the function reads) that the loop does not write: all its
// uses are loads and the addresses of its parts, and its stores are
// outside the loop.
func unwritten(p ssa.Value, loop map[int]bool) bool {
	switch p := p.(type) {
	case *ssa.FieldAddr:
		return unwritten(p.X, loop)
	case *ssa.IndexAddr:
		if _, isArray := p.X.Type().Underlying().(*types.Pointer); !isArray {
			return false // an element of a slice: any alias may write it
		}
		return invariant(p.Index, loop) && unwritten(p.X, loop)
	case *ssa.Alloc:
		return !p.Heap && onlyRead(p, loop)
	}
	return false
}

// onlyRead reports whether the memory at p (a local variable or a part of
// it) is only loaded in the loop, and its address goes nowhere else.
func onlyRead(p ssa.Value, loop map[int]bool) bool {
	for _, r := range *p.Referrers() {
		switch r := r.(type) {
		case *ssa.UnOp:
			if r.Op != token.MUL {
				return false
			}
		case *ssa.Store:
			if r.Addr != p || loop[r.Block().Index] {
				return false
			}
		case *ssa.FieldAddr:
			if !onlyRead(r, loop) {
				return false
			}
		case *ssa.IndexAddr:
			if !onlyRead(r, loop) {
				return false
			}
		case *ssa.DebugRef:
		default:
			return false
		}
	}
	return true
}

// constStep returns the constant added or subtracted by a loop's post
// statement i += c or i -= c.
func (in *instrumenter) constStep(p *ast.AssignStmt, fc *funcCtx) (int64, bool) {
	op := token.ADD
	if p.Tok == token.SUB_ASSIGN {
		op = token.SUB
	}
	arith := in.binOpAt(fc, p.Pos(), op)
	if arith == nil {
		return 0, false
	}
	c, ok := arith.Y.(*ssa.Const)
	if !ok || c.Value == nil || c.Value.Kind() != constant.Int {
		return 0, false
	}
	return constant.Int64Val(c.Value)
}

// binOpAt finds the SSA binary operation op at pos in the function being
// instrumented.
func (in *instrumenter) binOpAt(fc *funcCtx, pos token.Pos, op token.Token) *ssa.BinOp {
	if fc.fn == nil {
		return nil
	}
	for _, b := range fc.fn.Blocks {
		for _, instr := range b.Instrs {
			if bo, ok := instr.(*ssa.BinOp); ok && bo.Pos() == pos && bo.Op == op {
				return bo
			}
		}
	}
	return nil
}

// predeclared reports whether name means the predeclared identifier in the
// function being instrumented: neither its package nor the function
// declares it.
func (in *instrumenter) predeclared(name string, fc *funcCtx) bool {
	if types.Universe.Lookup(name) == nil {
		return false
	}
	if fc.fn != nil && fc.fn.Pkg != nil && fc.fn.Pkg.Pkg.Scope().Lookup(name) != nil {
		return false
	}
	if fc.fn == nil || fc.fn.Syntax() == nil {
		return true
	}
	declared := false
	ast.Inspect(fc.fn.Syntax(), func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Name == name && id.Obj != nil {
			declared = true
		}
		return !declared
	})
	return !declared
}

// callFree reports whether e calls nothing (so evaluating it again is
// harmless) and receives from no channel: len, cap and conversions to
// predeclared types are allowed.
func (in *instrumenter) callFree(e ast.Expr, fc *funcCtx) bool {
	return callFree(e, func(name string) bool { return in.predeclared(name, fc) })
}

// callFree reports whether n calls nothing but the predeclared len and
// cap and conversions to predeclared types (isPredeclared tells whether a
// name means the predeclared one there), receives from no channel and
// makes no closure.
func callFree(n ast.Node, isPredeclared func(name string) bool) bool {
	free := true
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			id, ok := n.Fun.(*ast.Ident)
			if !ok || !isPredeclared(id.Name) {
				free = false
				break
			}
			if _, isType := types.Universe.Lookup(id.Name).(*types.TypeName); !isType && id.Name != "len" && id.Name != "cap" {
				free = false
			}
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				free = false
			}
		case *ast.FuncLit:
			free = false
		}
		return free
	})
	return free
}

// breaks reports whether a loop body has a break that leaves this loop.
func breaks(body *ast.BlockStmt) bool {
	found := false
	var visit func(n ast.Node, inner bool) bool
	visit = func(n ast.Node, inner bool) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
			if n != ast.Node(body) {
				ast.Inspect(n, func(m ast.Node) bool {
					if b, ok := m.(*ast.BranchStmt); ok && b.Label != nil {
						found = true
					}
					_, lit := m.(*ast.FuncLit)
					return !lit && !found
				})
				return false
			}
		case *ast.BranchStmt:
			if n.Tok == token.BREAK || n.Tok == token.GOTO || n.Label != nil {
				found = true
			}
		}
		return !found
	}
	ast.Inspect(body, func(n ast.Node) bool { return visit(n, false) })
	return found
}

// assigns reports whether body assigns the variable name.
func assigns(body *ast.BlockStmt, name string) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				if id, ok := l.(*ast.Ident); ok && id.Name == name {
					found = true
				}
			}
		case *ast.IncDecStmt:
			if id, ok := n.X.(*ast.Ident); ok && id.Name == name {
				found = true
			}
		case *ast.UnaryExpr:
			if id, ok := n.X.(*ast.Ident); ok && n.Op == token.AND && id.Name == name {
				found = true // its address escapes
			}
		}
		return !found
	})
	return found
}

func mentionsIdent(e ast.Expr, name string) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Name == name {
			found = true
		}
		return !found
	})
	return found
}
