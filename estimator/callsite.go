// This file defines functions timed from their call sites: a small
// function whose work is one loop keeps its code as written (and so its
// inlining); each call of it is timed as one entry of that loop, and the
// sampled entries call an instrumented clone that samples its iterations.

package estimator

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"go/types"
	"strings"

	"github.com/predict-tools/predict/model"
	"github.com/predict-tools/predict/profile"
	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/ssa"
)

// A probe in a function stops the compiler from inlining it. For a small
// function that is one hot loop that costs what the probe measures:
// inlined into its caller, the loop compiles to other, faster code
// (stencil's sweep, class W: plain 0.41-0.46 s, the same sources with
// sweep only marked //go:noinline 0.47-0.54 s). Such a function keeps its
// code; each call statement becomes
//
//	if __probe.SampleEntry(id) != 0 { CALL of f__psample } else { clock; CALL; __probe.Loop(id, clock, trips) }
//
// where f__psample is f with its loop instrumented as usual (a sampled
// entry: per-iteration samples for the balance D), appended to f's file,
// and trips is the loop's trip count computed from the call's arguments.
// It applies when
//
//   - f is a plain function (no receiver, no type parameters) whose body
//     is statements that call nothing and that the model keeps nothing
//     of, then the loop, timed whole, then at most a return that calls
//     nothing;
//   - the loop's trip count is known before it runs from f's parameters
//     and package-level names alone;
//   - every use of f is a call in f's package that is a statement of its
//     own (f(...) or x = f(...), not :=) with arguments that call nothing,
//     outside any loop timed whole.
type callSiteFunc struct {
	f      *model.Function
	decl   *ast.FuncDecl
	file   string
	id     int32 // the loop's fragment
	loop   *model.Node
	params []string
	trips  ast.Expr // in terms of params
}

// clonedName is the name of a function's instrumented clone.
func clonedName(name string) string { return name + "__psample" }

// planCallSites finds the functions timed from their call sites, registers
// their loops' fragments and records the call statements that time them.
func (in *instrumenter) planCallSites(prog *model.Program, ssaOf map[*model.Function]*ssa.Function) {
	in.callFuncs = map[string]*callSiteFunc{}
	in.callLoops = map[*model.Node]int32{}
	in.sites = map[ast.Stmt]*callSite{}
	for _, f := range prog.Functions {
		fn := ssaOf[f]
		if fn == nil || in.quiet[f.ID] || f.ID == prog.Body || f.ID == prog.Driver || fn.Pkg == nil || fn.Object() == nil {
			continue
		}
		decl, ok := fn.Syntax().(*ast.FuncDecl)
		if !ok || decl.Body == nil || decl.Recv != nil || decl.Type.TypeParams != nil {
			continue
		}
		file := in.fset.File(decl.Pos()).Name()
		fc := in.newFuncCtx(f, fn, file)
		cf := in.callSiteLoop(decl, fc)
		if cf == nil {
			continue
		}
		sites, ok := in.callStatements(fn.Object(), fn.Pkg.Pkg)
		if !ok || len(sites) == 0 {
			continue
		}
		loopStmt := decl.Body.List[len(decl.Body.List)-1]
		if _, isRet := loopStmt.(*ast.ReturnStmt); isRet {
			loopStmt = decl.Body.List[len(decl.Body.List)-2]
		}
		rng := in.rangeOf(loopStmt.Pos(), loopStmt.End())
		cf.f, cf.decl, cf.file = f, decl, file
		cf.id = in.fragment(profile.FragLoop, fc, cf.loop.ID, in.covered(rng, fc), rng)
		// Its calls run in their callers' regions: the probes account
		// for it as it runs.
		in.plan.Fragments[cf.id].Apart = true
		in.callFuncs[f.ID] = cf
		in.callLoops[cf.loop] = cf.id
		for _, s := range sites {
			in.sites[s.stmt] = &callSite{fn: cf, call: s.call}
		}
	}
}

// callSite is a call statement timing its callee's loop.
type callSite struct {
	fn   *callSiteFunc
	call *ast.CallExpr
}

// callSiteLoop returns f's loop when f may be timed from its call sites.
func (in *instrumenter) callSiteLoop(decl *ast.FuncDecl, fc *funcCtx) *callSiteFunc {
	list := decl.Body.List
	if n := len(list); n > 0 {
		if _, ok := list[n-1].(*ast.ReturnStmt); ok {
			if hasCall(list[n-1]) {
				return nil
			}
			list = list[:n-1]
		}
	}
	if len(list) == 0 {
		return nil
	}
	loopStmt := list[len(list)-1]
	var body *ast.BlockStmt
	switch st := loopStmt.(type) {
	case *ast.ForStmt:
		body = st.Body
	case *ast.RangeStmt:
		body = st.Body
	default:
		return nil
	}
	for _, s := range list[:len(list)-1] {
		if !in.simple(s, fc) || hasCall(s) || len(in.covered(in.rangeOf(s.Pos(), s.End()), fc)) > 0 {
			return nil // work before the loop that the model keeps or times
		}
	}
	node := in.wholeLoop(loopStmt, fc)
	if node == nil {
		return nil
	}
	trips, ok := in.staticTrips(loopStmt, node, fc)
	if !ok {
		return nil
	}
	if _, nest := in.innerTrips(loopStmt, body, node, fc); nest {
		return nil // a nest timed per innermost iteration keeps its probes
	}
	expr, err := parser.ParseExpr(trips)
	if err != nil {
		return nil
	}
	var params []string
	isParam := map[string]bool{}
	for _, field := range decl.Type.Params.List {
		if len(field.Names) == 0 {
			return nil
		}
		for _, name := range field.Names {
			params = append(params, name.Name)
			isParam[name.Name] = true
		}
	}
	info := in.l.TypesInfo(fc.fn.Pkg.Pkg)
	if info == nil {
		return nil
	}
	locals := map[string]bool{}
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			if _, isVar := info.Defs[id].(*types.Var); isVar {
				locals[id.Name] = true
			}
		}
		return true
	})
	// The trip count names parameters, package-level and predeclared
	// names: nothing the function computes.
	scope := fc.fn.Pkg.Pkg.Scope()
	ok = true
	ast.Inspect(expr, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.SelectorExpr:
			if id, isID := x.X.(*ast.Ident); isID && id.Name == "__probe" {
				return false
			}
		case *ast.Ident:
			switch {
			case locals[x.Name]:
				ok = false
			case isParam[x.Name], scope.Lookup(x.Name) != nil, types.Universe.Lookup(x.Name) != nil:
			default:
				ok = false
			}
		}
		return ok
	})
	if !ok {
		return nil
	}
	return &callSiteFunc{loop: node, params: params, trips: expr}
}

type callStatement struct {
	stmt ast.Stmt
	call *ast.CallExpr
}

// callStatements returns the calls of obj when every use of it is a call
// statement of the form the call-site timing needs (ok).
func (in *instrumenter) callStatements(obj types.Object, pkg *types.Package) ([]callStatement, bool) {
	for _, p := range in.l.Packages {
		if p.Pkg == pkg {
			continue
		}
		if info := in.l.TypesInfo(p.Pkg); info != nil {
			for _, o := range info.Uses {
				if o == obj {
					return nil, false
				}
			}
		}
	}
	info := in.l.TypesInfo(pkg)
	if info == nil {
		return nil, false
	}
	var sites []callStatement
	uses, calls := 0, 0
	ok := true
	for _, file := range in.l.Syntax[pkg] {
		ast.Inspect(file, func(n ast.Node) bool {
			var call *ast.CallExpr
			switch s := n.(type) {
			case *ast.Ident:
				if info.Uses[s] == obj {
					uses++
				}
				return true
			case *ast.ExprStmt:
				call, _ = s.X.(*ast.CallExpr)
			case *ast.AssignStmt:
				if len(s.Rhs) == 1 && s.Tok == token.ASSIGN {
					call, _ = s.Rhs[0].(*ast.CallExpr)
				}
			}
			if call == nil {
				return true
			}
			if id, isID := call.Fun.(*ast.Ident); !isID || info.Uses[id] != obj {
				return true
			}
			calls++
			for _, arg := range call.Args {
				if hasCall(arg) {
					ok = false
				}
			}
			if call.Ellipsis.IsValid() {
				ok = false
			}
			sites = append(sites, callStatement{stmt: n.(ast.Stmt), call: call})
			return true
		})
	}
	if uses != calls {
		return nil, false // a function value, or a call inside an expression
	}
	// Not inside a loop timed whole (the loop's time holds the call's).
	for _, s := range sites {
		p := in.pos(s.stmt.Pos())
		for n := range in.whole {
			if n.Pos.Start.File == p.File && !p.Before(n.Pos.Start) && !n.Pos.End.Before(p) {
				return nil, false
			}
		}
	}
	return sites, ok
}

// hasCall reports whether n does more than callFree allows, taking
// every predeclared name for the predeclared one: the function timed from
// its call sites is checked as a whole elsewhere, and an argument (written
// twice: in the call and in the trip count) must not receive or call.
func hasCall(n ast.Node) bool {
	return !callFree(n, func(name string) bool { return types.Universe.Lookup(name) != nil })
}

// timeCallSite writes a call statement of a function timed from its call
// sites twice: the call of the clone for a sampled entry, the call
// between the loop's probes otherwise.
func (in *instrumenter) timeCallSite(s ast.Stmt, fc *funcCtx) bool {
	cs := in.sites[s]
	if cs == nil || fc.coarse > 0 || fc.decisionsOnly {
		return false
	}
	var args []string
	for _, a := range cs.call.Args {
		var b strings.Builder
		if err := printer.Fprint(&b, in.fset, a); err != nil {
			return false
		}
		args = append(args, b.String())
	}
	if len(args) != len(cs.fn.params) {
		return false
	}
	trips, ok := substitute(cs.fn.trips, cs.fn.params, args)
	if !ok {
		return false
	}
	if !fc.usedCalls {
		fc.usedCalls = true
		fc.vars = append(fc.vars, "__lc")
	}
	start := in.fset.Position(s.Pos())
	in.versions[fc.file] = append(in.versions[fc.file], version{
		start: start.Offset, end: in.fset.Position(s.End()).Offset, line: start.Line, col: start.Column,
		sampled: fmt.Sprintf("if __probe.SampleEntry(%d) != 0 { ", cs.fn.id),
		plain:   fmt.Sprintf(" } else { __lc = %s; ", in.now),
		close:   fmt.Sprintf("; __probe.%s(%d, __lc, int64(%s)) }", loopRecord(in.plan.Regions), cs.fn.id, trips),
	})
	fc.timed[fc.region] = true
	in.insertSampled(fc.file, cs.call.Fun.End(), "__psample")
	return true
}

// substitute writes expr with each parameter replaced by its argument, on
// one line (lines must not move).
func substitute(expr ast.Expr, params, args []string) (string, bool) {
	arg := map[string]ast.Expr{}
	for i, p := range params {
		e, err := parser.ParseExpr(args[i])
		if err != nil {
			return "", false
		}
		arg[p] = &ast.ParenExpr{X: e}
	}
	copied, err := parser.ParseExpr(printExpr(expr))
	if err != nil {
		return "", false
	}
	out := astutil.Apply(copied, func(c *astutil.Cursor) bool {
		if sel, ok := c.Node().(*ast.SelectorExpr); ok {
			if id, isID := sel.X.(*ast.Ident); isID && id.Name == "__probe" {
				return false
			}
		}
		if id, ok := c.Node().(*ast.Ident); ok {
			if a := arg[id.Name]; a != nil {
				c.Replace(a)
			}
		}
		return true
	}, nil)
	text := printExpr(out.(ast.Expr))
	if strings.Contains(text, "\n") {
		return "", false
	}
	return text, true
}

func printExpr(e ast.Expr) string {
	var b strings.Builder
	printer.Fprint(&b, token.NewFileSet(), e)
	return b.String()
}

// clone moves the edits and versions of a function timed from its call
// sites out of its file: the function stays as written, and its
// instrumented text, renamed, is appended to the file (its sampled entries
// are decided at the call sites, so the clone's loop always samples).
func (in *instrumenter) clone(cf *callSiteFunc, src []byte, edits []edit, versions []version) ([]edit, []version, string) {
	lo, hi := in.fset.Position(cf.decl.Pos()).Offset, in.fset.Position(cf.decl.End()).Offset
	var keptE, cloneE []edit
	for _, e := range edits {
		if lo < e.offset && e.offset < hi {
			e.offset -= lo
			cloneE = append(cloneE, e)
			continue
		}
		keptE = append(keptE, e)
	}
	var keptV, cloneV []version
	for _, v := range versions {
		if lo <= v.start && v.end <= hi {
			v.start -= lo
			v.end -= lo
			v.outline = nil // the clone's loop always samples: nothing to keep apart
			cloneV = append(cloneV, v)
			continue
		}
		keptV = append(keptV, v)
	}
	text := string(apply(src[lo:hi], cloneE, cloneV))
	name := cf.decl.Name.Name
	text = strings.Replace(text, "func "+name+"(", "func "+clonedName(name)+"(", 1)
	text = strings.ReplaceAll(text, fmt.Sprintf("__probe.SampleEntry(%d)", cf.id), "(__probe.IterSamples + 1)")
	return keptE, keptV, text
}
