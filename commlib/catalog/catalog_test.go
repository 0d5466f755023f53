// This file tests the catalog against the real commlib package: every
// exported function and method has an entry, every entry a function, with
// one role per parameter of a type that fits the role.

package catalog

import (
	"go/types"
	"slices"
	"testing"

	"golang.org/x/tools/go/packages"
)

// commlibFuncs loads commlib and returns its exported functions and
// methods by catalog name.
func commlibFuncs(t *testing.T) map[string]*types.Func {
	t.Helper()
	pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedName | packages.NeedTypes}, Path)
	if err != nil {
		t.Fatal(err)
	}
	if packages.PrintErrors(pkgs) > 0 || len(pkgs) != 1 {
		t.Fatalf("loading %s failed", Path)
	}
	funcs := map[string]*types.Func{}
	scope := pkgs[0].Types.Scope()
	for _, name := range scope.Names() {
		switch obj := scope.Lookup(name).(type) {
		case *types.Func:
			if obj.Exported() {
				funcs[NameOf("", obj.Name())] = obj
			}
		case *types.TypeName:
			named, ok := obj.Type().(*types.Named)
			if !ok || !obj.Exported() {
				continue
			}
			for m := range named.Methods() {
				if m.Exported() {
					funcs[NameOf(obj.Name(), m.Name())] = m
				}
			}
		}
	}
	if len(funcs) == 0 {
		t.Fatalf("no exported functions in %s", Path)
	}
	return funcs
}

func TestCatalogIsCommlib(t *testing.T) {
	funcs := commlibFuncs(t)
	for name := range funcs {
		if _, ok := Lookup(name); !ok {
			t.Errorf("commlib.%s is not in the catalog (ops.go): give it an entry", name)
		}
	}
	for _, o := range All() {
		fn := funcs[o.Name]
		if fn == nil {
			t.Errorf("catalog entry %s names no exported function of commlib (renamed or removed?)", o.Name)
			continue
		}
		sig := fn.Type().(*types.Signature)
		var params []*types.Var
		if sig.Recv() != nil {
			params = append(params, sig.Recv())
		}
		for p := range sig.Params().Variables() {
			params = append(params, p)
		}
		if len(o.Args) != len(params) {
			t.Errorf("%s: %d roles for %d arguments (receiver included)", o.Name, len(o.Args), len(params))
			continue
		}
		for i, r := range o.Args {
			if !fits(r, params[i].Type()) {
				t.Errorf("%s: argument %d (%s %s) does not fit role %d", o.Name, i, params[i].Name(), params[i].Type(), r)
			}
		}
	}
}

// fits reports whether an argument of type t can play role r.
func fits(r Role, t types.Type) bool {
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
	case ArgComm, ArgCaller:
		return named(t) == "Comm"
	case ArgSendBuf, ArgRecvBuf, ArgBuf:
		return types.IsInterface(t) // any: a slice of numbers or bytes
	case ArgPeer, ArgTag, ArgRoot, ArgColor, ArgKey, ArgRank, ArgDim, ArgDisp, ArgCount, ArgDefault:
		return basic(t, types.Int)
	case ArgReduction:
		return named(t) == "Op"
	case ArgRequest:
		return named(t) == "Request"
	case ArgRequests:
		e := slice(t)
		return e != nil && named(e) == "Request"
	case ArgCounts, ArgDispls, ArgDims, ArgCoords:
		e := slice(t)
		return e != nil && basic(e, types.Int)
	case ArgPeriods:
		e := slice(t)
		return e != nil && basic(e, types.Bool)
	case ArgFunc:
		_, ok := t.Underlying().(*types.Signature)
		return ok
	case ArgObject:
		return slices.Contains([]string{"Pool", "Mutex", "Semaphore", "Barrier"}, named(t))
	case ArgCell:
		return named(t) == "AtomicInt" || named(t) == "AtomicFloat"
	case ArgValue:
		return basic(t.Underlying(), types.Int64) || basic(t.Underlying(), types.Float64) || basic(t.Underlying(), types.Int)
	case ArgError:
		return types.Identical(t, types.Universe.Lookup("error").Type()) || named(t) != "" && types.Implements(t, types.Universe.Lookup("error").Type().Underlying().(*types.Interface))
	case ArgConfig:
		return named(t) == "Config"
	case ArgHooks:
		return named(t) == "Hooks"
	}
	return false
}

func TestEntries(t *testing.T) {
	seen, traced := map[string]bool{}, map[string]string{}
	var paraver []int
	for _, o := range All() {
		if seen[o.Name] {
			t.Errorf("%s: two entries", o.Name)
		}
		seen[o.Name] = true
		if other, ok := traced[o.TraceName()]; ok {
			t.Errorf("%s and %s have the same trace name %q", o.Name, other, o.TraceName())
		}
		traced[o.TraceName()] = o.Name
		if o.Class == 0 || o.Class.String() == "class?" {
			t.Errorf("%s: no class", o.Name)
		}
		for i, r := range o.Args {
			if r == 0 || r >= numRoles {
				t.Errorf("%s: argument %d has no role", o.Name, i)
			}
		}
		sends := o.Class == ClassSend || o.Class == ClassSendrecv
		if sends != (o.Protocol != "") || o.Protocol != "" && !slices.Contains(Protocols, o.Protocol) {
			t.Errorf("%s (%s): protocol %q", o.Name, o.Class, o.Protocol)
		}
		if (o.Class == ClassCollective) != (o.Shape != 0) {
			t.Errorf("%s (%s): shape %d", o.Name, o.Class, o.Shape)
		}
		if o.Class == ClassCollective && o.Shape != Barrier && o.Contribution() < 0 {
			t.Errorf("%s: a collective with data but no contribution buffer", o.Name)
		}
		if o.Paraver > 0 {
			paraver = append(paraver, o.Paraver)
		}
	}
	slices.Sort(paraver)
	for i, v := range paraver {
		if v != i+1 {
			t.Fatalf("Paraver values %v: want 1, 2, ... with no gap or repeat", paraver)
		}
	}
}

// TestExamples pins a few entries by hand, as the stages read them.
func TestExamples(t *testing.T) {
	scatter, _ := Lookup("Comm.Scatterv")
	if scatter.Contribution() != 4 || scatter.Arg(ArgRoot) != 5 || scatter.TraceName() != "Scatterv" {
		t.Errorf("Scatterv: contribution %d, root %d, trace name %q", scatter.Contribution(), scatter.Arg(ArgRoot), scatter.TraceName())
	}
	bcast, _ := Lookup("Comm.Bcast")
	if bcast.Contribution() != 1 || bcast.Shape != OneToAll {
		t.Errorf("Bcast: contribution %d, shape %d", bcast.Contribution(), bcast.Shape)
	}
	issend, ok := ByTraceName("Issend")
	if !ok || issend.Name != "Comm.Issend" || issend.Blocking || issend.Protocol != Sync {
		t.Errorf("Issend: %+v", issend)
	}
	if o, ok := ByTraceName("Pool.SetTask"); !ok || !o.Class.Thread() {
		t.Errorf("Pool.SetTask: %+v", o)
	}
	if _, ok := ByTraceName("compute"); ok {
		t.Errorf("compute is not a commlib operation")
	}
}
