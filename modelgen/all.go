// This file defines the models of whole libraries: every function of a set
// of packages, for robustness runs and tools that model code without an
// SPMD body.

package modelgen

import (
	"fmt"
	"go/ast"
	"go/types"
	"sort"
	"strings"

	"github.com/predict-tools/predict/model"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
)

// LoadPackages loads every package matching patterns (relative to cfg.Dir)
// with syntax and types and builds their SSA form. Packages with errors are
// skipped and returned as errors beside the result.
func LoadPackages(cfg Config, patterns ...string) (*Loaded, []error, error) {
	var flags []string
	if len(cfg.Tags) > 0 {
		flags = append(flags, "-tags="+strings.Join(cfg.Tags, ","))
	}
	pcfg := &packages.Config{Dir: cfg.Dir, BuildFlags: flags, Mode: packages.LoadSyntax | packages.NeedModule}
	pkgs, err := packages.Load(pcfg, patterns...)
	if err != nil {
		return nil, nil, err
	}
	var errs []error
	var good []*packages.Package
	for _, p := range pkgs {
		if err := packageErrors(p); err != nil {
			errs = append(errs, err)
			continue
		}
		good = append(good, p)
	}
	if len(good) == 0 {
		return nil, errs, fmt.Errorf("no package of %v loaded without errors", patterns)
	}
	prog, ssaPkgs := buildSSA(good)
	if prog == nil {
		return nil, errs, fmt.Errorf("building SSA of %v failed", patterns)
	}
	l := &Loaded{Prog: prog, Names: debugNames(prog), info: map[*types.Package]*types.Info{},
		Syntax: map[*types.Package][]*ast.File{}}
	for i, p := range good {
		l.info[p.Types] = p.TypesInfo
		l.Syntax[p.Types] = p.Syntax
		if ssaPkgs[i] != nil {
			l.Packages = append(l.Packages, ssaPkgs[i])
		}
		if p.Module != nil && l.Module == "" {
			l.Module, l.ModuleDir = p.Module.Path, p.Module.Dir
		}
	}
	sort.Slice(l.Packages, func(i, j int) bool { return l.Packages[i].Pkg.Path() < l.Packages[j].Pkg.Path() })
	l.Main = l.Packages[0]
	return l, errs, nil
}

// Functions returns every function with a body in the loaded packages
// (closures, methods and generic instances included), sorted by name.
func (l *Loaded) Functions() []*ssa.Function {
	var out []*ssa.Function
	for _, p := range l.Packages {
		out = append(out, packageFunctions(p)...)
	}
	return out
}

// BuildFunction builds the model of one function of l alone (the functions
// it calls are not modeled).
func BuildFunction(l *Loaded, fn *ssa.Function) *model.Function {
	b := &builder{l: l, modulePkgs: map[*types.Package]bool{}, ids: map[*ssa.Function]string{},
		queued: map[*ssa.Function]bool{}}
	for _, p := range l.Packages {
		b.modulePkgs[p.Pkg] = true
	}
	return b.function(fn)
}
