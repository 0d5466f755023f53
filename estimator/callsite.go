// This file defines the regions timed whole at their call sites: a
// function whose work is one loop timed whole keeps its code as written
// (and so its inlining); each call statement of it is the statement timed
// (whole.go), and the sampled entries call an instrumented clone.

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

// A function f (or method) is timed at its call sites when its loop is
// the whole of the region it enters (the rule of whole.go):
//
//   - its body is statements that call nothing and assign nothing its
//     loop's trip count reads (computations, which the loop's entries
//     then hold), then the loop, timed whole, then at most a return that
//     calls nothing; it has no type parameters;
//   - the loop's trip count (a perfect nest's: outer times inner) is
//     known before it runs from f's parameters (its receiver too) and
//     package-level names alone, which no declaration around a call
//     hides;
//   - every use of f is a call statement in f's package (f(...),
//     x.f(...), or x = ... of them, not :=), by its own name (not a
//     promoted method), with a receiver and arguments that call nothing;
//     and every call of f the model has (static, or through a function or
//     interface value) is one of them.
//
// Each call statement becomes
//
//	if __probe.SampleEntry(id) != 0 { CALL of f__psample } else { trips; clock; CALL; record }
//
// where f__psample is f with its loop instrumented (a sampled entry: the
// per-iteration samples of the balance D), appended to f's file, and the
// trip count is computed from the call's arguments before the call.
type callSiteFunc struct {
	f      *model.Function
	decl   *ast.FuncDecl
	file   string
	id     int32 // the loop's fragment
	loop   *model.Node
	params []string // the receiver's name first for a method
	trips  ast.Expr // in terms of params
	covers []string // the model's computations before the loop, timed in its entries
}

// callSite is a call statement timing its callee's loop.
type callSite struct {
	fn    *callSiteFunc
	call  *ast.CallExpr
	trips string // the trip count at this call, one line
}

// clonedName is the name of a function's instrumented clone.
func clonedName(name string) string { return name + "__psample" }

// planCallSites finds the functions timed from their call sites, registers
// their loops' fragments and records the call statements that time them.
func (in *instrumenter) planCallSites(prog *model.Program, ssaOf map[*model.Function]*ssa.Function) {
	in.callFuncs = map[string]*callSiteFunc{}
	in.callLoops = map[*model.Node]int32{}
	in.sites = map[ast.Stmt]*callSite{}
	calls := modelCalls(prog)
	for _, f := range prog.Functions {
		fn := ssaOf[f]
		if fn == nil || in.quiet[f.ID] || f.ID == prog.Body || f.ID == prog.Driver || fn.Pkg == nil || fn.Object() == nil {
			continue
		}
		obj, ok := fn.Object().(*types.Func)
		decl, isDecl := fn.Syntax().(*ast.FuncDecl)
		if !ok || !isDecl || decl.Body == nil || decl.Type.TypeParams != nil || obj.Signature().RecvTypeParams().Len() > 0 {
			continue
		}
		file := in.fset.File(decl.Pos()).Name()
		fc := in.newFuncCtx(f, fn, file)
		cf := in.callSiteLoop(decl, fc)
		if cf == nil {
			continue
		}
		sites, ok := in.callStatements(cf, obj, fn.Pkg.Pkg)
		if !ok || len(sites) == 0 || !allSites(calls[f.ID], sites, in) {
			continue
		}
		loopStmt := decl.Body.List[len(decl.Body.List)-1]
		if _, isRet := loopStmt.(*ast.ReturnStmt); isRet {
			loopStmt = decl.Body.List[len(decl.Body.List)-2]
		}
		rng := in.rangeOf(loopStmt.Pos(), loopStmt.End())
		cf.f, cf.decl, cf.file = f, decl, file
		cf.id = in.fragment(profile.FragLoop, fc, cf.loop.ID, append(cf.covers, in.covered(rng, fc)...), rng)
		// Its calls run in their callers' regions: the probes account
		// for it as it runs.
		in.plan.Fragments[cf.id].Apart = true
		in.callFuncs[f.ID] = cf
		in.callLoops[cf.loop] = cf.id
		for _, s := range sites {
			s.fn = cf
			in.sites[s.stmt] = s.callSite
		}
	}
}

// modelCalls returns the positions of the model's calls of each function
// of the module: static calls, and calls through values that may call it.
func modelCalls(prog *model.Program) map[string][]model.Pos {
	calls := map[string][]model.Pos{}
	for _, f := range prog.Functions {
		for _, root := range []*model.Node{f.Tree, f.Recover} {
			model.Walk(root, func(n *model.Node) bool {
				if lf := n.Leaf; lf != nil && lf.Kind == model.LeafUFC {
					targets := lf.Targets
					if !lf.Dynamic {
						targets = []string{lf.Callee}
					}
					for _, t := range targets {
						calls[t] = append(calls[t], n.Pos.Start)
					}
				}
				return true
			})
		}
	}
	return calls
}

// allSites reports whether every call of the model at calls lies in one of
// the call statements sites.
func allSites(calls []model.Pos, sites []callStatement, in *instrumenter) bool {
	for _, p := range calls {
		found := false
		for _, s := range sites {
			if rng := in.rangeOf(s.stmt.Pos(), s.stmt.End()); p.IsValid() && !p.Before(rng.Start) && p.Before(rng.End) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
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
	body := loopBody(loopStmt)
	if body == nil {
		return nil
	}
	prologue := list[:len(list)-1]
	var covers []string // the computations of the prologue: the loop's entries hold their time
	for _, s := range prologue {
		if !in.simple(s, fc) || hasCall(s) {
			return nil // work before the loop that the model times apart
		}
		rng := in.rangeOf(s.Pos(), s.End())
		for _, n := range fc.leaves {
			if p := n.Pos.Start; p.IsValid() && !p.Before(rng.Start) && p.Before(rng.End) {
				if n.Leaf.Kind != model.LeafCB {
					return nil
				}
				covers = append(covers, n.ID)
			}
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
	if inner, nest := in.innerTrips(loopStmt, body, node, fc); nest {
		trips = fmt.Sprintf("(%s) * (%s)", trips, inner) // what the loop's record counts
	}
	expr, err := parser.ParseExpr(trips)
	if err != nil {
		return nil
	}
	var params []string
	isParam := map[string]bool{}
	fields := decl.Type.Params.List
	if decl.Recv != nil {
		if names := decl.Recv.List[0].Names; len(names) == 1 && names[0].Name != "_" {
			params = append(params, names[0].Name)
			isParam[names[0].Name] = true
		}
	}
	for _, field := range fields {
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
	// names: nothing the function computes, nor anything its statements
	// before the loop assign.
	assigned := map[string]bool{}
	for _, s := range prologue {
		ast.Inspect(s, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				for _, l := range n.Lhs {
					if id := rootIdent(l); id != nil {
						assigned[id.Name] = true
					}
				}
			case *ast.IncDecStmt:
				if id := rootIdent(n.X); id != nil {
					assigned[id.Name] = true
				}
			}
			return true
		})
	}
	scope := fc.fn.Pkg.Pkg.Scope()
	ok = true
	names(expr, func(x *ast.Ident) {
		switch {
		case locals[x.Name] || assigned[x.Name]:
			ok = false
		case isParam[x.Name], scope.Lookup(x.Name) != nil, types.Universe.Lookup(x.Name) != nil:
		default:
			ok = false
		}
	})
	if !ok {
		return nil
	}
	return &callSiteFunc{loop: node, params: params, trips: expr, covers: covers}
}

// names calls visit for each name expr refers to by itself: not a field
// or method selected, nor the probes' package.
func names(expr ast.Expr, visit func(*ast.Ident)) {
	ast.Inspect(expr, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.SelectorExpr:
			if id, isID := x.X.(*ast.Ident); !isID || id.Name != "__probe" {
				names(x.X, visit)
			}
			return false
		case *ast.Ident:
			visit(x)
		}
		return true
	})
}

// rootIdent returns the variable an assignment to e writes through or
// into: x for x, x.f, x[i], *x.
func rootIdent(e ast.Expr) *ast.Ident {
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.Ident:
			return x
		case *ast.SelectorExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		default:
			return nil
		}
	}
}

type callStatement struct {
	stmt ast.Stmt
	*callSite
}

// callStatements returns the calls of obj (the function of cf) when every
// use of it is a call statement of the form the call-site timing needs
// (ok), each with its trip count written from its arguments.
func (in *instrumenter) callStatements(cf *callSiteFunc, obj *types.Func, pkg *types.Package) ([]callStatement, bool) {
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
	method := obj.Signature().Recv() != nil
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
			args, isCall := in.callArgs(call, obj, info, method, len(cf.params))
			if !isCall {
				return true
			}
			calls++
			trips := ""
			if args == nil {
				ok = false
			} else if trips, isCall = substitute(cf.trips, cf.params, args); !isCall || !in.sameNames(cf.trips, cf.params, pkg, call.Pos()) {
				ok = false
			}
			sites = append(sites, callStatement{stmt: n.(ast.Stmt), callSite: &callSite{call: call, trips: trips}})
			return true
		})
	}
	if uses != calls {
		return nil, false // a function value, or a call inside an expression
	}
	return sites, ok
}

// callArgs reports whether call calls obj by its own name, and returns the
// values of the function's params at it (the receiver first for a
// method), or nil when the call cannot be timed at its site.
func (in *instrumenter) callArgs(call *ast.CallExpr, obj *types.Func, info *types.Info, method bool, params int) ([]string, bool) {
	var recv ast.Expr
	if method {
		sel, isSel := call.Fun.(*ast.SelectorExpr)
		if !isSel || info.Uses[sel.Sel] != obj {
			return nil, false
		}
		if s := info.Selections[sel]; s == nil || s.Kind() != types.MethodVal || len(s.Index()) != 1 {
			return nil, true // a promoted method, or a method expression
		}
		recv = sel.X
	} else if id, isID := call.Fun.(*ast.Ident); !isID || info.Uses[id] != obj {
		return nil, false
	}
	if call.Ellipsis.IsValid() || recv != nil && hasCall(recv) {
		return nil, true
	}
	var args []string
	if recv != nil && params > len(call.Args) {
		// The receiver as the method sees it: the call takes the
		// address of a value for a pointer receiver, and dereferences a
		// pointer for a value one.
		text := printExpr(recv)
		_, ptrRecv := obj.Signature().Recv().Type().(*types.Pointer)
		_, ptrX := info.TypeOf(recv).Underlying().(*types.Pointer)
		switch {
		case ptrRecv && !ptrX:
			text = "&(" + text + ")"
		case !ptrRecv && ptrX:
			text = "*(" + text + ")"
		}
		args = append(args, text)
	}
	for _, a := range call.Args {
		if hasCall(a) {
			return nil, true
		}
		args = append(args, printExpr(a))
	}
	if len(args) != params {
		return nil, true
	}
	return args, true
}

// sameNames reports whether every name of expr other than params means
// at the call position what it means in the callee: a package-level or
// predeclared name no declaration around the call hides.
func (in *instrumenter) sameNames(expr ast.Expr, params []string, pkg *types.Package, at token.Pos) bool {
	isParam := map[string]bool{}
	for _, p := range params {
		isParam[p] = true
	}
	scope := pkg.Scope().Innermost(at)
	if scope == nil {
		return false
	}
	same := true
	names(expr, func(x *ast.Ident) {
		if isParam[x.Name] {
			return
		}
		want := pkg.Scope().Lookup(x.Name)
		if want == nil {
			want = types.Universe.Lookup(x.Name)
		}
		if _, got := scope.LookupParent(x.Name, at); got != want {
			same = false
		}
	})
	return same
}

// hasCall reports whether n does more than callFree allows, taking
// every predeclared name for the predeclared one: the function timed from
// its call sites is checked as a whole elsewhere, and an argument (written
// twice: in the call and in the trip count) must not receive or call.
func hasCall(n ast.Node) bool {
	return !callFree(n, func(name string) bool { return types.Universe.Lookup(name) != nil })
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
	// The clone's name: f__psample, a method of the same receiver for a
	// method.
	cloneE = append(cloneE, edit{offset: in.fset.Position(cf.decl.Name.End()).Offset - lo, seq: -1, text: clonedName("")})
	text := string(apply(src[lo:hi], cloneE, cloneV))
	text = strings.ReplaceAll(text, fmt.Sprintf("__probe.SampleEntry(%d)", cf.id), "(__probe.IterSamples + 1)")
	return keptE, keptV, text
}
