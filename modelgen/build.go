// This file defines Build: the program model from the loaded program.

package modelgen

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"strings"

	"github.com/predict-tools/predict/model"
	"golang.org/x/tools/go/ssa"
)

// Options select what Build models.
type Options struct {
	// Func, if set, models the function of the main package with this ID
	// (e.g. "main", "main$1", "(*grid).exchange") and what it reaches,
	// instead of the SPMD body; the package need not be an SPMD program.
	Func string
}

// builder holds what the models of one program share.
type builder struct {
	l          *Loaded
	modulePkgs map[*types.Package]bool
	ids        map[*ssa.Function]string
	queue      []*ssa.Function
	queued     map[*ssa.Function]bool
	funcValues []*ssa.Function // functions used as values, candidates of dynamic calls
	at         token.Pos       // the function being modeled, for modeling limits
}

// funcBuilder builds the model of one function.
type funcBuilder struct {
	b         *builder
	fn        *ssa.Function
	g         *graph
	visited   []bool
	log       []int
	jumps     map[*model.Node]*model.Node // break/continue → its loop
	testBlock map[*model.Node]*ssa.BasicBlock
	loopStmt  map[*model.Node]loopSyntax
	stmtOf    map[*loop]ast.Stmt      // each loop's for or range statement (finish.go)
	index     map[ssa.Instruction]int // instruction → its index in its block
}

// Build builds the model of the SPMD program l (or of one function, see
// Options): the control trees of the SPMD body, of its driver, and of every
// function of the module they reach.
func Build(l *Loaded, opts Options) (*model.Program, error) {
	p, _, err := BuildWithSSA(l, opts)
	return p, err
}

// BuildWithSSA is Build, also returning the SSA function of each function
// model, for the stages that analyse SSA further (reduce).
func BuildWithSSA(l *Loaded, opts Options) (_ *model.Program, _ map[*model.Function]*ssa.Function, err error) {
	b := &builder{l: l, modulePkgs: map[*types.Package]bool{}, ids: map[*ssa.Function]string{},
		queued: map[*ssa.Function]bool{}}
	defer CatchLimit(&err, func() string { return l.PosString(b.at) })
	for _, p := range l.Packages {
		b.modulePkgs[p.Pkg] = true
	}
	prog := &model.Program{Version: model.FormatVersion, Module: l.Module, Package: l.Main.Pkg.Path()}
	if opts.Func != "" {
		var fn *ssa.Function
		var names []string
		for _, f := range packageFunctions(l.Main) {
			id := b.funcID(f)
			if id == opts.Func {
				fn = f
			}
			names = append(names, id)
		}
		if fn == nil {
			return nil, nil, fmt.Errorf("--func %s: package %s has no function with that name; it has: %s",
				opts.Func, l.Main.Pkg.Path(), strings.Join(names, ", "))
		}
		prog.Body = b.funcID(fn)
		b.enqueue(fn)
	} else {
		body, driver, err := l.spmdBody()
		if err != nil {
			return nil, nil, err
		}
		prog.Body, prog.Driver = b.funcID(body), b.funcID(driver)
		b.enqueue(driver)
		b.enqueue(body)
	}
	b.collectFuncValues()
	ssaOf := map[*model.Function]*ssa.Function{}
	for len(b.queue) > 0 {
		fn := b.queue[0]
		b.queue = b.queue[1:]
		b.at = fn.Pos()
		f := b.function(fn)
		ssaOf[f] = fn
		prog.Functions = append(prog.Functions, f)
	}
	slices.SortFunc(prog.Functions, func(x, y *model.Function) int { return strings.Compare(x.ID, y.ID) })
	return prog, ssaOf, nil
}

// enqueue schedules fn for modeling once.
func (b *builder) enqueue(fn *ssa.Function) {
	if !b.queued[fn] && fn.Blocks != nil {
		b.queued[fn] = true
		b.queue = append(b.queue, fn)
	}
}

// function builds the model of fn and schedules the functions it refers to.
func (b *builder) function(fn *ssa.Function) *model.Function {
	fb := &funcBuilder{b: b, fn: fn, jumps: map[*model.Node]*model.Node{},
		testBlock: map[*model.Node]*ssa.BasicBlock{}, loopStmt: map[*model.Node]loopSyntax{},
		stmtOf: map[*loop]ast.Stmt{}}
	f := &model.Function{ID: b.funcID(fn), Name: fn.String()}
	for _, p := range fn.Params {
		f.Params = append(f.Params, p.Name())
	}
	f.Tree = fb.structure(fn.Blocks[0])
	f.Blocks = len(fn.Blocks)
	if fn.Recover != nil {
		f.Recover = fb.structure(fn.Recover)
	}
	// Functions used as values here (closures, method values) may run.
	for _, blk := range fn.Blocks {
		for _, instr := range blk.Instrs {
			var ops []*ssa.Value
			for _, op := range instr.Operands(ops) {
				if op == nil || *op == nil {
					continue
				}
				if g, ok := (*op).(*ssa.Function); ok && b.inModule(g) {
					b.enqueue(g)
				}
			}
		}
	}
	fb.recoverSwitches(f.Tree)
	fb.finish(f.ID, f.Tree)
	if f.Recover != nil {
		fb.recoverSwitches(f.Recover)
		fb.finish(f.ID+"/recover", f.Recover)
	}
	f.Pos = fb.funcRange()
	return f
}

// inModule reports whether fn belongs to a package of the program's module.
func (b *builder) inModule(fn *ssa.Function) bool {
	if o := fn.Origin(); o != nil {
		fn = o
	}
	if fn.Pkg != nil {
		return b.modulePkgs[fn.Pkg.Pkg]
	}
	if obj := fn.Object(); obj != nil && obj.Pkg() != nil {
		return b.modulePkgs[obj.Pkg()]
	}
	return false
}

// IsCommlib reports whether fn is part of the SPMD library.
func IsCommlib(fn *ssa.Function) bool {
	if o := fn.Origin(); o != nil {
		fn = o
	}
	if fn.Pkg != nil {
		return fn.Pkg.Pkg.Path() == CommlibPath
	}
	obj := fn.Object()
	return obj != nil && obj.Pkg() != nil && obj.Pkg().Path() == CommlibPath
}

// funcID names fn relative to the main package, and other packages of the
// module by their path inside it.
func (b *builder) funcID(fn *ssa.Function) string {
	if id, ok := b.ids[fn]; ok {
		return id
	}
	id := fn.RelString(b.l.Main.Pkg)
	id = strings.ReplaceAll(id, b.l.Module+"/", "")
	b.ids[fn] = id
	return id
}

// collectFuncValues finds the module's functions used as values: the
// candidates of calls through function values.
func (b *builder) collectFuncValues() {
	seen := map[*ssa.Function]bool{}
	for _, p := range b.l.Packages {
		for _, fn := range packageFunctions(p) {
			for _, blk := range fn.Blocks {
				for _, instr := range blk.Instrs {
					if _, isCall := instr.(ssa.CallInstruction); isCall {
						// The callee position of a static call is not a use as a value.
						cc := instr.(ssa.CallInstruction).Common()
						for _, a := range cc.Args {
							if g := FunctionOf(a); g != nil && !seen[g] {
								seen[g] = true
								b.funcValues = append(b.funcValues, g)
							}
						}
						continue
					}
					var ops []*ssa.Value
					for _, op := range instr.Operands(ops) {
						if op != nil && *op != nil {
							if g := FunctionOf(*op); g != nil && !seen[g] {
								seen[g] = true
								b.funcValues = append(b.funcValues, g)
							}
						}
					}
				}
			}
		}
	}
	slices.SortFunc(b.funcValues, func(x, y *ssa.Function) int { return strings.Compare(x.String(), y.String()) })
}

// candidates returns the functions a dynamic call may reach: for an
// interface method, the methods of the module's types that implement the
// interface; for a function value, the functions used as values with the
// same signature.
func (b *builder) candidates(cc *ssa.CallCommon) []*ssa.Function {
	var out []*ssa.Function
	if cc.IsInvoke() {
		pkgs := b.l.Packages
		if cl := b.l.Prog.ImportedPackage(CommlibPath); cl != nil && !slices.Contains(pkgs, cl) {
			// commlib's types too: a *Comm in an interface communicates.
			pkgs = append(slices.Clip(pkgs), cl)
		}
		return implementers(b.l.Prog, pkgs, cc)
	}
	sig, _ := cc.Value.Type().Underlying().(*types.Signature)
	for _, fn := range b.funcValues {
		if sig != nil && types.Identical(fn.Signature, sig) {
			out = append(out, fn)
		}
	}
	return out
}

func (b *builder) pos(p token.Pos) model.Pos { return b.l.Pos(p) }

// Pos converts a token position of the loaded program to a model position,
// with the file relative to the module root when it is inside it. Every
// stage uses it, so that positions match across models, reports, profiles.
func (l *Loaded) Pos(p token.Pos) model.Pos {
	if !p.IsValid() {
		return model.Pos{}
	}
	tp := l.Prog.Fset.Position(p)
	file := tp.Filename
	if rel, err := filepath.Rel(l.ModuleDir, file); err == nil && !strings.HasPrefix(rel, "..") {
		file = filepath.ToSlash(rel)
	}
	return model.Pos{File: file, Line: tp.Line, Col: tp.Column}
}

// funcRange is the source range of the function being built.
func (fb *funcBuilder) funcRange() model.Range {
	var r model.Range
	if syn := fb.fn.Syntax(); syn != nil {
		r.Extend(fb.b.pos(syn.Pos()))
		r.Extend(fb.b.pos(syn.End() - 1))
	} else {
		r.Extend(fb.b.pos(fb.fn.Pos()))
	}
	return r
}

// CommlibMethods returns the methods of commlib's types that an interface
// call cc may reach (a *commlib.Comm held in an interface of the
// program's), or nil.
func CommlibMethods(prog *ssa.Program, cc *ssa.CallCommon) []*ssa.Function {
	pkg := prog.ImportedPackage(CommlibPath)
	if pkg == nil {
		return nil
	}
	return implementers(prog, []*ssa.Package{pkg}, cc)
}

// implementers returns the methods that interface call cc may reach among
// the types of pkgs (not generic ones): per type T, T's or *T's.
func implementers(prog *ssa.Program, pkgs []*ssa.Package, cc *ssa.CallCommon) []*ssa.Function {
	iface, _ := cc.Value.Type().Underlying().(*types.Interface)
	if !cc.IsInvoke() || iface == nil {
		return nil
	}
	var out []*ssa.Function
	for _, p := range pkgs {
		for _, m := range p.Members {
			t, ok := m.(*ssa.Type)
			if !ok {
				continue
			}
			if n, ok := t.Type().(*types.Named); ok && n.TypeParams().Len() > 0 {
				continue
			}
			for _, rt := range []types.Type{t.Type(), types.NewPointer(t.Type())} {
				if !types.Implements(rt, iface) {
					continue
				}
				if sel := prog.MethodSets.MethodSet(rt).Lookup(cc.Method.Pkg(), cc.Method.Name()); sel != nil {
					if fn := prog.MethodValue(sel); fn != nil {
						out = append(out, fn)
					}
				}
				break
			}
		}
	}
	// Members is a map: sorted, the order is the same every run.
	slices.SortFunc(out, func(a, b *ssa.Function) int { return strings.Compare(a.String(), b.String()) })
	return out
}
