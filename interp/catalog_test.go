// This file checks the interpreter's handlers of commlib operations
// against commlib's catalog: every operation the interpreter must model has
// a handler, and every handler is an operation of the catalog.

package interp

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/predict-tools/predict/commlib/catalog"
)

// switchCases returns, per function of the package ("compiler.commlib"),
// the string constants of the cases of its switch statements.
func switchCases(t *testing.T) map[string][]string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	out := map[string][]string{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			key := fd.Name.Name
			if fd.Recv != nil {
				rt := fd.Recv.List[0].Type
				if s, ok := rt.(*ast.StarExpr); ok {
					rt = s.X
				}
				if id, ok := rt.(*ast.Ident); ok {
					key = id.Name + "." + key
				}
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				sw, ok := n.(*ast.SwitchStmt)
				if !ok {
					return true
				}
				for _, st := range sw.Body.List {
					for _, e := range st.(*ast.CaseClause).List {
						if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
							s, _ := strconv.Unquote(lit.Value)
							out[key] = append(out[key], s)
						}
					}
				}
				return true
			})
		}
	}
	return out
}

func TestHandlersMatchCatalog(t *testing.T) {
	cases := switchCases(t)
	// The schedules of the collectives are trace.RunSchedule's: trace's
	// TestRunScheduleCoversCatalog checks them.
	for _, fn := range []string{"compiler.commlib", "compiler.threadOp", "compiler.atomicOp", "World.collectiveData"} {
		if len(cases[fn]) == 0 {
			t.Fatalf("interp has no function %s with cases (renamed or moved to another receiver? update this test)", fn)
		}
	}
	handlers := append(slices.Clone(cases["compiler.commlib"]), cases["compiler.threadOp"]...)
	for _, h := range handlers {
		if o, ok := catalog.Lookup(h); !ok || o.Class == catalog.ClassCollective || o.Class == catalog.ClassCommCreate {
			t.Errorf("interp handles %q, which is not an operation of commlib's catalog that it dispatches by name", h)
		}
	}
	atomics := map[string]bool{}
	collectives := map[string]bool{}
	for _, o := range catalog.All() {
		switch o.Class {
		case catalog.ClassTooling, catalog.ClassValue:
			if slices.Contains(handlers, o.Name) {
				t.Errorf("interp handles %s, which the catalog says is outside the model (%s)", o.Name, o.Class)
			}
		case catalog.ClassAtomic:
			_, method, _ := strings.Cut(o.Name, ".")
			atomics[method] = true
			if !slices.Contains(cases["compiler.atomicOp"], method) {
				t.Errorf("atomic operation %s has no case in compiler.atomicOp", o.Name)
			}
		case catalog.ClassCollective, catalog.ClassCommCreate:
			collectives[o.TraceName()] = true
			if _, ok := collSpecs[o.TraceName()]; !ok {
				t.Errorf("collective %s has no collSpec", o.Name)
			}
			if o.Shape != catalog.Barrier && !slices.Contains(cases["World.collectiveData"], o.TraceName()) {
				t.Errorf("collective %s moves no data in World.collectiveData", o.Name)
			}
		default:
			if !slices.Contains(handlers, o.Name) {
				t.Errorf("operation %s (%s) has no handler in compiler.commlib or compiler.threadOp", o.Name, o.Class)
			}
		}
	}
	for _, m := range cases["compiler.atomicOp"] {
		if !atomics[m] {
			t.Errorf("compiler.atomicOp handles %q, a method of no atomic of the catalog", m)
		}
	}
	for _, fn := range []string{"schedule.run", "World.collectiveData"} {
		for _, c := range cases[fn] {
			if !collectives[c] {
				t.Errorf("%s handles %q, which is no collective of the catalog", fn, c)
			}
		}
	}
}
