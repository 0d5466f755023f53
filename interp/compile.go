// This file compiles the reduced model into the interpreter's form: per
// function, slot-indexed frames and per block the kept instructions as
// closures, with the measured times inserted where the fragments start.

package interp

import (
	"fmt"
	"go/token"

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
	// cPark: the process waited for communication that was already
	// complete, to a later clock, on a node with more ranks than cores:
	// it gives its core up while it waits and takes one again when ready
	// (nodecores.go); the op is done.
	cPark
	// cPreempt: the process used up its time slice on a node where ranks
	// wait for a core: it gives its core up and waits for one, with the
	// rest of its compute to do (nodecores.go); the op is done.
	cPreempt
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
	cp        *Compiled
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
	// listUnsupported: failOp also lists what it compiles (unsupported.go).
	listUnsupported bool
	unsupported     []Unsupported
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
			b = &box{v: zeroOf(globalType(v))}
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
	if c.listUnsupported {
		c.unsupported = append(c.unsupported, Unsupported{Pos: where, What: msg})
	}
	return func(p *proc, fr *frame) ctl {
		return p.fail(where, msg)
	}
}

// instr compiles one instruction.
func (c *compiler) instr(cf *function, cb *block, instr ssa.Instruction) op {
	if op := c.channelOp(cf, instr); op != nil {
		return op
	}
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
		if !aggregate(in.Val.Type()) {
			return func(p *proc, fr *frame) ctl {
				storeTo(addr.get(fr), val.get(fr))
				return cNext
			}
		}
		return func(p *proc, fr *frame) ctl {
			storeTo(addr.get(fr), copyValue(val.get(fr)))
			return cNext
		}
	case *ssa.Call:
		return c.call(cf, in)
	case *ssa.MapUpdate:
		return c.mapUpdate(cf, in)
	case *ssa.Defer:
		return c.deferOp(cf, in)
	case *ssa.RunDefers:
		return func(p *proc, fr *frame) ctl { return p.runDefers(fr) }
	case *ssa.Go:
		return c.spawnOp(cf, in)
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
