// This file defines loading: packages of the program's module with syntax
// and types, their SSA form, and the SPMD body.

package modelgen

import (
	"fmt"
	"go/ast"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/predict-tools/predict/commlib/catalog"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

// CommlibPath is the import path of the SPMD library.
const CommlibPath = catalog.Path

// Config says what to load.
type Config struct {
	Dir     string   // directory the pattern is relative to ("" is the current one)
	Pattern string   // the main package, e.g. "./testprogs/stencil"
	Tags    []string // build tags
}

// Loaded is a program in SSA form with what modelgen needs to know about it.
type Loaded struct {
	Prog      *ssa.Program
	Main      *ssa.Package   // the package the pattern names
	Packages  []*ssa.Package // every package of the main package's module it imports, and itself
	Module    string         // module path
	ModuleDir string
	// Names are the source names of SSA values (variables), where known.
	Names map[ssa.Value]string
	// Syntax holds the parsed files of each loaded package.
	Syntax map[*types.Package][]*ast.File
	info   map[*types.Package]*types.Info
}

// TypesInfo returns the type information of a loaded package, or nil.
func (l *Loaded) TypesInfo(pkg *types.Package) *types.Info { return l.info[pkg] }

// loadFrom returns where to run the go command and the pattern to give
// it: a pattern that names a directory (./app, ../other/app, /abs/app) is
// loaded from inside that directory, so that it resolves in its own module
// whatever the current directory's module (or none).
func loadFrom(dir, pattern string) (string, string) {
	local := pattern == "." || pattern == ".." || filepath.IsAbs(pattern) ||
		strings.HasPrefix(pattern, "./") || strings.HasPrefix(pattern, "../")
	if !local || strings.Contains(pattern, "...") {
		return dir, pattern
	}
	path := pattern
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, pattern)
	}
	if st, err := os.Stat(path); err != nil || !st.IsDir() {
		return dir, pattern
	}
	return path, "."
}

// Load loads the package named by cfg.Pattern and every package of its
// module that it imports (directly or not), builds their SSA form (generic
// instances included) and returns them. Errors in the sources are
// reported with file:line.
func Load(cfg Config) (*Loaded, error) {
	if cfg.Pattern == "" {
		return nil, fmt.Errorf("no package given")
	}
	flags := []string{}
	if len(cfg.Tags) > 0 {
		flags = append(flags, "-tags="+strings.Join(cfg.Tags, ","))
	}
	dir, pattern := loadFrom(cfg.Dir, cfg.Pattern)
	// First the import graph (cheap, no syntax), to find the module's packages.
	graphCfg := &packages.Config{Dir: dir, BuildFlags: flags,
		Mode: packages.NeedName | packages.NeedImports | packages.NeedDeps | packages.NeedModule}
	roots, err := packages.Load(graphCfg, pattern)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %v", cfg.Pattern, err)
	}
	if len(roots) != 1 {
		return nil, fmt.Errorf("%s: names %d packages, want one main package", cfg.Pattern, len(roots))
	}
	root := roots[0]
	if err := packageErrors(root); err != nil {
		return nil, err
	}
	switch {
	case root.PkgPath == CommlibPath:
		return nil, fmt.Errorf("%s is commlib, the SPMD library itself: model a program that uses it", cfg.Pattern)
	case root.Name != "main":
		return nil, fmt.Errorf("%s: package %s is not a main package (want an SPMD program: package main calling commlib.Main)",
			cfg.Pattern, root.Name)
	}
	if root.Module == nil {
		return nil, fmt.Errorf("%s: not in a module (predict models module-aware programs)", cfg.Pattern)
	}
	module := root.Module.Path
	var paths []string
	seen := map[string]bool{}
	var walk func(p *packages.Package)
	walk = func(p *packages.Package) {
		if seen[p.PkgPath] {
			return
		}
		seen[p.PkgPath] = true
		if p.Module != nil && p.Module.Path == module && p.PkgPath != CommlibPath {
			paths = append(paths, p.PkgPath)
		}
		for _, q := range p.Imports {
			walk(q)
		}
	}
	walk(root)
	sort.Strings(paths)

	// Then syntax and types for those packages; the rest comes from export data.
	syntaxCfg := &packages.Config{Dir: dir, BuildFlags: flags, Mode: packages.LoadSyntax | packages.NeedModule}
	pkgs, err := packages.Load(syntaxCfg, paths...)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %v", cfg.Pattern, err)
	}
	for _, p := range pkgs {
		if err := packageErrors(p); err != nil {
			return nil, err
		}
	}
	prog, ssaPkgs := buildSSA(pkgs)
	if prog == nil {
		return nil, fmt.Errorf("%s: building SSA failed", cfg.Pattern)
	}
	l := &Loaded{Prog: prog, Module: module, ModuleDir: root.Module.Dir, Names: debugNames(prog),
		info: map[*types.Package]*types.Info{}}
	l.Syntax = map[*types.Package][]*ast.File{}
	for _, p := range pkgs {
		l.info[p.Types] = p.TypesInfo
		l.Syntax[p.Types] = p.Syntax
	}
	for i, p := range ssaPkgs {
		if p == nil {
			return nil, fmt.Errorf("%s: package %s has type errors", cfg.Pattern, pkgs[i].PkgPath)
		}
		l.Packages = append(l.Packages, p)
		if pkgs[i].PkgPath == root.PkgPath {
			l.Main = p
		}
	}
	if l.Main == nil {
		return nil, fmt.Errorf("%s: package %s was not loaded", cfg.Pattern, root.PkgPath)
	}
	return l, nil
}

// buildSSA builds the SSA form, turning a panic of the SSA builder (it has
// known bugs with some generic code) into an error.
func buildSSA(pkgs []*packages.Package) (prog *ssa.Program, ssaPkgs []*ssa.Package) {
	defer func() {
		if r := recover(); r != nil {
			prog, ssaPkgs = nil, nil
		}
	}()
	prog, ssaPkgs = ssautil.Packages(pkgs, ssa.InstantiateGenerics|ssa.GlobalDebug)
	prog.Build()
	return prog, ssaPkgs
}

// debugNames collects the source names of SSA values from the debug
// references the builder emitted, then removes those references, so that
// the blocks hold only the instructions the program executes.
func debugNames(prog *ssa.Program) map[ssa.Value]string {
	names := map[ssa.Value]string{}
	for fn := range ssautil.AllFunctions(prog) {
		for _, b := range fn.Blocks {
			kept := b.Instrs[:0]
			for _, instr := range b.Instrs {
				d, ok := instr.(*ssa.DebugRef)
				if !ok {
					kept = append(kept, instr)
					continue
				}
				if id, ok := d.Expr.(*ast.Ident); ok && names[d.X] == "" {
					if _, isVar := d.Object().(*types.Var); isVar {
						names[d.X] = id.Name
					}
				}
				if refs := d.X.Referrers(); refs != nil {
					*refs = slices.DeleteFunc(*refs, func(r ssa.Instruction) bool { return r == d })
				}
			}
			clear(b.Instrs[len(kept):])
			b.Instrs = kept
		}
	}
	return names
}

// packageErrors returns the errors of a loaded package, with positions.
func packageErrors(p *packages.Package) error {
	if len(p.Errors) == 0 {
		return nil
	}
	// go list repeats the compiler's errors: prefer parse and type errors.
	precise := slices.ContainsFunc(p.Errors, func(e packages.Error) bool { return e.Kind != packages.ListError })
	var msgs []string
	for _, e := range p.Errors {
		if precise && e.Kind == packages.ListError {
			continue
		}
		msg := e.Msg
		if e.Pos != "" && e.Pos != "-" {
			msg = e.Pos + ": " + e.Msg
		}
		if !slices.Contains(msgs, msg) {
			msgs = append(msgs, msg)
		}
	}
	if len(msgs) > 10 {
		msgs = append(msgs[:10], fmt.Sprintf("(and %d more)", len(msgs)-10))
	}
	return fmt.Errorf("package %s:\n\t%s", p.PkgPath, strings.Join(msgs, "\n\t"))
}

// spmdBody finds the calls of commlib.Main, Run or RunWith in the main
// package and returns the function passed as the body and the function
// making the call.
func (l *Loaded) spmdBody() (body, driver *ssa.Function, err error) {
	var found []string
	for _, fn := range packageFunctions(l.Main) {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				call, ok := instr.(*ssa.Call)
				if !ok {
					continue
				}
				callee := call.Common().StaticCallee()
				if callee == nil || callee.Pkg == nil || callee.Pkg.Pkg.Path() != CommlibPath {
					continue
				}
				arg := -1
				switch callee.Name() {
				case "Main":
					arg = 0
				case "Run", "RunWith":
					arg = 1
				}
				if arg < 0 {
					continue
				}
				f := FunctionOf(call.Call.Args[arg])
				if f == nil {
					return nil, nil, fmt.Errorf("%s: the body passed to commlib.%s is not a function literal or a named function",
						l.Prog.Fset.Position(call.Pos()), callee.Name())
				}
				if body == nil {
					body, driver = f, fn
				}
				found = append(found, l.Prog.Fset.Position(call.Pos()).String())
			}
		}
	}
	if body == nil {
		return nil, nil, fmt.Errorf("package %s calls neither commlib.Main nor commlib.Run: not an SPMD program (use --func to model one function)",
			l.Main.Pkg.Path())
	}
	if len(found) > 1 {
		return nil, nil, fmt.Errorf("package %s starts SPMD runs at %d places (%s): want one", l.Main.Pkg.Path(), len(found),
			strings.Join(found, ", "))
	}
	return body, driver, nil
}

// FunctionOf returns the function a value denotes: a function, a closure,
// or a bound method, or nil.
func FunctionOf(v ssa.Value) *ssa.Function {
	switch v := v.(type) {
	case *ssa.Function:
		return v
	case *ssa.MakeClosure:
		return v.Fn.(*ssa.Function)
	case *ssa.ChangeType:
		return FunctionOf(v.X)
	}
	return nil
}

// packageFunctions returns the functions of a package that have bodies,
// closures and methods included, sorted by name.
func packageFunctions(p *ssa.Package) []*ssa.Function {
	var out []*ssa.Function
	seen := map[*ssa.Function]bool{}
	var add func(fn *ssa.Function)
	add = func(fn *ssa.Function) {
		if fn == nil || seen[fn] {
			return
		}
		seen[fn] = true
		if fn.Blocks != nil {
			out = append(out, fn)
		}
		for _, a := range fn.AnonFuncs {
			add(a)
		}
	}
	for _, m := range p.Members {
		switch m := m.(type) {
		case *ssa.Function:
			add(m)
		case *ssa.Type:
			for _, t := range []types.Type{m.Type(), types.NewPointer(m.Type())} {
				ms := p.Prog.MethodSets.MethodSet(t)
				for i := range ms.Len() {
					if fn := p.Prog.MethodValue(ms.At(i)); fn != nil && fn.Pkg == p {
						add(fn)
					}
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}
