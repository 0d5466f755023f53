// This file checks commlib's catalog against the real commlib package, as
// modelgen names its functions: every exported function and method has an
// entry, every entry a function, with one role per parameter of a type
// that fits the role.

package modelgen

import (
	"go/types"
	"slices"
	"testing"

	"github.com/predict-tools/predict/commlib/catalog"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

// commlibFuncs loads commlib and returns its exported functions and
// methods by the name CommlibOp gives them.
func commlibFuncs(t *testing.T) map[string]*ssa.Function {
	t.Helper()
	pkgs, err := packages.Load(&packages.Config{Mode: packages.LoadSyntax}, CommlibPath)
	if err != nil {
		t.Fatal(err)
	}
	if packages.PrintErrors(pkgs) > 0 || len(pkgs) != 1 {
		t.Fatalf("loading %s failed", CommlibPath)
	}
	prog, _ := ssautil.Packages(pkgs, ssa.InstantiateGenerics)
	funcs := map[string]*ssa.Function{}
	add := func(obj *types.Func) {
		fn := prog.FuncValue(obj)
		if fn == nil || !IsCommlib(fn) {
			t.Fatalf("%s: no SSA function of commlib", obj)
		}
		funcs[CommlibOp(fn)] = fn
	}
	scope := pkgs[0].Types.Scope()
	for _, name := range scope.Names() {
		switch obj := scope.Lookup(name).(type) {
		case *types.Func:
			if obj.Exported() {
				add(obj)
			}
		case *types.TypeName:
			named, ok := obj.Type().(*types.Named)
			if !ok || !obj.Exported() {
				continue
			}
			for m := range named.Methods() {
				if m.Exported() {
					add(m)
				}
			}
		}
	}
	if len(funcs) == 0 {
		t.Fatalf("no exported functions in %s", CommlibPath)
	}
	return funcs
}

func TestCatalogIsCommlib(t *testing.T) {
	funcs := commlibFuncs(t)
	for name := range funcs {
		if _, ok := catalog.Lookup(name); !ok {
			t.Errorf("commlib's %s is not in the catalog (commlib/catalog/ops.go): give it an entry", name)
		}
	}
	for _, o := range catalog.All() {
		fn := funcs[o.Name]
		if fn == nil {
			t.Errorf("catalog entry %s names no exported function of commlib (renamed or removed?)", o.Name)
			continue
		}
		var params []*types.Var
		if recv := fn.Signature.Recv(); recv != nil {
			params = append(params, recv)
		}
		for p := range fn.Signature.Params().Variables() {
			params = append(params, p)
		}
		if len(o.Args) != len(params) {
			t.Errorf("%s: %d roles for %d arguments (receiver included)", o.Name, len(o.Args), len(params))
			continue
		}
		for i, r := range o.Args {
			if !fits(r, params[i].Type()) {
				t.Errorf("%s: argument %d (%s %s) does not fit role %s", o.Name, i, params[i].Name(), params[i].Type(), r)
			}
		}
	}
}

// fits reports whether an argument of type t can play role r.
func fits(r catalog.Role, t types.Type) bool {
	named := func(t types.Type) string {
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		if n, ok := t.(*types.Named); ok {
			return n.Obj().Name()
		}
		return ""
	}
	basic := func(t types.Type, k types.BasicKind) bool {
		b, ok := t.(*types.Basic)
		return ok && b.Kind() == k
	}
	slice := func(t types.Type) types.Type {
		if s, ok := t.(*types.Slice); ok {
			return s.Elem()
		}
		return nil
	}
	switch r {
	case catalog.ArgComm, catalog.ArgCaller:
		return named(t) == "Comm"
	case catalog.ArgSendBuf, catalog.ArgRecvBuf, catalog.ArgBuf:
		return types.IsInterface(t) // any: a slice of numbers or bytes
	case catalog.ArgPeer, catalog.ArgTag, catalog.ArgRoot, catalog.ArgColor, catalog.ArgKey, catalog.ArgRank, catalog.ArgDim, catalog.ArgDisp, catalog.ArgCount, catalog.ArgDefault:
		return basic(t, types.Int)
	case catalog.ArgReduction:
		return named(t) == "Op"
	case catalog.ArgRequest:
		return named(t) == "Request"
	case catalog.ArgRequests:
		e := slice(t)
		return e != nil && named(e) == "Request"
	case catalog.ArgCounts, catalog.ArgDispls, catalog.ArgDims, catalog.ArgCoords:
		e := slice(t)
		return e != nil && basic(e, types.Int)
	case catalog.ArgPeriods:
		e := slice(t)
		return e != nil && basic(e, types.Bool)
	case catalog.ArgFunc:
		_, ok := t.Underlying().(*types.Signature)
		return ok
	case catalog.ArgObject:
		return slices.Contains([]string{"Pool", "Mutex", "Semaphore", "Barrier"}, named(t))
	case catalog.ArgCell:
		return named(t) == "AtomicInt" || named(t) == "AtomicFloat"
	case catalog.ArgValue:
		return basic(t.Underlying(), types.Int64) || basic(t.Underlying(), types.Float64) || basic(t.Underlying(), types.Int)
	case catalog.ArgError:
		return types.Identical(t, types.Universe.Lookup("error").Type()) || named(t) != "" && types.Implements(t, types.Universe.Lookup("error").Type().Underlying().(*types.Interface))
	case catalog.ArgConfig:
		return named(t) == "Config"
	case catalog.ArgHooks:
		return named(t) == "Hooks"
	}
	return false
}
