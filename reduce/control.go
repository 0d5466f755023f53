// This file defines the control-variable analysis: roots, and the backward
// closure through values, parameters, results, free variables and memory.

package reduce

import (
	"fmt"
	"go/token"
	"go/types"
	"strings"

	"github.com/predict-tools/predict/modelgen"
	"golang.org/x/tools/go/ssa"
)

// findRoots marks the values that decide control flow and communication.
// A tainted root is opaque: recorded, not followed.
func (a *analysis) findRoots() {
	a.indexWriters()
	for _, fn := range a.fns {
		a.at = fn.Pos()
		if a.sealedFn[fn] != nil {
			continue // the model never enters it: nothing inside decides anything
		}
		for _, b := range fn.Blocks {
			if s := a.sealed[b]; s != nil {
				// Inside a sealed loop only its own test decides
				// anything: the interpreter never runs its body.
				if s.test.Block() == b {
					a.root(s.test.Cond, "branch condition")
				}
				if iff := s.nested[b]; iff != nil {
					a.root(iff.Cond, "loop test inside a sealed loop")
				}
				continue
			}
			if iff, ok := b.Instrs[len(b.Instrs)-1].(*ssa.If); ok {
				_, isParam := iff.Cond.(*ssa.Parameter)
				if pass, end := a.check(b); end != "" && !a.opts.Exact && (isParam || a.taint[iff.Cond] != "") {
					// A check: what it tests decides nothing but whether
					// the run ends; the model assumes it passes unless
					// settleChecks finds it computable (checks.go).
					a.checks[iff] = pass
					a.checkWhy[iff] = end
				} else {
					a.root(iff.Cond, "branch condition")
				}
			}
			for _, instr := range b.Instrs {
				if a.channelOp(instr) {
					continue
				}
				call, ok := instr.(ssa.CallInstruction)
				if !ok {
					continue
				}
				cc := call.Common()
				callee, args := a.unwrapMethod(cc)
				switch {
				case callee != nil && isCommlib(callee):
					op := opName(callee)
					spec := commSpecs[op]
					if cc.IsInvoke() {
						a.root(cc.Value, "receiver of "+op+", called through an interface")
					}
					for _, i := range spec.control {
						if i < len(args) {
							a.opaqueArg(call, callee, i, args[i], ArgValue, a.root(args[i], fmt.Sprintf("argument %d of %s", i, op)))
						}
					}
					for _, i := range spec.shape {
						if i < len(args) {
							a.opaqueArg(call, callee, i, args[i], ArgLength, a.root(args[i], fmt.Sprintf("buffer length, argument %d of %s", i, op)))
						}
					}
					for _, i := range spec.contents {
						if i < len(args) {
							a.opaqueArg(call, callee, i, args[i], ArgValue, a.root(args[i], fmt.Sprintf("argument %d of %s", i, op)))
							a.opaqueArg(call, callee, i, args[i], ArgElements, a.rootContents(args[i], fmt.Sprintf("elements of argument %d of %s", i, op)))
						}
					}
				case modelgen.GoSyncOp(callee) != "":
					// A goroutine's synchronization: the interpreter runs it
					// on the object the receiver points to (and, for Once.Do
					// and WaitGroup.Go, calls the function).
					op := modelgen.GoSyncOp(callee)
					a.keepCalls[call] = true
					for i, arg := range cc.Args {
						a.root(arg, fmt.Sprintf("argument %d of %s", i, op))
					}
				case callee != nil && callee.Pkg != nil && callee.Pkg.Pkg.Path() == "flag" && callee.Name() == "Parse":
					// The flags take the program's arguments there: a
					// flag read between it and commlib.Main (a check in
					// main) must see them.
					a.keepCalls[call] = true
				case callee == nil:
					if _, builtin := cc.Value.(*ssa.Builtin); !builtin && !a.sealedSite(call) {
						a.root(cc.Value, "dynamic call target")
					}
				}
			}
		}
	}
	a.rootSealed()
}

// unwrapMethod returns what a call calls and with which arguments, the
// receiver first for a method: through a method value's wrapper
// (c.Allreduce called as a function value), the method and its bound
// receiver; through a method expression's thunk ((*Comm).Barrier), the
// method; through an interface that a commlib type implements, that
// commlib method and the interface value. The wrapper's own body is not
// in the model, so its call is analysed here, as the method's.
func (a *analysis) unwrapMethod(cc *ssa.CallCommon) (*ssa.Function, []ssa.Value) {
	if cc.IsInvoke() {
		if ms := modelgen.CommlibMethods(a.loaded.Prog, cc); len(ms) > 0 {
			return ms[0], append([]ssa.Value{cc.Value}, cc.Args...)
		}
		return nil, cc.Args
	}
	f := cc.StaticCallee()
	if f == nil || f.Synthetic == "" {
		return f, cc.Args
	}
	obj, ok := f.Object().(*types.Func)
	if !ok {
		return f, cc.Args
	}
	m := f.Prog.FuncValue(obj)
	if m == nil || m == f {
		return f, cc.Args
	}
	switch mc, _ := cc.Value.(*ssa.MakeClosure); {
	case strings.HasPrefix(f.Synthetic, "bound method wrapper") && mc != nil && len(mc.Bindings) == 1:
		return m, append([]ssa.Value{mc.Bindings[0]}, cc.Args...)
	case strings.HasPrefix(f.Synthetic, "thunk"):
		return m, cc.Args
	}
	return f, cc.Args
}

// channelOp keeps a channel operation (send, receive, select, close) and
// roots its channel, and reports whether instr is one: a channel
// synchronizes goroutines whatever the values it carries, so a model
// without it would not wait where the program waits.
func (a *analysis) channelOp(instr ssa.Instruction) bool {
	switch in := instr.(type) {
	case *ssa.Send:
		a.keepCalls[in] = true
		a.root(in.Chan, "channel of a send")
	case *ssa.UnOp:
		if in.Op != token.ARROW {
			return false
		}
		a.keepCalls[in] = true
		a.root(in.X, "channel of a receive")
	case *ssa.Select:
		a.keepCalls[in] = true
		for _, st := range in.States {
			a.root(st.Chan, "channel of a select")
		}
	case *ssa.Call:
		if b, ok := in.Call.Value.(*ssa.Builtin); !ok || b.Name() != "close" {
			return false
		}
		a.keepCalls[in] = true
		a.root(in.Call.Args[0], "channel closed")
	default:
		return false
	}
	return true
}

// rootSealed roots what the interpreter needs of the sealed loops: the
// lengths copy moves inside them, and the start and bound of a perfect
// nest's inner loop when they are known on entry (the nest may be timed
// per innermost iteration).
func (a *analysis) rootSealed() {
	for _, s := range a.sealedLoops {
		if a.sealedFn[s.fn] != nil {
			continue // in a sealed recursion, which the model never enters
		}
		for _, v := range s.lengths {
			a.root(v, "length copied inside a sealed loop")
		}
		if s.inner == nil {
			continue
		}
		a.root(s.inner.Init, "start of a sealed nest's inner loop")
		a.root(s.inner.Bound, "bound of a sealed nest's inner loop")
	}
}

// root marks v as a control root, or records it as opaque and returns
// why.
func (a *analysis) root(v ssa.Value, why string) (opaque string) {
	if v == nil {
		return ""
	}
	if t := a.taint[v]; t != "" {
		if a.opaque[v] == "" {
			a.opaque[v] = t
		}
		return t
	}
	if a.roots[v] == "" {
		a.roots[v] = why
	}
	a.mark(v)
	return ""
}

// rootContents marks what v points to as control, or records it opaque
// and returns why.
func (a *analysis) rootContents(v ssa.Value, why string) (opaque string) {
	for l := range a.pts[v] {
		if t := a.locTaint(l); t != "" {
			a.opaque[v] = least(a.opaque[v], t)
			opaque = least(opaque, t)
			continue
		}
		a.markLoc(l)
	}
	return opaque
}

// mark makes v a control value.
func (a *analysis) mark(v ssa.Value) {
	if v == nil || a.ctl[v] {
		return
	}
	if a.taint[v] != "" {
		a.trialFailed = a.trialFailed || a.trying
		return // opaque data: the decisions it reaches were recorded at their roots
	}
	a.ctl[v] = true
	a.work = append(a.work, v)
}

// markLoc makes the data at l control.
func (a *analysis) markLoc(l loc) {
	if a.ctlLoc[l] {
		return
	}
	if a.locTaint(l) != "" {
		a.trialFailed = a.trialFailed || a.trying
		return
	}
	a.ctlLoc[l] = true
	a.workLoc = append(a.workLoc, l)
}

func (a *analysis) markPointees(v ssa.Value) {
	for l := range a.pts[v] {
		a.markLoc(l)
	}
}

// closure propagates control backward to a fixed point.
func (a *analysis) closure() {
	for len(a.work) > 0 || len(a.workLoc) > 0 {
		if n := len(a.work); n > 0 {
			v := a.work[n-1]
			a.work = a.work[:n-1]
			a.backward(v)
			continue
		}
		n := len(a.workLoc)
		l := a.workLoc[n-1]
		a.workLoc = a.workLoc[:n-1]
		a.backwardLoc(l)
	}
}

// backward marks what control value v depends on.
func (a *analysis) backward(v ssa.Value) {
	if v.Pos().IsValid() {
		a.at = v.Pos()
	}
	switch v := v.(type) {
	case *ssa.Const, *ssa.Function, *ssa.Builtin, *ssa.Global, *ssa.Alloc:
	case *ssa.Parameter:
		fn := v.Parent()
		idx := -1
		for i, p := range fn.Params {
			if p == v {
				idx = i
			}
		}
		if a.ctlParams[fn] == nil {
			a.ctlParams[fn] = map[int]bool{}
		}
		a.ctlParams[fn][idx] = true
		for _, call := range a.callers[fn] {
			if a.sealedFn[call.Parent()] != nil {
				continue // in a sealed recursion: never run (sealcall.go)
			}
			args := call.Common().Args
			if call.Common().IsInvoke() {
				args = append([]ssa.Value{call.Common().Value}, args...)
			}
			if idx < len(args) {
				a.mark(args[idx])
			}
		}
	case *ssa.FreeVar:
		fn := v.Parent()
		for i, fv := range fn.FreeVars {
			if fv == v {
				for _, mc := range a.closures[fn] {
					if a.sealedFn[mc.Parent()] != nil {
						continue // in a sealed recursion: never run
					}
					a.mark(mc.Bindings[i])
				}
			}
		}
	case *ssa.Call:
		a.backwardCall(v, -1)
	case *ssa.Extract:
		if call, ok := v.Tuple.(*ssa.Call); ok {
			a.backwardCall(call, v.Index)
			return
		}
		a.mark(v.Tuple)
	case *ssa.UnOp:
		a.mark(v.X)
		if v.Op == token.MUL || v.Op == token.ARROW {
			a.markPointees(v.X) // a receive reads what the sends wrote
		}
	case *ssa.Phi:
		for _, e := range v.Edges {
			a.mark(e)
		}
	case *ssa.MakeSlice:
		a.mark(v.Len)
		a.mark(v.Cap)
	case *ssa.MakeChan:
		a.mark(v.Size)
	case *ssa.MakeMap:
		a.mark(v.Reserve)
	case *ssa.MakeClosure:
	case *ssa.Lookup:
		a.mark(v.X)
		a.mark(v.Index)
		a.markPointees(v.X)
	case *ssa.Range:
		a.mark(v.X)
		a.markPointees(v.X)
	case *ssa.Next:
		a.mark(v.Iter)
	case *ssa.Select:
		for _, st := range v.States {
			a.mark(st.Chan)
		}
	case ssa.Instruction:
		var ops []*ssa.Value
		for _, op := range v.Operands(ops) {
			if *op != nil {
				a.mark(*op)
			}
		}
	}
}

// backwardCall marks what the result of call (all results, or result k)
// depends on.
func (a *analysis) backwardCall(call *ssa.Call, k int) {
	cc := call.Common()
	if b, ok := cc.Value.(*ssa.Builtin); ok {
		switch b.Name() {
		case "len", "cap":
			a.mark(cc.Args[0])
			if isMap(cc.Args[0].Type()) {
				a.markPointees(cc.Args[0]) // a map's length is how many keys were written
			}
		default:
			for _, arg := range cc.Args {
				a.mark(arg)
			}
		}
		return
	}
	callee := cc.StaticCallee()
	if callee != nil && isCommlib(callee) {
		switch op := opName(callee); op {
		case "Pool.WaitForAll":
			for _, fn := range a.taskFuncs() {
				a.markResults(fn, -1)
			}
		case "Threads":
			a.mark(cc.Args[0]) // the program's default, unless --threads
		case "AtomicInt.Load", "AtomicInt.Add", "AtomicInt.Swap", "AtomicInt.CompareAndSwap",
			"AtomicFloat.Load", "AtomicFloat.Add", "AtomicFloat.Swap", "AtomicFloat.CompareAndSwap":
			a.mark(cc.Args[0])
			a.markPointees(cc.Args[0])
		}
		// Other results (ranks, sizes, statuses, times) come from the
		// interpreter, which needs the communicator they are of: a *Comm
		// kept in a struct field or captured by a closure must be held.
		if strings.HasPrefix(opName(callee), "Comm.") && len(cc.Args) > 0 {
			a.mark(cc.Args[0])
		}
		return
	}
	if modelgen.GoSyncOp(callee) == "errgroup.Group.Wait" {
		// Its error is the first its goroutines' functions return.
		for _, fn := range a.groupFuncs() {
			a.markResults(fn, -1)
		}
	}
	if targets := a.callees[call]; len(targets) > 0 {
		for _, t := range targets {
			a.markResults(t, k)
		}
		if cc.IsInvoke() || callee == nil {
			a.mark(cc.Value)
		}
		return
	}
	// Outside the module: the result depends on the arguments and on what
	// they point to.
	a.keepCalls[call] = true
	for _, arg := range cc.Args {
		a.mark(arg)
		a.markPointees(arg)
	}
	if cc.IsInvoke() {
		a.mark(cc.Value)
		a.markPointees(cc.Value)
	}
}

// markResults makes result k (or all) of fn control.
func (a *analysis) markResults(fn *ssa.Function, k int) {
	if a.ctlResults[fn] == nil {
		a.ctlResults[fn] = map[int]bool{}
	}
	n := fn.Signature.Results().Len()
	for i := range n {
		if k >= 0 && i != k {
			continue
		}
		if a.ctlResults[fn][i] {
			continue
		}
		a.ctlResults[fn][i] = true
		for _, b := range fn.Blocks {
			if ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return); ok && i < len(ret.Results) {
				a.mark(ret.Results[i])
			}
		}
	}
}

// backwardLoc marks what may write the data at l: stores, copies,
// appends, received messages, atomics, calls outside the module.
func (a *analysis) backwardLoc(l loc) {
	writers := a.writersOf(l)
	for _, w := range writers {
		switch w := w.(type) {
		case *ssa.Store:
			a.keepCalls[w] = true
			a.mark(w.Val)
			a.mark(w.Addr)
		case *ssa.MapUpdate:
			a.keepCalls[w] = true
			a.mark(w.Map)
			a.mark(w.Key)
			a.mark(w.Value)
		case *ssa.Send:
			a.keepCalls[w] = true
			a.mark(w.Chan)
			a.mark(w.X)
		case ssa.CallInstruction:
			a.keepCalls[w] = true
			cc := w.Common()
			callee := cc.StaticCallee()
			if callee != nil && isCommlib(callee) {
				op := opName(callee)
				if len(commSpecs[op].recvBufs) > 0 {
					a.trialFailed = a.trialFailed || a.trying
					// Received data decides control: the messages must carry
					// their contents, so every sent buffer's contents matter
					// (a collective's: those its own calls send).
					for _, s := range a.sendBuffers(op) {
						a.markPointees(s)
					}
				}
				for _, arg := range cc.Args[1:] {
					a.mark(arg)
				}
				continue
			}
			for _, arg := range cc.Args {
				a.mark(arg)
				a.markPointees(arg)
			}
		}
	}
}

// writersOf returns what may write the data at l: the writers of every
// location that overlaps it (a whole struct is written field by field,
// a field by stores of the whole struct or of a struct around it).
func (a *analysis) writersOf(l loc) []ssa.Instruction {
	var out []ssa.Instruction
	for _, r := range a.related(l) {
		out = append(out, a.writers[r]...)
	}
	return out
}

// indexWriters records, for every location, the instructions that may
// write it.
func (a *analysis) indexWriters() {
	a.writers = map[loc][]ssa.Instruction{}
	add := func(v ssa.Value, instr ssa.Instruction) {
		for l := range a.pts[v] {
			a.writers[l] = append(a.writers[l], instr)
		}
	}
	for _, fn := range a.fns {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				switch w := instr.(type) {
				case *ssa.Store:
					add(w.Addr, w)
				case *ssa.MapUpdate:
					add(w.Map, w)
				case *ssa.Send:
					add(w.Chan, w)
				case ssa.CallInstruction:
					cc := w.Common()
					if bi, ok := cc.Value.(*ssa.Builtin); ok {
						switch bi.Name() {
						case "copy", "delete", "clear":
							add(cc.Args[0], w)
						case "append":
							if v := w.Value(); v != nil {
								add(v, w)
							}
						}
						continue
					}
					callee := cc.StaticCallee()
					switch {
					case callee != nil && isCommlib(callee):
						op := opName(callee)
						for _, i := range commSpecs[op].recvBufs {
							if i < len(cc.Args) {
								add(cc.Args[i], w)
							}
						}
						if len(op) > 6 && op[:6] == "Atomic" {
							add(cc.Args[0], w)
						}
					case len(a.callees[w]) == 0 && !readsOnly(cc):
						for _, arg := range cc.Args {
							if pointerLike(arg.Type()) {
								add(arg, w)
							}
						}
					}
				}
			}
		}
	}
}

// sendBuffers returns the buffers of the commlib calls whose data a
// receive of op may take: those of op's calls for a collective, those of
// every point-to-point send otherwise (the two never match).
func (a *analysis) sendBuffers(op string) []ssa.Value {
	coll := commSpecs[op].collective
	var out []ssa.Value
	for _, fn := range a.fns {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				call, ok := instr.(ssa.CallInstruction)
				if !ok {
					continue
				}
				callee := call.Common().StaticCallee()
				if callee == nil || !isCommlib(callee) {
					continue
				}
				if name := opName(callee); coll && name != op || !coll && commSpecs[name].collective {
					continue
				}
				for _, i := range commSpecs[opName(callee)].sendBufs {
					if i < len(call.Common().Args) {
						out = append(out, call.Common().Args[i])
					}
				}
			}
		}
	}
	return out
}
