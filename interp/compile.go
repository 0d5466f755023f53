// This file compiles the reduced model into the interpreter's form: per
// function, slot-indexed frames and per block the kept instructions as
// closures, with the measured times inserted where the fragments start.

package interp

import (
	"fmt"
	"go/constant"
	"go/token"
	"go/types"

	"github.com/predict-tools/predict/model"
	"github.com/predict-tools/predict/modelgen"
	"github.com/predict-tools/predict/reduce"
	"golang.org/x/tools/go/ssa"
)

// ctl says how execution goes on after an op.
type ctl uint8

const (
	cNext  ctl = iota // the next op of the block
	cJump             // the frame moved to another block (or returned, or called)
	cBlock            // the process blocked in communication: run another
	cYield            // the process must let an earlier one run first; the op runs again
	cStop             // the process ended (or failed: see proc.err)
)

// op is one compiled instruction.
type op func(p *proc, fr *frame) ctl

// operand reads a value: a slot of the frame, or a constant.
type operand struct {
	slot int // -1: the constant c
	c    V
}

func (o operand) get(fr *frame) V {
	if o.slot >= 0 {
		return fr.s[o.slot]
	}
	return o.c
}

// function is a compiled function.
type function struct {
	id     string // the model function's ID (or the SSA name for package init)
	ssa    *ssa.Function
	nslots int
	slots  map[ssa.Value]int
	params []int
	free   []int
	blocks []*block
	full   bool // every instruction runs (package initializers), not only the kept ones

	freeFrames []*frame // frames of returned calls, to reuse (exec.go)
	inLoop     []bool   // per block: in a loop (reuseSlot)

	compiled bool
}

// block is a compiled basic block.
type block struct {
	index int
	ops   []op
	// instrs[i] is the instruction ops[i] runs (nil for a charge), for
	// the position of a modeling limit.
	instrs []ssa.Instruction
	succs  []*block
	// phis[i] are the φ moves on the edge from the i-th predecessor.
	phis  [][]phiMove
	preds []*ssa.BasicBlock
	// loop, on a loop header, is the loop when it runs as a whole
	// (collapsed) when entered from outside.
	loop *loopPlan
}

type phiMove struct {
	dst int
	src operand
}

// compiler holds what compiling needs.
type compiler struct {
	w         *World
	l         *modelgen.Loaded
	rep       *reduce.Report
	funcs     map[*ssa.Function]*function
	models    map[*ssa.Function]*model.Function
	keep      map[ssa.Instruction]bool
	opaqueIf  map[*ssa.If]opaqueBranch // branches whose condition is not kept
	charges   map[ssa.Instruction][]*fragment
	loopHeads map[*ssa.BasicBlock]*loopPlan
	globals   map[*ssa.Global]*box
	queue     []*function
	at        token.Pos // what is being compiled or planned, for modeling limits
	recCalls  map[*ssa.Call]*recursion
}

// fn returns the compiled form of f, compiling it on first use (lazily,
// so that only reachable functions are compiled).
func (c *compiler) fn(f *ssa.Function) *function {
	if cf := c.funcs[f]; cf != nil {
		return cf
	}
	cf := &function{ssa: f, slots: map[ssa.Value]int{}}
	if m := c.models[f]; m != nil {
		cf.id = m.ID
	} else {
		cf.id = f.String()
		cf.full = true
	}
	c.funcs[f] = cf
	c.queue = append(c.queue, cf)
	return cf
}

// drain compiles the queued functions.
func (c *compiler) drain() {
	for len(c.queue) > 0 {
		cf := c.queue[0]
		c.queue = c.queue[1:]
		c.compile(cf)
	}
}

func (c *compiler) slot(cf *function, v ssa.Value) int {
	if s, ok := cf.slots[v]; ok {
		return s
	}
	s := cf.nslots
	cf.nslots++
	cf.slots[v] = s
	return s
}

// reuseSlot returns the hidden slot (one that no SSA value owns) in which
// an instruction keeps the value it made before the last (see "Reused
// values" in exec.go), or -1 when the instruction is not in a loop: it
// runs once per call, and nothing would be reused, so its frames need no
// slot for it (frames are most of a process's memory).
func (c *compiler) reuseSlot(cf *function, in ssa.Instruction) int {
	if !c.inLoop(cf)[in.Block().Index] {
		return -1
	}
	s := cf.nslots
	cf.nslots++
	return s
}

// inLoop returns, per block of cf, whether it is on a cycle of the
// control-flow graph: in a strongly connected component of several
// blocks, or jumping to itself (Tarjan's algorithm).
func (c *compiler) inLoop(cf *function) []bool {
	if cf.inLoop != nil {
		return cf.inLoop
	}
	blocks := cf.ssa.Blocks
	cf.inLoop = make([]bool, len(blocks))
	index := make([]int, len(blocks)) // 0: not visited; else order+1
	low := make([]int, len(blocks))
	onStack := make([]bool, len(blocks))
	var stack []int
	next := 0
	var visit func(b *ssa.BasicBlock)
	visit = func(b *ssa.BasicBlock) {
		v := b.Index
		next++
		index[v], low[v] = next, next
		stack = append(stack, v)
		onStack[v] = true
		for _, s := range b.Succs {
			w := s.Index
			if w == v {
				cf.inLoop[v] = true // a loop of one block
			}
			switch {
			case index[w] == 0:
				visit(s)
				low[v] = min(low[v], low[w])
			case onStack[w]:
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] != index[v] {
			return
		}
		// v is the root of a component: pop it.
		k := len(stack) - 1
		for stack[k] != v {
			k--
		}
		comp := stack[k:]
		stack = stack[:k]
		for _, w := range comp {
			onStack[w] = false
			if len(comp) > 1 {
				cf.inLoop[w] = true
			}
		}
	}
	for _, b := range blocks {
		if index[b.Index] == 0 {
			visit(b)
		}
	}
	return cf.inLoop
}

// operand compiles a use of v in cf.
func (c *compiler) operand(cf *function, v ssa.Value) operand {
	switch v := v.(type) {
	case *ssa.Const:
		return operand{slot: -1, c: constValue(v)}
	case *ssa.Global:
		b := c.globals[v]
		if b == nil {
			b = &box{v: zeroOf(v.Type().(*types.Pointer).Elem())}
			c.globals[v] = b
		}
		return operand{slot: -1, c: V{R: b}}
	case *ssa.Function:
		if c.models[v] == nil && !inModule(c.l, v) {
			return operand{slot: -1, c: V{R: &closure{ext: v.String()}}}
		}
		return operand{slot: -1, c: V{R: &closure{fn: c.fn(v)}}}
	case *ssa.Builtin:
		return operand{slot: -1, c: V{R: &closure{ext: v.Name()}}}
	}
	return operand{slot: c.slot(cf, v)}
}

func inModule(l *modelgen.Loaded, f *ssa.Function) bool {
	return f.Pkg != nil && l.Module != "" && (f.Pkg.Pkg.Path() == l.Module || len(f.Pkg.Pkg.Path()) > len(l.Module) && f.Pkg.Pkg.Path()[:len(l.Module)+1] == l.Module+"/")
}

func constValue(k *ssa.Const) V {
	if k.Value == nil {
		return zeroOf(k.Type())
	}
	switch k.Value.Kind() {
	case constant.Bool:
		return boolV(constant.BoolVal(k.Value))
	case constant.String:
		return V{R: constant.StringVal(k.Value)}
	case constant.Int:
		if isFloat(k.Type()) {
			f, _ := constant.Float64Val(k.Value)
			return floatV(f)
		}
		if i, ok := constant.Int64Val(k.Value); ok {
			return intV(i)
		}
		u, _ := constant.Uint64Val(k.Value)
		return intV(int64(u))
	case constant.Float:
		f, _ := constant.Float64Val(k.Value)
		if !isFloat(k.Type()) { // an untyped float constant converted to an integer
			return intV(int64(f))
		}
		return floatV(f)
	}
	return V{}
}

func basicInfo(t types.Type) types.BasicInfo {
	if b, ok := t.Underlying().(*types.Basic); ok {
		return b.Info()
	}
	return 0
}

func isFloat(t types.Type) bool    { return basicInfo(t)&types.IsFloat != 0 }
func isString(t types.Type) bool   { return basicInfo(t)&types.IsString != 0 }
func isUnsigned(t types.Type) bool { return basicInfo(t)&types.IsUnsigned != 0 }
func isInteger(t types.Type) bool  { return basicInfo(t)&types.IsInteger != 0 }

// wrap truncates an integer result to the size of its type.
func wrap(t types.Type) func(int64) int64 {
	b, ok := t.Underlying().(*types.Basic)
	if !ok {
		return nil
	}
	switch b.Kind() {
	case types.Int8:
		return func(x int64) int64 { return int64(int8(x)) }
	case types.Int16:
		return func(x int64) int64 { return int64(int16(x)) }
	case types.Int32:
		return func(x int64) int64 { return int64(int32(x)) }
	case types.Uint8:
		return func(x int64) int64 { return int64(uint8(x)) }
	case types.Uint16:
		return func(x int64) int64 { return int64(uint16(x)) }
	case types.Uint32:
		return func(x int64) int64 { return int64(uint32(x)) }
	}
	return nil
}

// compile compiles the blocks of cf.
func (c *compiler) compile(cf *function) {
	f := cf.ssa
	for _, p := range f.Params {
		cf.params = append(cf.params, c.slot(cf, p))
	}
	for _, fv := range f.FreeVars {
		cf.free = append(cf.free, c.slot(cf, fv))
	}
	cf.compiled = true
	for _, b := range f.Blocks {
		cf.blockOf(b)
	}
	for i, b := range f.Blocks {
		cb := cf.blocks[i]
		cb.preds = b.Preds
		for _, s := range b.Succs {
			cb.succs = append(cb.succs, cf.blocks[s.Index])
		}
		cb.phis = make([][]phiMove, len(b.Preds))
		if lp := c.loopHeads[b]; lp != nil {
			cb.loop = lp
		}
		for _, instr := range b.Instrs {
			if phi, ok := instr.(*ssa.Phi); ok {
				if !cf.full && !c.keep[instr] {
					continue
				}
				dst := c.slot(cf, phi)
				for k, e := range phi.Edges {
					cb.phis[k] = append(cb.phis[k], phiMove{dst: dst, src: c.operand(cf, e)})
				}
				continue
			}
			for _, fr := range c.charges[instr] {
				cb.ops = append(cb.ops, chargeOp(fr))
				cb.instrs = append(cb.instrs, nil)
			}
			if !cf.full && !c.keep[instr] && !isTerminator(instr) {
				continue
			}
			c.working(instr.Pos())
			if compileHook != nil {
				compileHook(instr)
			}
			cb.ops = append(cb.ops, c.instr(cf, cb, instr))
			cb.instrs = append(cb.instrs, instr)
		}
	}
	c.done()
}

// compileHook, set by tests, sees each instruction before it is compiled.
var compileHook func(ssa.Instruction)

func isTerminator(instr ssa.Instruction) bool {
	switch instr.(type) {
	case *ssa.If, *ssa.Jump, *ssa.Return, *ssa.Panic:
		return true
	}
	return false
}

// failOp is an instruction the interpreter cannot execute: running it is
// an error naming its position.
func (c *compiler) failOp(instr ssa.Instruction, format string, args ...any) op {
	where := c.l.Pos(instr.Pos()).String()
	if !instr.Pos().IsValid() {
		where = c.l.Pos(instr.Parent().Pos()).String()
	}
	msg := fmt.Sprintf(format, args...)
	return func(p *proc, fr *frame) ctl {
		return p.fail(where, msg)
	}
}

// instr compiles one instruction.
func (c *compiler) instr(cf *function, cb *block, instr ssa.Instruction) op {
	switch in := instr.(type) {
	case *ssa.Jump:
		succ := cb.succs[0]
		return func(p *proc, fr *frame) ctl { return p.jump(fr, succ) }
	case *ssa.If:
		return c.ifOp(cf, cb, in)
	case *ssa.Return:
		res := make([]operand, len(in.Results))
		for i, r := range in.Results {
			res[i] = c.operand(cf, r)
		}
		return func(p *proc, fr *frame) ctl { return p.ret(fr, res) }
	case *ssa.Panic:
		x := c.operand(cf, in.X)
		where := c.l.Pos(in.Pos()).String()
		t := in.X.Type()
		modeled := c.modeled(cf, in.X)
		return func(p *proc, fr *frame) ctl {
			return p.abort(where, "panic", str(x.get(fr), t), modeled)
		}
	case *ssa.Store:
		addr, val := c.operand(cf, in.Addr), c.operand(cf, in.Val)
		return func(p *proc, fr *frame) ctl {
			storeTo(addr.get(fr), copyValue(val.get(fr)))
			return cNext
		}
	case *ssa.Call:
		return c.call(cf, in)
	case *ssa.Defer:
		return c.deferOp(cf, in)
	case *ssa.RunDefers:
		return func(p *proc, fr *frame) ctl { return p.runDefers(fr) }
	case *ssa.Go:
		return c.failOp(in, "go statement: the interpreter models commlib's threads (Pool, Parallel) only, not goroutines")
	case *ssa.DebugRef:
		return func(p *proc, fr *frame) ctl { return cNext }
	case ssa.Value:
		dst := c.slot(cf, in)
		f := c.value(cf, in)
		if f == nil {
			return c.failOp(instr, "%s (%T) is not supported by the interpreter", in.String(), in)
		}
		return func(p *proc, fr *frame) ctl {
			v, err := f(fr)
			if err != "" {
				return p.fail(c.l.Pos(instr.Pos()).String(), err)
			}
			fr.s[dst] = v
			return cNext
		}
	}
	return c.failOp(instr, "%T is not supported by the interpreter", instr)
}

// storeTo stores v at the address a.
func storeTo(a V, v V) {
	switch r := a.R.(type) {
	case *ptr:
		r.store(v)
	case *box:
		r.v = v
	case *structV:
		if s, ok := v.R.(*structV); ok {
			copy(r.f, s.f)
		}
	case *array:
		if s, ok := v.R.(*array); ok {
			if s.elems == nil {
				r.elems = nil
			} else {
				for i := range s.n {
					r.store(i, s.elems[i])
				}
			}
		}
	}
}

// loadFrom loads the value at the address a (aggregates are copied).
func loadFrom(a V) V {
	switch r := a.R.(type) {
	case *ptr:
		return copyValue(r.load())
	case *box:
		return copyValue(r.v)
	case *structV:
		return V{R: copyStruct(r)}
	case *array:
		return V{R: copyArray(r)}
	}
	return V{}
}

// target returns the memory a pointer designates, without copying: the
// struct or array whose fields or elements an address refers to.
func target(a V) any {
	switch r := a.R.(type) {
	case *ptr:
		if r.a != nil && r.a.elems == nil && !r.a.shape {
			r.a.store(r.i, r.a.load(r.i)) // materialize: the address must reach the element itself
		}
		return r.load().R
	case *box:
		return r.v.R
	}
	return a.R
}

// value compiles an instruction that computes a value. It returns nil for
// an instruction it does not support.
func (c *compiler) value(cf *function, v ssa.Value) func(fr *frame) (V, string) {
	switch in := v.(type) {
	case *ssa.Alloc:
		elem := in.Type().(*types.Pointer).Elem()
		shape := c.rep != nil && c.rep.ShapeOnly[in]
		return func(fr *frame) (V, string) { return newMemory(elem, shape), "" }
	case *ssa.MakeSlice:
		ln, cp := c.operand(cf, in.Len), c.operand(cf, in.Cap)
		elem := in.Type().Underlying().(*types.Slice).Elem()
		shape := c.rep != nil && c.rep.ShapeOnly[in]
		zero := zeroOf(elem)
		return func(fr *frame) (V, string) {
			n, k := ln.get(fr).I, cp.get(fr).I
			if n < 0 || k < n {
				return V{}, fmt.Sprintf("makeslice: len %d, cap %d out of range", n, k)
			}
			return V{R: &sliceV{a: newArray(int(k), zero, shape), len: int(n), cap: int(k)}}, ""
		}
	case *ssa.FieldAddr:
		x, i := c.operand(cf, in.X), in.Field
		return func(fr *frame) (V, string) {
			s, ok := target(x.get(fr)).(*structV)
			if !ok {
				return V{}, "invalid memory address or nil pointer dereference"
			}
			return V{R: &ptr{s: s, i: i}}, ""
		}
	case *ssa.Field:
		x, i := c.operand(cf, in.X), in.Field
		return func(fr *frame) (V, string) {
			s, ok := x.get(fr).R.(*structV)
			if !ok {
				return zeroOf(in.Type()), ""
			}
			return copyValue(s.f[i]), ""
		}
	case *ssa.IndexAddr:
		x, idx := c.operand(cf, in.X), c.operand(cf, in.Index)
		return func(fr *frame) (V, string) {
			i := int(idx.get(fr).I)
			switch r := target(x.get(fr)).(type) {
			case *sliceV:
				if i < 0 || i >= r.len {
					return V{}, fmt.Sprintf("index out of range [%d] with length %d", i, r.len)
				}
				return V{R: &ptr{a: r.a, i: r.off + i}}, ""
			case *array:
				if i < 0 || i >= r.n {
					return V{}, fmt.Sprintf("index out of range [%d] with length %d", i, r.n)
				}
				return V{R: &ptr{a: r, i: i}}, ""
			}
			return V{}, fmt.Sprintf("index out of range [%d] with length 0", i)
		}
	case *ssa.Index:
		x, idx := c.operand(cf, in.X), c.operand(cf, in.Index)
		return func(fr *frame) (V, string) {
			i := int(idx.get(fr).I)
			switch r := x.get(fr).R.(type) {
			case *array:
				if i < 0 || i >= r.n {
					return V{}, fmt.Sprintf("index out of range [%d] with length %d", i, r.n)
				}
				return copyValue(r.load(i)), ""
			case string:
				if i < 0 || i >= len(r) {
					return V{}, fmt.Sprintf("index out of range [%d] with length %d", i, len(r))
				}
				return intV(int64(r[i])), ""
			}
			// Not the program's error: the reduction kept the index of a
			// value it did not keep.
			return V{}, fmt.Sprintf("index [%d] of a value the reduced model does not hold", i)
		}
	case *ssa.UnOp:
		return c.unop(cf, in)
	case *ssa.BinOp:
		return c.binop(cf, in)
	case *ssa.Convert:
		return c.convert(cf, in)
	case *ssa.ChangeType:
		x := c.operand(cf, in.X)
		return func(fr *frame) (V, string) { return x.get(fr), "" }
	case *ssa.ChangeInterface:
		x := c.operand(cf, in.X)
		return func(fr *frame) (V, string) { return x.get(fr), "" }
	case *ssa.SliceToArrayPointer:
		x := c.operand(cf, in.X)
		return func(fr *frame) (V, string) {
			if s, ok := x.get(fr).R.(*sliceV); ok {
				return V{R: &array{n: s.len, elems: window(s), zero: s.a.zero, shape: s.a.shape}}, ""
			}
			return V{}, ""
		}
	case *ssa.MakeInterface:
		x, t := c.operand(cf, in.X), in.X.Type()
		var esize int64
		if _, ok := t.Underlying().(*types.Slice); ok {
			esize = elemSize(t)
		}
		dst, alt := c.slot(cf, in), c.reuseSlot(cf, in)
		return func(fr *frame) (V, string) {
			v := x.get(fr)
			if last := fr.sameBoxed(dst, alt, v); last != nil {
				return *last, ""
			}
			return V{R: &iface{t: t, v: v, esize: esize}}, ""
		}
	case *ssa.TypeAssert:
		return c.typeAssert(cf, in)
	case *ssa.Slice:
		return c.slice(cf, in)
	case *ssa.MakeClosure:
		fn := c.fn(in.Fn.(*ssa.Function))
		binds := make([]operand, len(in.Bindings))
		for i, b := range in.Bindings {
			binds[i] = c.operand(cf, b)
		}
		return func(fr *frame) (V, string) {
			env := make([]V, len(binds))
			for i, b := range binds {
				env[i] = b.get(fr)
			}
			return V{R: &closure{fn: fn, env: env}}, ""
		}
	case *ssa.Extract:
		x, i := c.operand(cf, in.Tuple), in.Index
		return func(fr *frame) (V, string) {
			if t, ok := x.get(fr).R.(tuple); ok && i < len(t) {
				return t[i], ""
			}
			return zeroOf(in.Type()), ""
		}
	}
	return nil
}

// window returns the elements of a slice (nil when none was stored).
func window(s *sliceV) []V {
	if s.a == nil || s.a.elems == nil {
		return nil
	}
	return s.a.elems[s.off : s.off+s.len]
}

// newMemory allocates a variable of type t and returns its address.
func newMemory(t types.Type, shape bool) V {
	switch u := t.Underlying().(type) {
	case *types.Struct:
		return zeroOf(t)
	case *types.Array:
		return V{R: newArray(int(u.Len()), zeroOf(u.Elem()), shape)}
	}
	return V{R: &box{v: zeroOf(t)}}
}

func (c *compiler) unop(cf *function, in *ssa.UnOp) func(fr *frame) (V, string) {
	x := c.operand(cf, in.X)
	t := in.X.Type()
	switch in.Op {
	case token.MUL:
		return func(fr *frame) (V, string) {
			a := x.get(fr)
			if a.R == nil {
				return V{}, "invalid memory address or nil pointer dereference"
			}
			return loadFrom(a), ""
		}
	case token.SUB:
		if isFloat(t) {
			return func(fr *frame) (V, string) { return floatV(-x.get(fr).F()), "" }
		}
		w := wrap(t)
		return func(fr *frame) (V, string) {
			r := -x.get(fr).I
			if w != nil {
				r = w(r)
			}
			return intV(r), ""
		}
	case token.NOT:
		return func(fr *frame) (V, string) { return boolV(!x.get(fr).B()), "" }
	case token.XOR:
		w := wrap(t)
		return func(fr *frame) (V, string) {
			r := ^x.get(fr).I
			if w != nil {
				r = w(r)
			}
			return intV(r), ""
		}
	}
	return nil
}

func (c *compiler) binop(cf *function, in *ssa.BinOp) func(fr *frame) (V, string) {
	x, y := c.operand(cf, in.X), c.operand(cf, in.Y)
	t := in.X.Type()
	switch {
	case isFloat(t):
		return floatBinop(in.Op, x, y)
	case isString(t):
		return stringBinop(in.Op, x, y)
	case isInteger(t):
		return intBinop(in.Op, x, y, isUnsigned(t), wrap(in.Type()))
	case basicInfo(t)&types.IsBoolean != 0:
		switch in.Op {
		case token.EQL:
			return func(fr *frame) (V, string) { return boolV(x.get(fr).B() == y.get(fr).B()), "" }
		case token.NEQ:
			return func(fr *frame) (V, string) { return boolV(x.get(fr).B() != y.get(fr).B()), "" }
		}
	}
	switch in.Op {
	case token.EQL:
		return func(fr *frame) (V, string) { return boolV(equal(x.get(fr), y.get(fr))), "" }
	case token.NEQ:
		return func(fr *frame) (V, string) { return boolV(!equal(x.get(fr), y.get(fr))), "" }
	}
	return nil
}

// equal compares values of comparable non-basic types: pointers, channels,
// interfaces, functions (with nil).
func equal(a, b V) bool {
	if a.R == nil || b.R == nil {
		return a.R == nil && b.R == nil && a.I == b.I
	}
	switch x := a.R.(type) {
	case *ptr:
		y, ok := b.R.(*ptr)
		return ok && *x == *y
	case *iface:
		y, ok := b.R.(*iface)
		if !ok || !types.Identical(x.t, y.t) {
			return false
		}
		if xs, ok := x.v.R.(string); ok {
			ys, _ := y.v.R.(string)
			return xs == ys
		}
		if x.v.R == nil && y.v.R == nil {
			return x.v.I == y.v.I
		}
		return equal(x.v, y.v)
	case *structV:
		y, ok := b.R.(*structV)
		if !ok || len(x.f) != len(y.f) {
			return false
		}
		for i := range x.f {
			if x.f[i].I != y.f[i].I || (x.f[i].R != nil || y.f[i].R != nil) && !equal(x.f[i], y.f[i]) {
				return false
			}
		}
		return true
	case string:
		y, _ := b.R.(string)
		return x == y
	}
	return a.R == b.R
}

func floatBinop(tok token.Token, x, y operand) func(fr *frame) (V, string) {
	var f func(a, b float64) V
	switch tok {
	case token.ADD:
		f = func(a, b float64) V { return floatV(a + b) }
	case token.SUB:
		f = func(a, b float64) V { return floatV(a - b) }
	case token.MUL:
		f = func(a, b float64) V { return floatV(a * b) }
	case token.QUO:
		f = func(a, b float64) V { return floatV(a / b) }
	case token.EQL:
		f = func(a, b float64) V { return boolV(a == b) }
	case token.NEQ:
		f = func(a, b float64) V { return boolV(a != b) }
	case token.LSS:
		f = func(a, b float64) V { return boolV(a < b) }
	case token.LEQ:
		f = func(a, b float64) V { return boolV(a <= b) }
	case token.GTR:
		f = func(a, b float64) V { return boolV(a > b) }
	case token.GEQ:
		f = func(a, b float64) V { return boolV(a >= b) }
	default:
		return nil
	}
	return func(fr *frame) (V, string) { return f(x.get(fr).F(), y.get(fr).F()), "" }
}

func stringBinop(tok token.Token, x, y operand) func(fr *frame) (V, string) {
	s := func(o operand, fr *frame) string { v, _ := o.get(fr).R.(string); return v }
	var f func(a, b string) V
	switch tok {
	case token.ADD:
		f = func(a, b string) V { return V{R: a + b} }
	case token.EQL:
		f = func(a, b string) V { return boolV(a == b) }
	case token.NEQ:
		f = func(a, b string) V { return boolV(a != b) }
	case token.LSS:
		f = func(a, b string) V { return boolV(a < b) }
	case token.LEQ:
		f = func(a, b string) V { return boolV(a <= b) }
	case token.GTR:
		f = func(a, b string) V { return boolV(a > b) }
	case token.GEQ:
		f = func(a, b string) V { return boolV(a >= b) }
	default:
		return nil
	}
	return func(fr *frame) (V, string) { return f(s(x, fr), s(y, fr)), "" }
}

func intBinop(tok token.Token, x, y operand, unsigned bool, w func(int64) int64) func(fr *frame) (V, string) {
	var f func(a, b int64) (int64, string)
	switch tok {
	case token.ADD:
		f = func(a, b int64) (int64, string) { return a + b, "" }
	case token.SUB:
		f = func(a, b int64) (int64, string) { return a - b, "" }
	case token.MUL:
		f = func(a, b int64) (int64, string) { return a * b, "" }
	case token.QUO:
		f = func(a, b int64) (int64, string) {
			if b == 0 {
				return 0, "integer divide by zero"
			}
			if unsigned {
				return int64(uint64(a) / uint64(b)), ""
			}
			if b == -1 {
				return -a, ""
			}
			return a / b, ""
		}
	case token.REM:
		f = func(a, b int64) (int64, string) {
			if b == 0 {
				return 0, "integer divide by zero"
			}
			if unsigned {
				return int64(uint64(a) % uint64(b)), ""
			}
			if b == -1 {
				return 0, ""
			}
			return a % b, ""
		}
	case token.AND:
		f = func(a, b int64) (int64, string) { return a & b, "" }
	case token.OR:
		f = func(a, b int64) (int64, string) { return a | b, "" }
	case token.XOR:
		f = func(a, b int64) (int64, string) { return a ^ b, "" }
	case token.AND_NOT:
		f = func(a, b int64) (int64, string) { return a &^ b, "" }
	case token.SHL:
		f = func(a, b int64) (int64, string) {
			if uint64(b) >= 64 {
				return 0, ""
			}
			return a << uint64(b), ""
		}
	case token.SHR:
		f = func(a, b int64) (int64, string) {
			if unsigned {
				if uint64(b) >= 64 {
					return 0, ""
				}
				return int64(uint64(a) >> uint64(b)), ""
			}
			return a >> min(uint64(b), 63), ""
		}
	case token.EQL:
		f = func(a, b int64) (int64, string) { return b2i(a == b), "" }
	case token.NEQ:
		f = func(a, b int64) (int64, string) { return b2i(a != b), "" }
	case token.LSS:
		f = func(a, b int64) (int64, string) { return b2i(less(a, b, unsigned)), "" }
	case token.LEQ:
		f = func(a, b int64) (int64, string) { return b2i(!less(b, a, unsigned)), "" }
	case token.GTR:
		f = func(a, b int64) (int64, string) { return b2i(less(b, a, unsigned)), "" }
	case token.GEQ:
		f = func(a, b int64) (int64, string) { return b2i(!less(a, b, unsigned)), "" }
	default:
		return nil
	}
	cmp := tok == token.EQL || tok == token.NEQ || tok == token.LSS || tok == token.LEQ || tok == token.GTR || tok == token.GEQ
	return func(fr *frame) (V, string) {
		r, err := f(x.get(fr).I, y.get(fr).I)
		if w != nil && !cmp {
			r = w(r)
		}
		return intV(r), err
	}
}

func less(a, b int64, unsigned bool) bool {
	if unsigned {
		return uint64(a) < uint64(b)
	}
	return a < b
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func (c *compiler) convert(cf *function, in *ssa.Convert) func(fr *frame) (V, string) {
	x := c.operand(cf, in.X)
	from, to := in.X.Type(), in.Type()
	w := wrap(to)
	switch {
	case isFloat(from) && isFloat(to):
		if basicInfo(to)&types.IsFloat != 0 && to.Underlying().(*types.Basic).Kind() == types.Float32 {
			return func(fr *frame) (V, string) { return floatV(float64(float32(x.get(fr).F()))), "" }
		}
		return func(fr *frame) (V, string) { return x.get(fr), "" }
	case isFloat(from) && isInteger(to):
		return func(fr *frame) (V, string) {
			f := x.get(fr).F()
			var r int64
			if isUnsigned(to) {
				r = int64(uint64(f))
			} else {
				r = int64(f)
			}
			if w != nil {
				r = w(r)
			}
			return intV(r), ""
		}
	case isInteger(from) && isFloat(to):
		u := isUnsigned(from)
		return func(fr *frame) (V, string) {
			i := x.get(fr).I
			if u {
				return floatV(float64(uint64(i))), ""
			}
			return floatV(float64(i)), ""
		}
	case isInteger(from) && isInteger(to):
		return func(fr *frame) (V, string) {
			r := x.get(fr).I
			if w != nil {
				r = w(r)
			}
			return intV(r), ""
		}
	case isInteger(from) && isString(to):
		return func(fr *frame) (V, string) { return V{R: string(rune(x.get(fr).I))}, "" }
	case isString(to):
		// []byte or []rune to string.
		return func(fr *frame) (V, string) {
			s, ok := x.get(fr).R.(*sliceV)
			if !ok {
				return V{R: ""}, ""
			}
			var b []rune
			for i := range s.len {
				b = append(b, rune(s.a.load(s.off+i).I))
			}
			if _, isByte := in.X.Type().Underlying().(*types.Slice).Elem().Underlying().(*types.Basic); isByte &&
				in.X.Type().Underlying().(*types.Slice).Elem().Underlying().(*types.Basic).Kind() == types.Byte {
				bs := make([]byte, len(b))
				for i, r := range b {
					bs[i] = byte(r)
				}
				return V{R: string(bs)}, ""
			}
			return V{R: string(b)}, ""
		}
	case isString(from):
		// string to []byte or []rune.
		elem := to.Underlying().(*types.Slice).Elem()
		runes := elem.Underlying().(*types.Basic).Kind() == types.Rune
		return func(fr *frame) (V, string) {
			s, _ := x.get(fr).R.(string)
			var vals []V
			if runes {
				for _, r := range s {
					vals = append(vals, intV(int64(r)))
				}
			} else {
				for i := range len(s) {
					vals = append(vals, intV(int64(s[i])))
				}
			}
			return V{R: &sliceV{a: &array{n: len(vals), elems: vals}, len: len(vals), cap: len(vals)}}, ""
		}
	}
	// unsafe.Pointer and other conversions keep the value.
	return func(fr *frame) (V, string) { return x.get(fr), "" }
}

func (c *compiler) typeAssert(cf *function, in *ssa.TypeAssert) func(fr *frame) (V, string) {
	x := c.operand(cf, in.X)
	at := in.AssertedType
	_, toIface := at.Underlying().(*types.Interface)
	return func(fr *frame) (V, string) {
		v := x.get(fr)
		i, _ := v.R.(*iface)
		ok := false
		var res V
		switch {
		case i == nil:
		case toIface:
			ok = types.Implements(i.t, at.Underlying().(*types.Interface))
			res = v
		default:
			ok = types.Identical(i.t, at)
			res = i.v
		}
		if in.CommaOk {
			if !ok {
				res = zeroOf(at)
			}
			return V{R: tuple{res, boolV(ok)}}, ""
		}
		if !ok {
			return V{}, fmt.Sprintf("interface conversion: interface is not %s", at)
		}
		return res, ""
	}
}

func (c *compiler) slice(cf *function, in *ssa.Slice) func(fr *frame) (V, string) {
	x := c.operand(cf, in.X)
	bound := func(v ssa.Value) *operand {
		if v == nil {
			return nil
		}
		o := c.operand(cf, v)
		return &o
	}
	lo, hi, mx := bound(in.Low), bound(in.High), bound(in.Max)
	dst, alt := c.slot(cf, in), c.reuseSlot(cf, in)
	window := func(fr *frame, a *array, off, n, cp int) V {
		if last := fr.sameSlice(dst, alt, a, off, n, cp); last != nil {
			return *last
		}
		return V{R: &sliceV{a: a, off: off, len: n, cap: cp}}
	}
	return func(fr *frame) (V, string) {
		get := func(o *operand, def int) int {
			if o == nil {
				return def
			}
			return int(o.get(fr).I)
		}
		switch r := target(x.get(fr)).(type) {
		case string:
			l, h := get(lo, 0), get(hi, len(r))
			if l < 0 || h < l || h > len(r) {
				return V{}, fmt.Sprintf("slice bounds out of range [%d:%d] with length %d", l, h, len(r))
			}
			return V{R: r[l:h]}, ""
		case *sliceV:
			l, h, m := get(lo, 0), get(hi, r.len), get(mx, r.cap)
			if l < 0 || h < l || m < h || m > r.cap {
				return V{}, fmt.Sprintf("slice bounds out of range [%d:%d:%d] with capacity %d", l, h, m, r.cap)
			}
			return window(fr, r.a, r.off+l, h-l, m-l), ""
		case *array:
			l, h, m := get(lo, 0), get(hi, r.n), get(mx, r.n)
			if l < 0 || h < l || m < h || m > r.n {
				return V{}, fmt.Sprintf("slice bounds out of range [%d:%d:%d] with length %d", l, h, m, r.n)
			}
			return window(fr, r, l, h-l, m-l), ""
		case nil:
			if get(lo, 0) == 0 && get(hi, 0) == 0 {
				if isString(in.Type()) {
					return V{R: ""}, ""
				}
				return V{}, ""
			}
		}
		return V{}, "slice of a value the reduced model does not hold"
	}
}

// blockOf returns the compiled block of b, creating the blocks (not yet
// their ops) if needed.
func (cf *function) blockOf(b *ssa.BasicBlock) *block {
	if cf.blocks == nil {
		cf.blocks = make([]*block, len(cf.ssa.Blocks))
		for i := range cf.ssa.Blocks {
			cf.blocks[i] = &block{index: i}
		}
	}
	return cf.blocks[b.Index]
}

// ifOp compiles a branch: on its condition when the model keeps it, on the
// replayed outcomes of the decision when the condition is opaque.
func (c *compiler) ifOp(cf *function, cb *block, in *ssa.If) op {
	yes, no := cb.succs[0], cb.succs[1]
	kept := cf.full || c.computed(in.Cond)
	if ob := c.opaqueIf[in]; ob.d != nil && !cf.full {
		d, negate := ob.d, ob.negate
		return func(p *proc, fr *frame) ctl {
			if p.decide(d) != negate {
				return p.jump(fr, yes)
			}
			return p.jump(fr, no)
		}
	}
	cond := c.operand(cf, in.Cond)
	if !kept {
		// Neither computed nor replayed (the reduction found no reason
		// to keep it): the branch goes the false way, and the run says so.
		site := c.l.Pos(in.Pos()).String()
		if !in.Pos().IsValid() {
			site = c.l.Pos(in.Cond.Pos()).String()
		}
		return func(p *proc, fr *frame) ctl {
			p.w.noteAssumption(site, "a branch whose condition the model does not compute is taken as false")
			return p.jump(fr, no)
		}
	}
	return func(p *proc, fr *frame) ctl {
		if cond.get(fr).B() {
			return p.jump(fr, yes)
		}
		return p.jump(fr, no)
	}
}

// opaqueBranch is a branch replayed from an opaque decision: the outcome
// of the decision's condition, negated when the branch tests the operand
// of a not.
type opaqueBranch struct {
	d      *decision
	negate bool
}

// computed reports whether the reduced model computes v.
func (c *compiler) computed(v ssa.Value) bool {
	if instr, ok := v.(ssa.Instruction); ok {
		return c.keep[instr]
	}
	return true
}
