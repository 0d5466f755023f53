// This file defines outlined sampled copies: the sampled copy of a loop
// timed whole written as a function of its own, so that the function
// holding the loop keeps only the original copy.

package estimator

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strconv"
	"strings"
)

// Two copies of a loop nest in one function make the compiler build the
// original copy differently: more values are live, registers are
// allocated and blocks laid out otherwise. ep's gaussianPairs (one loop,
// entered once, 512 iterations) ran 5 % slower in the instrumented build
// than in the plain one, though its probes are outside the loop and its
// instructions inside the loop were the same but for a constant loaded
// anew each iteration; with the sampled copy written by hand as a
// function of its own it ran 1.5 % faster than that, over six code
// layouts. (The plain program alone varies by 2.5 % over code layouts:
// inserting branches never taken before the loop moved it from 822 to
// 843 ms.)
//
// An outlined sampled copy is
//
//	//go:noinline
//	func __psampleID(v1 T1, …, ls, it, … int64) (Tw1, …, int64, …) {
//		/*line :L:C*/ SAMPLED COPY
//		return w1, …, ls, it, …
//	}
//
// appended to the loop's file, where v are the local variables the loop
// uses that are declared outside it and w those of them it assigns, and
// ls, it, … the probe variables the sampled copy sets. In the function,
// the sampled copy is replaced by
//
//	w1, …, ls, it, … = __psampleID(v1, …, ls, it, …)
//
// Values go in and come back: nothing of the function has its address
// taken, so the original copy is compiled as if the sampled one were not
// there. A loop is outlined only when that is the same program: no
// address taken (& or implicitly, by a method with a pointer receiver
// called on a variable, or by slicing an array variable), no closure,
// defer, recover, return, goto or labeled branch, no type parameter, and
// every variable's type can be written in the file.
type outlined struct {
	name                 string
	params, paramTypes   []string
	results, resultTypes []string
}

// call is the statement that replaces the sampled copy.
func (o *outlined) call() string {
	return fmt.Sprintf("%s = %s(%s)", strings.Join(o.results, ", "), o.name, strings.Join(o.params, ", "))
}

// function writes the outlined function around the sampled copy's text.
func (o *outlined) function(copyText string) string {
	params := make([]string, len(o.params))
	for i, p := range o.params {
		params[i] = p + " " + o.paramTypes[i]
	}
	return fmt.Sprintf("//go:noinline\nfunc %s(%s) (%s) {\n\t%s\n\treturn %s\n}", o.name, strings.Join(params, ", "),
		strings.Join(o.resultTypes, ", "), copyText, strings.Join(o.results, ", "))
}

// add adds a variable of type t, a result too when the copy assigns it.
func (o *outlined) add(name, t string, assigned bool) {
	o.params = append(o.params, name)
	o.paramTypes = append(o.paramTypes, t)
	if assigned {
		o.results = append(o.results, name)
		o.resultTypes = append(o.resultTypes, t)
	}
}

// outline returns how the sampled copy of loop statement s (fragment id)
// is outlined, or nil and why when it stays in its function. probe are
// the probe variables the sampled copy sets (all int64).
func (in *instrumenter) outline(s ast.Stmt, id int32, fc *funcCtx, probe []string) (*outlined, string) {
	if fc.fn == nil || fc.fn.Pkg == nil {
		return nil, "no package"
	}
	if fc.fn.TypeParams() != nil || fc.fn.Parent() != nil && fc.fn.Parent().TypeParams() != nil {
		return nil, "its function has type parameters"
	}
	pkg := fc.fn.Pkg.Pkg
	info := in.l.TypesInfo(pkg)
	file := in.files[in.fset.File(s.Pos()).Name()]
	if info == nil || file == nil {
		return nil, "no type information"
	}
	free := map[*types.Var]token.Pos{} // the variables and their first use
	why := ""                          // what keeps the copy in place
	refuse := func(n ast.Node, what string) {
		if why == "" {
			why = fmt.Sprintf("%s at line %d", what, in.fset.Position(n.Pos()).Line)
		}
	}
	isFree := func(v *types.Var) bool {
		return v != nil && !v.IsField() && v.Pkg() == pkg && v.Parent() != nil && v.Parent() != pkg.Scope() &&
			(v.Pos() < s.Pos() || v.Pos() >= s.End())
	}
	assigned := map[*types.Var]bool{}
	assign := func(e ast.Expr) {
		if v := rootVar(e, info); isFree(v) {
			assigned[v] = true
		}
	}
	ast.Inspect(s, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			refuse(n, "a closure")
		case *ast.DeferStmt:
			refuse(n, "a defer")
		case *ast.ReturnStmt:
			refuse(n, "a return")
		case *ast.BranchStmt:
			if n.Label != nil || n.Tok == token.GOTO {
				refuse(n, "a jump to a label")
			}
		case *ast.LabeledStmt:
			refuse(n, "a label")
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				refuse(n, "an address taken (&)")
			}
		case *ast.SliceExpr:
			if t := info.TypeOf(n.X); t != nil {
				if _, isArray := t.Underlying().(*types.Array); isArray {
					refuse(n, "a local array sliced (its address taken)")
				}
			}
		case *ast.CallExpr:
			if id, isID := ast.Unparen(n.Fun).(*ast.Ident); isID {
				if b, isB := info.Uses[id].(*types.Builtin); isB && b.Name() == "recover" {
					refuse(n, "a recover")
				}
			}
		case *ast.SelectorExpr:
			if sel := info.Selections[n]; sel != nil && sel.Kind() != types.FieldVal {
				if f, isFn := sel.Obj().(*types.Func); isFn {
					if recv := f.Signature().Recv(); recv != nil {
						if _, ptrRecv := recv.Type().(*types.Pointer); ptrRecv {
							if _, ptrX := sel.Recv().Underlying().(*types.Pointer); !ptrX {
								refuse(n, "a pointer method called on a value (its address taken)")
							}
						}
					}
				}
			}
		case *ast.AssignStmt:
			if n.Tok != token.DEFINE {
				for _, l := range n.Lhs {
					assign(l)
				}
			}
		case *ast.IncDecStmt:
			assign(n.X)
		case *ast.RangeStmt:
			if n.Tok == token.ASSIGN {
				if n.Key != nil {
					assign(n.Key)
				}
				if n.Value != nil {
					assign(n.Value)
				}
			}
		case *ast.Ident:
			if v, isVar := info.Uses[n].(*types.Var); isVar && isFree(v) {
				if _, seen := free[v]; !seen {
					free[v] = n.Pos()
				}
			}
		}
		return why == ""
	})
	if why != "" {
		return nil, why
	}
	vars := make([]*types.Var, 0, len(free))
	for v := range free {
		vars = append(vars, v)
	}
	slices.SortFunc(vars, func(a, b *types.Var) int { return cmp.Compare(free[a], free[b]) })
	qual := qualifier(file, pkg, info)
	o := &outlined{name: fmt.Sprintf("__psample%d", id)}
	for _, v := range vars {
		t, ok := typeText(v.Type(), pkg, qual)
		if !ok {
			return nil, fmt.Sprintf("%s, of a type the file cannot name (%s)", v.Name(), types.TypeString(v.Type(), types.RelativeTo(pkg)))
		}
		if strings.HasPrefix(v.Name(), "__") || v.Name() == "_" {
			return nil, fmt.Sprintf("a variable named %s", v.Name())
		}
		o.add(v.Name(), t, assigned[v])
	}
	for _, p := range probe {
		o.add(p, "int64", true)
	}
	return o, ""
}

// rootVar returns the variable an assignment to e writes into: x for x,
// (x), x.f and x[i] when x holds the struct or array written, nil when
// the write goes through a pointer, a slice or a map (the variable itself
// is unchanged).
func rootVar(e ast.Expr, info *types.Info) *types.Var {
	for {
		var holder ast.Expr // what the field or element belongs to
		switch x := ast.Unparen(e).(type) {
		case *ast.Ident:
			v, _ := info.Uses[x].(*types.Var)
			return v
		case *ast.SelectorExpr:
			holder = x.X
		case *ast.IndexExpr:
			holder = x.X
		default:
			return nil // *p = …: through a pointer
		}
		if !holdsValue(info.TypeOf(holder)) {
			return nil
		}
		e = holder
	}
}

// holdsValue reports whether a variable of type t holds what a field or
// element write through it changes (a struct or an array), rather than
// referring to it.
func holdsValue(t types.Type) bool {
	if t == nil {
		return true
	}
	switch t.Underlying().(type) {
	case *types.Pointer, *types.Slice, *types.Map:
		return false
	}
	return true
}

// qualifier names the packages a file imports as the file does, and a
// package it does not import by a usable name "\x00" (typeText refuses
// the type then).
func qualifier(file *ast.File, pkg *types.Package, info *types.Info) types.Qualifier {
	names := map[string]string{} // import path → name in the file
	for _, imp := range file.Imports {
		path, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			continue // the file parsed and type-checked: never
		}
		name := ""
		if imp.Name != nil {
			name = imp.Name.Name
		} else if pn := info.PkgNameOf(imp); pn != nil {
			name = pn.Imported().Name()
		}
		if name == "_" {
			continue
		}
		names[path] = name
	}
	return func(p *types.Package) string {
		if p == pkg {
			return ""
		}
		if n, ok := names[p.Path()]; ok && n != "." {
			return n
		}
		return "\x00" // not nameable here
	}
}

// typeText writes t as the file names it, and reports false when it
// cannot: a type from a package the file does not import, an unexported
// type of another package, a type declared inside a function, a type
// parameter.
func typeText(t types.Type, pkg *types.Package, qual types.Qualifier) (string, bool) {
	ok := true
	seen := map[types.Type]bool{}
	var check func(t types.Type)
	check = func(t types.Type) {
		if !ok || seen[t] {
			return
		}
		seen[t] = true
		switch t := t.(type) {
		case *types.Alias:
			check(types.Unalias(t))
			ok = ok && nameable(t.Obj(), pkg)
		case *types.Named:
			ok = ok && nameable(t.Obj(), pkg)
			if args := t.TypeArgs(); args != nil {
				for a := range args.Types() {
					check(a)
				}
			}
		case *types.TypeParam:
			ok = false
		case *types.Pointer:
			check(t.Elem())
		case *types.Slice:
			check(t.Elem())
		case *types.Array:
			check(t.Elem())
		case *types.Map:
			check(t.Key())
			check(t.Elem())
		case *types.Chan:
			check(t.Elem())
		case *types.Struct:
			for f := range t.Fields() {
				if !f.Exported() && f.Pkg() != pkg {
					ok = false
				}
				check(f.Type())
			}
		case *types.Signature:
			for v := range t.Params().Variables() {
				check(v.Type())
			}
			for v := range t.Results().Variables() {
				check(v.Type())
			}
		case *types.Interface:
			for m := range t.Methods() {
				if !m.Exported() && m.Pkg() != pkg {
					ok = false
				}
				check(m.Type())
			}
			for e := range t.EmbeddedTypes() {
				check(e)
			}
		case *types.Tuple:
			ok = false
		}
	}
	check(t)
	if !ok {
		return "", false
	}
	text := types.TypeString(t, qual)
	if strings.Contains(text, "\x00") {
		return "", false
	}
	return text, true
}

// nameable reports whether the type name o can be written in package pkg:
// predeclared, or declared at package level and exported or of pkg.
func nameable(o *types.TypeName, pkg *types.Package) bool {
	return o.Pkg() == nil || o.Parent() == o.Pkg().Scope() && (o.Pkg() == pkg || o.Exported())
}
