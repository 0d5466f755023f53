// This file defines the taint pass: which values depend on data the
// interpreter will not have, and why.

package reduce

import (
	"go/token"
	"go/types"
	"strings"

	"github.com/predict-tools/predict/modelgen"
	"golang.org/x/tools/go/ssa"
)

// taintPass propagates opaque sources forward to a fixed point.
func (a *analysis) taintPass() {
	for changed := true; changed; {
		changed = false
		for _, fn := range a.fns {
			for _, b := range fn.Blocks {
				for _, instr := range b.Instrs {
					a.at = instr.Pos()
					if a.taintInstr(fn, instr) {
						changed = true
					}
				}
			}
		}
	}
}

// setTaint records why v is tainted. Of several reasons it keeps the
// least (in string order), so that the result does not depend on the
// order in which the analysis visits maps.
func (a *analysis) setTaint(v ssa.Value, why string) bool {
	if why == "" || v == nil {
		return false
	}
	if old := a.taint[v]; old != "" && old <= why {
		return false
	}
	a.taint[v] = why
	return true
}

func (a *analysis) setTaintLoc(l loc, why string) bool {
	if why == "" {
		return false
	}
	if old := a.taintLoc[l]; old != "" && old <= why {
		return false
	}
	a.taintLoc[l] = why
	return true
}

// least returns the least non-empty reason.
func least(xs ...string) string {
	var m string
	for _, x := range xs {
		if x != "" && (m == "" || x < m) {
			m = x
		}
	}
	return m
}

// locTaint is why the data at l is tainted: stored tainted data, or the
// elements of a bulk allocation.
func (a *analysis) locTaint(l loc) string {
	var t string
	for _, r := range a.related(l) {
		t = least(t, a.taintLoc[r])
	}
	if t == "" && (l.sel == "[]" || strings.HasPrefix(l.sel, "[].")) {
		return l.obj.bulk
	}
	return t
}

// pointeeTaint is the taint of the data v points to.
func (a *analysis) pointeeTaint(v ssa.Value) string {
	var t string
	for l := range a.pts[v] {
		t = least(t, a.locTaint(l))
	}
	return t
}

// addrTaint is why the address a write goes to is not known, or "".
func (a *analysis) addrTaint(addr ssa.Value, pos token.Pos) string {
	t := a.taint[addr]
	if t == "" {
		return ""
	}
	// The first reason, not a chain: reasons must stay finitely many for
	// the pass to reach its fixed point. (Worded so that, of several
	// reasons, the direct "the contents of ..." sorts first.)
	if strings.HasPrefix(t, writeIndex) {
		if i := strings.Index(t, writeDepends); i >= 0 {
			t = t[i+len(writeDepends):]
		}
	}
	return writeIndex + a.where(pos) + writeDepends + t
}

const (
	writeIndex   = "the index of a write at "
	writeDepends = ", which depends on "
)

// operandTaint is the taint of the operands of instr.
func (a *analysis) operandTaint(instr ssa.Instruction) string {
	var t string
	var ops []*ssa.Value
	for _, op := range instr.Operands(ops) {
		if *op != nil {
			t = least(t, a.taint[*op])
		}
	}
	return t
}

func (a *analysis) taintInstr(fn *ssa.Function, instr ssa.Instruction) bool {
	escaped := a.escapedGenerator(instr)
	return a.taintOf(fn, instr) || escaped
}

// taintOf applies the taint rule of one instruction.
func (a *analysis) taintOf(fn *ssa.Function, instr ssa.Instruction) bool {
	switch v := instr.(type) {
	case *ssa.UnOp:
		switch v.Op {
		case token.MUL:
			return a.setTaint(v, least(a.taint[v.X], a.pointeeTaint(v.X)))
		case token.ARROW:
			// What the sends on the channel sent (taintInstr's Send).
			return a.setTaint(v, least(a.taint[v.X], a.pointeeTaint(v.X)))
		}
		return a.setTaint(v, a.taint[v.X])
	case *ssa.Store:
		// What a store writes is tainted, and so is what it may write
		// over when its address is: the interpreter cannot write at an
		// index it does not know (a received vertex id indexing an array).
		t := least(a.taint[v.Val], a.addrTaint(v.Addr, v.Pos()))
		grew := false
		for l := range a.pts[v.Addr] {
			if a.setTaintLoc(l, t) {
				grew = true
			}
		}
		return grew
	case *ssa.Send:
		grew := false
		for l := range a.pts[v.Chan] {
			if a.setTaintLoc(l, a.taint[v.X]) {
				grew = true
			}
		}
		return grew
	case *ssa.MapUpdate:
		t := least(a.taint[v.Key], a.taint[v.Value])
		grew := false
		for l := range a.pts[v.Map] {
			if a.setTaintLoc(l, t) {
				grew = true
			}
		}
		return grew
	case *ssa.Lookup:
		return a.setTaint(v, least(a.operandTaint(v), a.pointeeTaint(v.X)))
	case *ssa.Next:
		if !v.IsString {
			return a.setTaint(v, "the iteration order of a map at "+a.where(v.Pos()))
		}
		return a.setTaint(v, a.operandTaint(v))
	case *ssa.Select:
		// Which case it takes: the model chooses by modeled time, from
		// its channels' states (the values received: Extract below).
		var t string
		for _, st := range v.States {
			t = least(t, a.taint[st.Chan])
		}
		return a.setTaint(v, t)
	case *ssa.Return:
		grew := a.setTaint(a.resultsOf(fn), a.operandTaint(v))
		if a.resTaint[fn] == nil {
			a.resTaint[fn] = make([]string, len(v.Results))
		}
		for i, r := range v.Results {
			if i < len(a.resTaint[fn]) {
				if m := least(a.resTaint[fn][i], a.taint[r]); m != a.resTaint[fn][i] {
					a.resTaint[fn][i] = m
					grew = true
				}
			}
		}
		return grew
	case *ssa.Extract:
		if call, ok := v.Tuple.(*ssa.Call); ok && len(a.callees[call]) > 0 {
			grew := false
			for _, t := range a.callees[call] {
				if rt := a.resTaint[t]; v.Index < len(rt) && a.setTaint(v, rt[v.Index]) {
					grew = true
				}
			}
			return grew
		}
		if sel, ok := v.Tuple.(*ssa.Select); ok && v.Index >= 2 {
			// A received value: what the sends on its channel sent.
			k := v.Index - 2
			for _, st := range sel.States {
				if st.Dir == types.SendOnly {
					continue
				}
				if k == 0 {
					return a.setTaint(v, least(a.taint[sel], a.pointeeTaint(st.Chan)))
				}
				k--
			}
		}
		if rcv, ok := v.Tuple.(*ssa.UnOp); ok && rcv.Op == token.ARROW && v.Index == 1 {
			// Whether a receive found its channel closed: the model
			// follows the channel's close.
			return a.setTaint(v, a.taint[rcv.X])
		}
		return a.setTaint(v, a.operandTaint(v))
	case *ssa.MakeClosure:
		grew := false
		if callee, ok := v.Fn.(*ssa.Function); ok && a.analyzed[callee] {
			for i, b := range v.Bindings {
				if a.setTaint(callee.FreeVars[i], a.taint[b]) {
					grew = true
				}
			}
		}
		return grew
	case ssa.CallInstruction:
		return a.taintCall(v)
	case *ssa.Phi, *ssa.BinOp, *ssa.Convert, *ssa.ChangeType, *ssa.MakeInterface, *ssa.ChangeInterface,
		*ssa.TypeAssert, *ssa.Field, *ssa.Index, *ssa.FieldAddr, *ssa.IndexAddr, *ssa.Slice,
		*ssa.SliceToArrayPointer, *ssa.MultiConvert, *ssa.Range,
		// An allocation's size is part of its value: a buffer made to a
		// random length has a random length (the closure marks the
		// operands of a control allocation, so they must carry taint
		// forward, or a length the model does not compute reads as 0).
		*ssa.MakeSlice, *ssa.MakeChan, *ssa.MakeMap:
		return a.setTaint(v.(ssa.Value), a.operandTaint(v))
	}
	return false
}

// taintCall applies the taint rules of a call.
func (a *analysis) taintCall(call ssa.CallInstruction) bool {
	cc := call.Common()
	res := call.Value()
	grew := false
	if b, ok := cc.Value.(*ssa.Builtin); ok {
		switch b.Name() {
		case "copy":
			t := least(a.pointeeTaint(cc.Args[1]), a.addrTaint(cc.Args[0], call.Pos()))
			for l := range a.pts[cc.Args[0]] {
				if a.setTaintLoc(l, t) {
					grew = true
				}
			}
			return grew
		case "len", "cap":
			if isMap(cc.Args[0].Type()) {
				return res != nil && a.setTaint(res, least(a.taint[cc.Args[0]], a.pointeeTaint(cc.Args[0])))
			}
			return res != nil && a.setTaint(res, a.taint[cc.Args[0]])
		case "append":
			// The result's elements hold what was appended (the elements
			// of a struct built with a random-length buffer, appended to
			// a list of neighbours).
			grew := res != nil && a.setTaint(res, a.operandTaint(call))
			if res != nil && len(cc.Args) > 1 {
				t := a.pointeeTaint(cc.Args[1])
				for l := range a.pts[res] {
					if a.setTaintLoc(l, t) {
						grew = true
					}
				}
			}
			return grew
		case "delete":
			// Which key goes decides the map's length, as MapUpdate's key.
			for l := range a.pts[cc.Args[0]] {
				if a.setTaintLoc(l, a.taint[cc.Args[1]]) {
					grew = true
				}
			}
			return grew
		}
		return res != nil && a.setTaint(res, a.operandTaint(call))
	}
	args := cc.Args
	if cc.IsInvoke() {
		args = append([]ssa.Value{cc.Value}, args...)
	}
	if callee := cc.StaticCallee(); callee != nil && isCommlib(callee) {
		return a.taintCommlib(call, callee, args)
	}
	if targets := a.callees[call]; len(targets) > 0 {
		for _, t := range targets {
			for i, p := range t.Params {
				if i < len(args) && a.setTaint(p, a.taint[args[i]]) {
					grew = true
				}
			}
			if res != nil && a.setTaint(res, a.taint[a.resultsOf(t)]) {
				grew = true
			}
		}
		return grew
	}
	// Outside the module.
	name := a.callName(cc)
	if why := sourceKind(cc); why != "" {
		why += " (" + name + " at " + a.where(call.Pos()) + ")"
		grew := res != nil && a.setTaint(res, why)
		if cc.Signature().Recv() != nil || cc.IsInvoke() {
			// A generator's method the model does not execute (Shuffle,
			// Read, a source called through an interface) moves its
			// state: what it draws next is random numbers too.
			recv := cc.Value
			if !cc.IsInvoke() {
				recv = cc.Args[0]
			}
			for l := range a.pts[recv] {
				if a.setTaintLoc(l, why) {
					grew = true
				}
			}
		}
		return grew
	}
	if f := cc.StaticCallee(); f != nil && !executedExternal(f) {
		// A function the interpreter does not execute: its result, and
		// what it may write through its arguments, are data the model
		// does not compute (recorded where they decide control, never
		// taken as zero).
		why := "the result of " + name + ", outside the program, which the model does not execute (at " + a.where(call.Pos()) + ")"
		grew := res != nil && a.setTaint(res, why)
		if !readsOnly(cc) {
			for _, arg := range args {
				for l := range a.pts[arg] {
					if a.setTaintLoc(l, why) {
						grew = true
					}
				}
			}
		}
		return grew
	}
	var t string
	for _, arg := range args {
		t = least(t, a.taint[arg], a.pointeeTaint(arg))
	}
	if modelgen.GoSyncOp(cc.StaticCallee()) == "errgroup.Group.Wait" {
		for _, fn := range a.groupFuncs() {
			t = least(t, a.taint[a.resultsOf(fn)])
		}
	}
	if res != nil && a.setTaint(res, t) {
		grew = true
	}
	// It may store what it was given into what its arguments point to.
	if readsOnly(cc) {
		return grew
	}
	for _, arg := range args {
		for l := range a.pts[arg] {
			if a.setTaintLoc(l, t) {
				grew = true
			}
		}
	}
	return grew
}

// readOnly names the functions outside the module, by package and name
// (or name prefix, ending in "*"), that read what their arguments point
// to and write nothing there: searches, comparisons, formatting into a
// new string.
var readOnly = map[string][]string{
	"sort":    {"Search*", "Find", "IsSorted", "IntsAreSorted", "Float64sAreSorted", "StringsAreSorted", "SliceIsSorted"},
	"slices":  {"Index*", "Contains*", "BinarySearch*", "Max*", "Min*", "Equal*", "Compare*", "IsSorted*"},
	"bytes":   {"Index*", "LastIndex*", "Contains*", "Count", "Equal", "EqualFold", "Compare", "HasPrefix", "HasSuffix"},
	"strings": {"*"},
	"math":    {"*"},
	"fmt":     {"Sprint*", "Errorf"},
}

// readsOnly reports whether a call outside the module is one of
// readOnly's.
func readsOnly(cc *ssa.CallCommon) bool {
	f := cc.StaticCallee()
	if f == nil || f.Pkg == nil || f.Signature.Recv() != nil {
		return false
	}
	for _, pat := range readOnly[f.Pkg.Pkg.Path()] {
		if name, prefix := strings.CutSuffix(pat, "*"); name == f.Name() || (prefix && strings.HasPrefix(f.Name(), name)) {
			return true
		}
	}
	return false
}

// sourceKind says whether a call outside the module produces data the
// interpreter cannot know: random numbers, time, input.
// clockReaders are the functions of package time that read the clock
// (the others, like Duration.Seconds, are arithmetic).
var clockReaders = map[string]bool{"Now": true, "Since": true, "Until": true, "Tick": true, "After": true,
	"AfterFunc": true, "NewTimer": true, "NewTicker": true}

func sourceKind(cc *ssa.CallCommon) string {
	var pkg string
	if f := cc.StaticCallee(); f != nil && f.Pkg != nil {
		pkg = f.Pkg.Pkg.Path()
	} else if f != nil && f.Origin() != nil && f.Origin().Pkg != nil {
		pkg = f.Origin().Pkg.Pkg.Path()
	} else if cc.IsInvoke() && cc.Method.Pkg() != nil {
		pkg = cc.Method.Pkg().Path()
	}
	switch {
	case pkg == "math/rand/v2" && executedExternal(cc.StaticCallee()) && seededSource(cc):
		return "" // a generator made from a seed, which the interpreter runs
	case pkg == "math/rand" || pkg == "math/rand/v2" || pkg == "crypto/rand":
		return "random numbers"
	case pkg == "time" && cc.StaticCallee() != nil && clockReaders[cc.StaticCallee().Name()] && cc.StaticCallee().Signature.Recv() == nil:
		return "the wall-clock time"
	case pkg == "os" || pkg == "io" || pkg == "bufio" || strings.HasPrefix(pkg, "net") || pkg == "io/ioutil":
		return "input/output"
	case pkg == "fmt" && cc.StaticCallee() != nil && strings.Contains(cc.StaticCallee().Name(), "scan"):
		return "input/output"
	}
	return ""
}

// taintCommlib applies the taint rules of commlib calls: a point-to-point
// message carries the taint of every point-to-point send buffer's
// contents, a collective's the taint of what that collective's calls
// send; a pool's reduction carries that of its tasks' results; atomics
// are memory.
func (a *analysis) taintCommlib(call ssa.CallInstruction, callee *ssa.Function, args []ssa.Value) bool {
	op := opName(callee)
	res := call.Value()
	grew := false
	spec := commSpecs[op]
	key := "" // a point-to-point receive may take any point-to-point send's data
	if spec.collective {
		key = op
	}
	msg := a.msgTaint[key]
	for _, i := range spec.sendBufs {
		if i < len(args) {
			if t := a.pointeeTaint(args[i]); t != "" {
				if !strings.HasSuffix(t, ", communicated") {
					t += ", communicated"
				}
				if m := least(msg, t); m != msg {
					msg, grew = m, true
				}
			}
		}
	}
	a.msgTaint[key] = msg
	for _, i := range spec.recvBufs {
		if i < len(args) {
			for l := range a.pts[args[i]] {
				if a.setTaintLoc(l, msg) {
					grew = true
				}
			}
		}
	}
	switch op {
	case "Pool.WaitForAll":
		for _, fn := range a.taskFuncs() {
			if res != nil && a.setTaint(res, a.taint[a.resultsOf(fn)]) {
				grew = true
			}
		}
	case "AtomicInt.Load", "AtomicInt.Add", "AtomicInt.Swap", "AtomicFloat.Load", "AtomicFloat.Add", "AtomicFloat.Swap":
		if res != nil && a.setTaint(res, a.pointeeTaint(args[0])) {
			grew = true
		}
	}
	if strings.HasPrefix(op, "Atomic") && len(args) > 1 {
		for l := range a.pts[args[0]] {
			for _, arg := range args[1:] {
				if a.setTaintLoc(l, a.taint[arg]) {
					grew = true
				}
			}
		}
	}
	return grew
}

// taskFuncs returns the functions passed to Pool.SetTask anywhere.
func (a *analysis) taskFuncs() []*ssa.Function {
	return a.funcsPassedTo(func(callee *ssa.Function) bool { return isCommlib(callee) && opName(callee) == "Pool.SetTask" })
}

// groupFuncs returns the functions passed to an errgroup.Group's Go or
// TryGo anywhere: the first error they return is what Wait returns.
func (a *analysis) groupFuncs() []*ssa.Function {
	return a.funcsPassedTo(func(callee *ssa.Function) bool {
		op := modelgen.GoSyncOp(callee)
		return op == "errgroup.Group.Go" || op == "errgroup.Group.TryGo"
	})
}

// funcsPassedTo returns the program's functions passed as an argument to
// a call of a function that is accepts, anywhere. An argument that is
// not a function named there (a parameter, a variable, a field: the
// function comes from elsewhere) may be any of the program's functions
// used as values with its signature, as modelgen resolves a call through
// a value: missing one would let the reduction take its result as
// computed when it is not.
func (a *analysis) funcsPassedTo(is func(callee *ssa.Function) bool) []*ssa.Function {
	var out []*ssa.Function
	seen := map[*ssa.Function]bool{}
	add := func(g *ssa.Function) {
		if !seen[g] {
			seen[g] = true
			out = append(out, g)
		}
	}
	for _, fn := range a.fns {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				call, ok := instr.(*ssa.Call)
				if !ok {
					continue
				}
				callee := call.Common().StaticCallee()
				if callee == nil || !is(callee) {
					continue
				}
				for _, arg := range call.Common().Args {
					sig, isFunc := arg.Type().Underlying().(*types.Signature)
					switch g := modelgen.FunctionOf(arg); {
					case g != nil:
						if a.analyzed[g] {
							add(g)
						}
					case isFunc:
						for _, g := range a.valueFuncs() {
							if types.Identical(g.Signature, sig) {
								add(g)
							}
						}
					}
				}
			}
		}
	}
	return out
}

// valueFuncs returns the analysed functions used as values (closures,
// and functions named anywhere but as a call's callee), in the order of
// a.fns; computed once.
func (a *analysis) valueFuncs() []*ssa.Function {
	if a.asValues != nil {
		return a.asValues
	}
	used := map[*ssa.Function]bool{}
	var ops []*ssa.Value
	for _, fn := range a.fns {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				ops = instr.Operands(ops[:0])
				if c, ok := instr.(ssa.CallInstruction); ok && !c.Common().IsInvoke() {
					ops = ops[1:] // the callee; a method value's receiver is an argument
				}
				for _, op := range ops {
					if g, ok := (*op).(*ssa.Function); ok && a.analyzed[g] {
						used[g] = true
					}
				}
			}
		}
	}
	a.asValues = []*ssa.Function{}
	for _, fn := range a.fns {
		if used[fn] {
			a.asValues = append(a.asValues, fn)
		}
	}
	return a.asValues
}
