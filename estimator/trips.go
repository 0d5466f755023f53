// This file defines the trip counts computed before a loop runs, for the
// counted loops whose bounds allow it.

package estimator

import (
	"fmt"
	"go/ast"
	"go/printer"
	"go/token"
	"go/types"
	"strings"

	"github.com/predict-tools/predict/model"
)

// staticTrips returns a Go expression computing the trip count of a loop
// before it runs, when the loop plan (reduce) finds it counted — an
// induction stepped by a constant, compared with a bound that does not
// change in the loop, and left only by its test — and its start and bound
// can be written as Go expressions without calls: range over a slice,
// array or integer, and for i := a; i < b; i += c (and <=, >, >=). The
// count is computed in i's own type (probe.TripsTo), so unsigned and
// narrow types count right. The plan decides; the syntax only renders.
func (in *instrumenter) staticTrips(s ast.Stmt, node *model.Node, fc *funcCtx) (string, bool) {
	pl := in.loops.Loop(node)
	if pl == nil || pl.Counter == nil || pl.Exit == nil {
		return "", false
	}
	ind := pl.Counter
	if ind.StepValue != nil {
		return "", false // a step the loop does not change: counted as it runs
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
		if !ok1 || !ok2 || len(init.Lhs) != 1 || len(init.Rhs) != 1 || ind.Offset != 0 || ind.TestAtBottom {
			return "", false
		}
		v, ok := init.Lhs[0].(*ast.Ident)
		if !ok {
			return "", false
		}
		if x, ok := cond.X.(*ast.Ident); !ok || x.Name != v.Name || cond.Op != ind.Op {
			return "", false
		}
		basic, ok := ind.Phi.Type().Underlying().(*types.Basic)
		if !ok || basic.Info()&types.IsInteger == 0 || !in.predeclared(basic.Name(), fc) {
			return "", false
		}
		a, ok1 := src(init.Rhs[0])
		b, ok2 := src(cond.Y)
		if !ok1 || !ok2 || mentionsIdent(cond.Y, v.Name) {
			return "", false
		}
		typ, step := basic.Name(), ind.Step
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

// mentionsIdent reports whether e uses the identifier name.
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
