// This file defines the program's own checks: branches one side of which
// ends the run (Comm.Abort, panic, os.Exit, log.Fatal), which of them the
// model evaluates, and the messages the run ends with.

package reduce

import (
	"go/token"
	"maps"
	"slices"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// ends reports what ends the run on the path from s (Comm.Abort, panic,
// os.Exit or log.Fatal*, within a few single-successor blocks), the
// instruction that ends it, and the blocks of the path up to it.
func ends(s *ssa.BasicBlock) (how string, at ssa.Instruction, path []*ssa.BasicBlock) {
	for range 4 {
		path = append(path, s)
		for _, instr := range s.Instrs {
			if how := endsRun(instr); how != "" {
				return how, instr, path
			}
		}
		if len(s.Succs) != 1 {
			return "", nil, nil
		}
		s = s.Succs[0]
	}
	return "", nil, nil
}

// endsRun says how instr ends the run ("" if it does not).
func endsRun(instr ssa.Instruction) string {
	switch in := instr.(type) {
	case *ssa.Panic:
		return "panic"
	case ssa.CallInstruction:
		f := in.Common().StaticCallee()
		switch {
		case f == nil:
		case isCommlib(f) && opName(f) == "Comm.Abort":
			return "Comm.Abort"
		case f.Pkg != nil && f.Pkg.Pkg.Path() == "os" && f.Name() == "Exit",
			f.Pkg != nil && f.Pkg.Pkg.Path() == "log" && strings.HasPrefix(f.Name(), "Fatal"):
			return f.Pkg.Pkg.Path() + "." + f.Name()
		}
	}
	return ""
}

// message is what instr, which ends the run, reports: the error of
// Comm.Abort, the value of panic, the status of os.Exit, the arguments of
// log.Fatal.
func message(instr ssa.Instruction) []ssa.Value {
	switch in := instr.(type) {
	case *ssa.Panic:
		return []ssa.Value{in.X}
	case ssa.CallInstruction:
		args := in.Common().Args
		if f := in.Common().StaticCallee(); f != nil && isCommlib(f) && len(args) > 1 {
			return args[1:] // after the communicator
		}
		return args
	}
	return nil
}

// check reports whether the branch ending b is a check: one successor
// ends the run before any other branch and the other does not. It returns
// the outcome that goes on ("true" or "false") and what ends the run.
func (a *analysis) check(b *ssa.BasicBlock) (pass, end string) {
	t, _, _ := ends(b.Succs[0])
	f, _, _ := ends(b.Succs[1])
	switch {
	case t != "" && f == "":
		return "false", t
	case f != "" && t == "":
		return "true", f
	}
	return "", ""
}

// settleChecks decides which checks the model evaluates. findRoots keeps
// as checks the branches on a parameter (a Verify(ok) helper's) and on
// opaque data. A check of a parameter is evaluated when what every caller
// passes is computed from control values (the process count, the rank,
// the program's arguments, constants) by plain arithmetic: evaluating it
// then costs nothing and cannot be wrong where the model is right. Checks
// of data (a verification of results, a test of this machine's memory)
// stay assumed to pass, and the reduced model says so (Node.Opaque).
func (a *analysis) settleChecks() {
	for _, fn := range a.fns {
		for _, b := range fn.Blocks {
			if len(b.Instrs) == 0 {
				continue
			}
			iff, ok := b.Instrs[len(b.Instrs)-1].(*ssa.If)
			if !ok || a.checks[iff] == "" {
				continue
			}
			if _, isParam := iff.Cond.(*ssa.Parameter); isParam && a.fromControl(iff.Cond, map[ssa.Value]bool{}) {
				delete(a.checks, iff)
				delete(a.checkWhy, iff)
				a.root(iff.Cond, "a check of the program on control values")
				a.closure()
			}
		}
	}
}

// fromControl reports whether v is computed from values that are control
// already, constants and the rank and size of communicators, by
// arithmetic, comparisons and conversions; a parameter, when every caller
// passes such a value. seen breaks cycles (a φ of a loop is computed from
// control values when its other edges are).
func (a *analysis) fromControl(v ssa.Value, seen map[ssa.Value]bool) bool {
	if a.ctl[v] || seen[v] {
		return true
	}
	if a.taint[v] != "" {
		return false
	}
	seen[v] = true
	all := func(vs ...ssa.Value) bool {
		for _, x := range vs {
			if !a.fromControl(x, seen) {
				return false
			}
		}
		return true
	}
	switch v := v.(type) {
	case *ssa.Const, *ssa.Global:
		return true // a global is an address: loads of it are checked below
	case *ssa.Parameter:
		fn, idx := v.Parent(), slices.Index(v.Parent().Params, v)
		if idx < 0 || len(a.callers[fn]) == 0 {
			return false
		}
		for _, call := range a.callers[fn] {
			cc := call.Common()
			args := cc.Args
			if cc.IsInvoke() {
				args = append([]ssa.Value{cc.Value}, args...)
			}
			if idx >= len(args) || !a.fromControl(args[idx], seen) {
				return false
			}
		}
		return true
	case *ssa.BinOp:
		return all(v.X, v.Y)
	case *ssa.UnOp:
		switch v.Op {
		case token.ARROW:
			return false
		case token.MUL:
			// A load of a variable (a flag's value, a global) that only
			// ever holds such values.
			if !all(v.X) {
				return false
			}
			for l := range a.pts[v.X] {
				if !a.ctlLoc[l] && !a.storesFromControl(l, seen) {
					return false
				}
			}
			return true
		}
		return all(v.X)
	case *ssa.Convert:
		return all(v.X)
	case *ssa.ChangeType:
		return all(v.X)
	case *ssa.Phi:
		return all(v.Edges...)
	case *ssa.Call:
		f := v.Call.StaticCallee()
		switch {
		case f == nil:
		case f.Pkg != nil && f.Pkg.Pkg.Path() == "flag":
			return all(v.Call.Args...) // the program's arguments: the model has them
		case isCommlib(f):
			switch opName(f) {
			case "Comm.Rank", "Comm.Size", "Comm.WorldRank":
				return all(v.Call.Args...)
			}
		}
	}
	return false
}

// storesFromControl reports whether every write of the data at l stores a
// value computed from control values.
func (a *analysis) storesFromControl(l loc, seen map[ssa.Value]bool) bool {
	if a.locTaint(l) != "" {
		return false
	}
	for _, w := range a.writersOf(l) {
		st, ok := w.(*ssa.Store)
		if !ok || !a.fromControl(st.Val, seen) {
			return false
		}
	}
	return true
}

// rootMessages makes control the messages of the calls that end the run
// where the model may reach them (not behind a check assumed to pass), so
// that a run that ends reports what the real one reports. A message that
// would need opaque data or message contents is left out: the interpreter
// says that it does not know it.
func (a *analysis) rootMessages() {
	assumed := map[*ssa.BasicBlock]bool{}
	for iff, pass := range a.checks {
		fail := iff.Block().Succs[0]
		if pass == "true" {
			fail = iff.Block().Succs[1]
		}
		_, _, path := ends(fail)
		for _, b := range path {
			assumed[b] = true
		}
	}
	for _, fn := range a.fns {
		for _, b := range fn.Blocks {
			if assumed[b] || a.unrun(b) {
				continue
			}
			for _, instr := range b.Instrs {
				if endsRun(instr) == "" {
					continue
				}
				a.trial(message(instr)...)
				if _, ok := instr.(ssa.CallInstruction); ok {
					a.keepCalls[instr] = true // os.Exit(3) has no control argument
				}
			}
		}
	}
}

// trial makes vs and what they point to control, with the closure,
// unless that reaches opaque data or the contents of messages: then it
// leaves the control values as they were and returns false.
func (a *analysis) trial(vs ...ssa.Value) bool { return a.trialOf(true, vs) }

// trialOf is trial, of vs alone where pointees is false (a slice whose
// length, not its contents, is wanted).
func (a *analysis) trialOf(pointees bool, vs []ssa.Value) bool {
	saved := a.saveControl()
	a.trying, a.trialFailed = true, false
	defer func() { a.trying = false }()
	for _, v := range vs {
		if a.taint[v] != "" || pointees && a.pointeeTaint(v) != "" {
			a.trialFailed = true
			break
		}
		a.mark(v)
		if pointees {
			a.markPointees(v)
		}
	}
	if !a.trialFailed {
		a.closure()
	}
	if a.trialFailed {
		a.work, a.workLoc = nil, nil
		a.restoreControl(saved)
		return false
	}
	return true
}

// controlState is what the closure changes.
type controlState struct {
	ctl                   map[ssa.Value]bool
	ctlLoc                map[loc]bool
	ctlParams, ctlResults map[*ssa.Function]map[int]bool
	keepCalls             map[ssa.Instruction]bool
}

func (a *analysis) saveControl() controlState {
	deep := func(m map[*ssa.Function]map[int]bool) map[*ssa.Function]map[int]bool {
		out := make(map[*ssa.Function]map[int]bool, len(m))
		for k, v := range m {
			out[k] = maps.Clone(v)
		}
		return out
	}
	return controlState{ctl: maps.Clone(a.ctl), ctlLoc: maps.Clone(a.ctlLoc),
		ctlParams: deep(a.ctlParams), ctlResults: deep(a.ctlResults), keepCalls: maps.Clone(a.keepCalls)}
}

func (a *analysis) restoreControl(s controlState) {
	a.ctl, a.ctlLoc, a.ctlParams, a.ctlResults, a.keepCalls = s.ctl, s.ctlLoc, s.ctlParams, s.ctlResults, s.keepCalls
}
