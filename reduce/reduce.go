// This file defines Reduce, its options and the state of the analysis.

package reduce

import (
	"fmt"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"github.com/predict-tools/predict/model"
	"github.com/predict-tools/predict/modelgen"
	"golang.org/x/tools/go/ssa"
)

// Options control the reduction.
type Options struct {
	// Exact keeps every value the control decisions depend on, bulk data,
	// random numbers and all: nothing is opaque (direct execution).
	Exact bool
}

// analysis is the state of one reduction.
type analysis struct {
	opts     Options
	loaded   *modelgen.Loaded
	fset     *token.FileSet
	fns      []*ssa.Function
	at       token.Pos // what is being analysed, for modeling limits
	analyzed map[*ssa.Function]bool
	modelOf  map[*ssa.Function]*model.Function
	ssaOf    map[*model.Function]*ssa.Function
	callees  map[ssa.CallInstruction][]*ssa.Function
	callers  map[*ssa.Function][]ssa.CallInstruction
	closures map[*ssa.Function][]*ssa.MakeClosure
	asValues []*ssa.Function // valueFuncs, once computed

	objects  map[ssa.Value]*object
	pts      map[ssa.Value]locSet
	contents map[loc]locSet
	results  map[*ssa.Function]*resultValue
	writers  map[loc][]ssa.Instruction
	// locsOf holds, per object, the sorted paths of its locations that
	// some value designates.
	locsOf map[*object][]string

	taint    map[ssa.Value]string
	taintLoc map[loc]string
	resTaint map[*ssa.Function][]string // taint of each result of a function

	ctl        map[ssa.Value]bool
	ctlLoc     map[loc]bool
	ctlParams  map[*ssa.Function]map[int]bool
	ctlResults map[*ssa.Function]map[int]bool
	keepCalls  map[ssa.Instruction]bool // calls outside the module kept for their effect on control memory
	work       []ssa.Value
	workLoc    []loc

	// msgTaint is the taint of the data messages carry: per collective
	// operation (by name), what its calls send, which is what its members
	// receive; under "", what every point-to-point send sends, which any
	// point-to-point receive may take
	msgTaint map[string]string

	opaque    map[ssa.Value]string   // tainted roots: branch conditions and communication arguments
	comm      map[string]string      // the functions that communicate, and how (communicates)
	induction map[*model.Node]string // a counted loop's induction variable
	counted   map[*model.Node]*Induction
	checks    map[*ssa.If]string // checks: the outcome that goes on
	checkWhy  map[*ssa.If]string
	roots     map[ssa.Value]string // why a value is a root
	// opaqueArgs are the communication arguments among the opaque
	// roots, per call (opaqueargs.go).
	opaqueArgs map[ssa.CallInstruction][]OpaqueArg
	// trying is set while a trial (checks.go) marks values, trialFailed
	// when that reached opaque data or message contents.
	trying, trialFailed bool
	// sealed maps the blocks of each sealed loop to it (seal.go).
	sealed      map[*ssa.BasicBlock]*sealedLoop
	sealedLoops []*sealedLoop
	// sealedFn maps the functions of each sealed recursion to it
	// (sealcall.go).
	sealedFn    map[*ssa.Function]*sealedRec
	sealedSites map[*ssa.Call]*sealedRec
	sealedRecs  []*sealedRec
	// commlibConverted are the commlib types converted to interfaces in
	// the model (sealdyn.go), once computed.
	commlibConverted []types.Type
	// shapes are the allocations kept as shapes (apply.go).
	shapes map[ssa.Value]bool
}

// Reduce analyses the program whose model prog was built by
// modelgen.BuildWithSSA (ssaOf maps each function model to its SSA
// function), writes the reduction into the model and returns its report.
func Reduce(l *modelgen.Loaded, prog *model.Program, ssaOf map[*model.Function]*ssa.Function, opts Options) (_ *Report, err error) {
	a := &analysis{
		opts: opts, loaded: l, fset: l.Prog.Fset,
		analyzed: map[*ssa.Function]bool{}, modelOf: map[*ssa.Function]*model.Function{}, ssaOf: ssaOf,
		callees: map[ssa.CallInstruction][]*ssa.Function{}, callers: map[*ssa.Function][]ssa.CallInstruction{},
		closures: map[*ssa.Function][]*ssa.MakeClosure{},
		objects:  map[ssa.Value]*object{}, pts: map[ssa.Value]locSet{}, contents: map[loc]locSet{},
		locsOf: map[*object][]string{}, results: map[*ssa.Function]*resultValue{},
		taint: map[ssa.Value]string{}, taintLoc: map[loc]string{}, resTaint: map[*ssa.Function][]string{}, msgTaint: map[string]string{},
		ctl: map[ssa.Value]bool{}, ctlLoc: map[loc]bool{}, ctlParams: map[*ssa.Function]map[int]bool{},
		ctlResults: map[*ssa.Function]map[int]bool{}, keepCalls: map[ssa.Instruction]bool{},
		opaque: map[ssa.Value]string{}, roots: map[ssa.Value]string{}, induction: map[*model.Node]string{}, counted: map[*model.Node]*Induction{},
		checks: map[*ssa.If]string{}, checkWhy: map[*ssa.If]string{},
	}
	for _, f := range prog.Functions {
		fn := ssaOf[f]
		if fn == nil {
			return nil, fmt.Errorf("reduce: no SSA form for function %s", f.ID)
		}
		a.fns = append(a.fns, fn)
		a.analyzed[fn] = true
		a.modelOf[fn] = f
	}
	slices.SortFunc(a.fns, func(x, y *ssa.Function) int { return strings.Compare(x.String(), y.String()) })
	defer modelgen.CatchLimit(&err, func() string { return l.PosString(a.at) })
	a.linkCalls(prog)
	a.pointsTo()
	if !opts.Exact {
		// Implicit flows taint values the taint pass then carries on,
		// which may make more decisions opaque.
		for a.taintPass(); a.implicitExits(prog); {
			a.taintPass()
		}
	}
	a.control(prog)
	rep := a.apply(prog)
	rep.Plan = a.buildPlan(prog)
	rep.addVerdicts()
	return rep, nil
}

// linkCalls records, from the model's call leaves, which functions each
// call instruction may reach, and the closures made of each function.
func (a *analysis) linkCalls(prog *model.Program) {
	byID := map[string]*ssa.Function{}
	for _, f := range prog.Functions {
		byID[f.ID] = a.ssaOf[f]
	}
	for _, f := range prog.Functions {
		fn := a.ssaOf[f]
		for _, tree := range []*model.Node{f.Tree, f.Recover} {
			model.Walk(tree, func(n *model.Node) bool {
				lf := n.Leaf
				if lf == nil || (lf.Kind != model.LeafUFC && lf.Kind != model.LeafSpawn && lf.Kind != model.LeafDefer) {
					return true
				}
				call, ok := fn.Blocks[lf.Block].Instrs[lf.First].(ssa.CallInstruction)
				if !ok {
					return true
				}
				names := lf.Targets
				if !lf.Dynamic {
					names = []string{lf.Callee}
				}
				for _, name := range names {
					if t := byID[name]; t != nil {
						a.callees[call] = append(a.callees[call], t)
						a.callers[t] = append(a.callers[t], call)
					}
				}
				return true
			})
		}
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				if mc, ok := instr.(*ssa.MakeClosure); ok {
					if g, ok := mc.Fn.(*ssa.Function); ok {
						a.closures[g] = append(a.closures[g], mc)
					}
				}
			}
		}
	}
}

// where prints a position as file:line relative to the module.
func (a *analysis) where(p token.Pos) string {
	if !p.IsValid() {
		return "?"
	}
	pos := a.loaded.Pos(p)
	return fmt.Sprintf("%s:%d", pos.File, pos.Line)
}

// describe names a value for reports: an allocation as the Go expression
// that made it, a named variable by its name, others by register.
func (a *analysis) describe(v ssa.Value) string {
	switch v := v.(type) {
	case *ssa.MakeSlice:
		return fmt.Sprintf("make(%s, %s) at %s", v.Type(), a.expr(v.Len, 2), a.where(v.Pos()))
	case *ssa.MakeMap:
		return fmt.Sprintf("make(%s) at %s", v.Type(), a.where(v.Pos()))
	case *ssa.MakeChan:
		return fmt.Sprintf("make(%s) at %s", v.Type(), a.where(v.Pos()))
	case *ssa.Alloc:
		elem := v.Type().(*types.Pointer).Elem()
		var name string
		switch v.Comment {
		case "makeslice":
			if arr, ok := elem.Underlying().(*types.Array); ok {
				name = fmt.Sprintf("make([]%s, %d)", arr.Elem(), arr.Len())
			}
		case "slicelit":
			name = "a slice literal"
		case "complit":
			name = "a composite literal of " + elem.String()
		case "new", "":
			name = "new(" + elem.String() + ")"
		default:
			name = "variable " + v.Comment
		}
		if name == "" {
			name = v.Comment
		}
		return fmt.Sprintf("%s at %s", name, a.where(v.Pos()))
	case *ssa.Global:
		return "global " + v.Name()
	}
	return v.Name()
}

// callName names the function a call calls.
func (a *analysis) callName(cc *ssa.CallCommon) string {
	if f := cc.StaticCallee(); f != nil {
		return f.String()
	}
	if cc.IsInvoke() {
		return cc.Method.FullName()
	}
	return cc.Value.Name()
}
