// This file defines the loop plan: per loop of the model, the facts that the
// timing pass and the interpreter both read (its blocks, induction, trip
// formula, where an iteration starts) and the verdict, with its reason, on
// how the interpreter runs it when the timing pass times it whole.

package reduce

import (
	"go/token"
	"maps"
	"slices"
	"sync"

	"github.com/predict-tools/predict/model"
	"golang.org/x/tools/go/ssa"
)

// Verdict is how the interpreter runs a loop that the timing pass times
// whole.
type Verdict string

const (
	// Collapse: its trip count is known on entry (computed, replayed or
	// until a moment of modeled time) and nothing after it needs what it
	// computes: its time is charged at once.
	Collapse Verdict = "collapse"
	// Iterate: it runs iteration by iteration, each charged the measured
	// time of an iteration.
	Iterate Verdict = "iterate"
	// Units: a sealed nest whose skeleton the model can run: its outer
	// levels run, its innermost loops are collapsed, each charged its
	// iterations (and the elements its copies move) × the time of a unit.
	Units Verdict = "units"
)

// TripSource says where the trip count of a collapsed loop comes from.
type TripSource string

const (
	TripsCounted  TripSource = "counted"  // its induction, on entry
	TripsClock    TripSource = "clock"    // it runs until a moment of modeled time
	TripsReplayed TripSource = "replayed" // the timing pass records them per rank
	TripsNone     TripSource = ""         // none: its condition is not a single test
)

// Loop is the plan of one loop of the model.
type Loop struct {
	Node *model.Node
	Fn   *ssa.Function
	// Header is the block of the loop's test, or of its induction's φ
	// when it is counted; nil when its condition is not a single test.
	Header *ssa.BasicBlock
	// Blocks are the natural loop of Header (the model's leaves miss
	// blocks that hold only a jump), or the blocks its leaves cover.
	Blocks map[int]bool
	// Test is the branch of its condition (nil when not a single test);
	// Guards are the branches deciding whether it runs at all (a loop
	// tested at the bottom is preceded by one).
	Test   *ssa.If
	Guards []*ssa.If
	// Ind is its induction when it is counted (also without a formula),
	// Trips the trip-count formula, Work the runs of its innermost body
	// per entry for a perfect nest.
	Ind *Induction
	// Counter is its induction in the program itself, also when the
	// model does not compute its bound (opaque): the timing pass can
	// compute its trips before it runs.
	Counter *Induction
	Trips   string
	Work    string
	// Inner, for the head of a perfect nest, is the inner loop's
	// induction when its start and bound do not change in this loop: its
	// count is known on entry.
	Inner *Induction
	// Clock is set for a loop that runs until a moment of modeled time
	// ("for Wtime() < end").
	Clock *Clock
	// Sealed: nothing is kept inside it but its loops' tests; the
	// interpreter must collapse it or run it as units.
	Sealed bool
	// Exit and ExitFrom are its only exit edge, when it has one (nil when
	// it is left from several places or never).
	Exit, ExitFrom *ssa.BasicBlock
	// RunHeader: its bound is computed in its header, whose kept
	// instructions run first when it is collapsed.
	RunHeader bool
	// BoundOnEntry: its bound is read inside it but not in its header
	// (a do-while's test at the bottom) and does not change in it: the
	// interpreter computes it on entry.
	BoundOnEntry bool
	// IterStart is where an iteration starts: the header's first
	// instruction when the test is at the bottom, else that of the
	// header's successor inside the loop (nil when it has no header).
	IterStart ssa.Instruction
	// Source is where a collapsed loop's trips come from; Verdict and
	// Why say how the interpreter runs it when timed whole. Collapse
	// with TripsReplayed holds only when the profile recorded its trip
	// counts per rank.
	Source  TripSource
	Verdict Verdict
	Why     string
	// Whole: the timing pass may time it whole (it neither communicates
	// nor holds an opaque decision that decides what the model keeps).
	Whole bool
	// Units is set when the nest can be counted in units.
	Units *UnitNest
	// Measure says what the timing pass measures for it.
	Measure string
}

// Clock is the test of a loop that runs until a moment of modeled time:
// it goes on while Wtime() Op Bound.
type Clock struct {
	Op    token.Token
	Bound ssa.Value
}

// UnitNest is a sealed loop nest counted in units: its innermost loops,
// the bounds of the slices each one's copies move (per copy call: hi, lo
// or nil for each of its two arguments), and the jumps or guards into its
// header from outside (reached once per execution of the loop statement).
type UnitNest struct {
	Innermost []*model.Node
	Copies    map[*model.Node][][]ssa.Value
	Entries   []ssa.Instruction
}

// Plan is the loop plan of a reduced program, with what its verdicts and
// the interpreter rest on: the kept instructions, the allocations kept as
// shapes, and the functions without kept effects.
type Plan struct {
	Loops  []*Loop // by function, then position
	byNode map[*model.Node]*Loop
	keep   map[ssa.Instruction]bool
	shapes map[ssa.Value]bool
	// opaqueArgs are the commlib calls' arguments that depend on data
	// the model does not compute (OpaqueArgs).
	opaqueArgs map[ssa.CallInstruction][]OpaqueArg
	quiet      map[*ssa.Function]bool
	models     map[*ssa.Function]*model.Function
	// sealed are the functions the model never enters, with why
	// (sealcall.go).
	sealed      map[*ssa.Function]string
	sealedSites map[*ssa.Call]string
	// naturals caches CFGLoop, which runs of several compiled programs
	// call at once.
	naturalsMu sync.Mutex
	naturals   map[*ssa.BasicBlock]map[int]bool
}

// Loop returns the plan of loop node n, or nil.
func (p *Plan) Loop(n *model.Node) *Loop { return p.byNode[n] }

// ShapeOnly reports whether v, an allocation or an append, is kept as a
// shape: its length and capacity, not its elements.
func (p *Plan) ShapeOnly(v ssa.Value) bool { return p.shapes[v] }

// Kept returns the instructions the reduced model keeps (read only).
func (p *Plan) Kept() map[ssa.Instruction]bool { return p.keep }

// Computed reports whether the reduced model computes v.
func (p *Plan) Computed(v ssa.Value) bool {
	if instr, ok := v.(ssa.Instruction); ok {
		return p.keep[instr]
	}
	return true
}

// buildPlan makes the loop plan of prog, once the reduction is written
// into it (the leaves' kept instructions).
func (a *analysis) buildPlan(prog *model.Program) *Plan {
	p := &Plan{byNode: map[*model.Node]*Loop{}, keep: map[ssa.Instruction]bool{}, shapes: a.shapes, opaqueArgs: a.opaqueArgs, models: map[*ssa.Function]*model.Function{},
		naturals: map[*ssa.BasicBlock]map[int]bool{}}
	sealed := map[*model.Node]bool{}
	for _, s := range a.sealedLoops {
		sealed[s.node] = true
	}
	p.sealed, p.sealedSites = map[*ssa.Function]string{}, map[*ssa.Call]string{}
	for fn, s := range a.sealedFn {
		p.sealed[fn] = s.why
	}
	for call, s := range a.sealedSites {
		p.sealedSites[call] = s.why
	}
	for _, f := range prog.Functions {
		fn := a.ssaOf[f]
		p.models[fn] = f
		for _, tree := range []*model.Node{f.Tree, f.Recover} {
			model.Walk(tree, func(n *model.Node) bool {
				if n.Leaf != nil {
					for _, k := range n.Leaf.Keep {
						p.keep[fn.Blocks[n.Leaf.Block].Instrs[n.Leaf.First+k]] = true
					}
				}
				return true
			})
		}
	}
	p.quiet = p.quietFuncs()
	for _, f := range prog.Functions {
		fn := a.ssaOf[f]
		for _, tree := range []*model.Node{f.Tree, f.Recover} {
			model.Walk(tree, func(n *model.Node) bool {
				if n.Kind == model.KindLoop {
					l := a.planLoop(p, fn, n, sealed[n])
					p.Loops = append(p.Loops, l)
					p.byNode[n] = l
				}
				return true
			})
		}
	}
	for _, l := range p.Loops {
		if p.sealed[l.Fn] != "" {
			// Never run: the timing pass times the recursion's calls
			// whole, with everything in it.
			l.Whole, l.Verdict = false, Collapse
			l.Why = "never run: it is in a function the model never enters (sealed), whose calls are timed whole"
			l.Measure = "nothing apart: its time is in its function's calls"
			continue
		}
		l.Units = p.unitNest(l)
		if l.Units != nil {
			l.Verdict, l.Why = Units, "a sealed nest the model runs as a skeleton: its innermost iterations are counted"
		}
	}
	return p
}

// planLoop makes the plan of loop n of fn.
func (a *analysis) planLoop(p *Plan, fn *ssa.Function, n *model.Node, sealed bool) *Loop {
	l := &Loop{Node: n, Fn: fn, Blocks: model.Blocks(n), Ind: a.counted[n], Counter: a.counted[n], Test: loopTest(fn, n), Sealed: sealed}
	if l.Counter == nil {
		l.Counter = a.counter(fn, n)
	}
	compound := l.Test == nil && !n.Loop.TestAtBottom && len(loopTests(fn, n)) > 1
	if compound {
		// A condition of several tests (i < len(x) && j < len(y)): the
		// loop starts at its first, the block that dominates the loop's
		// others, and an iteration where the tests let the body run.
		l.Header = compoundHeader(fn, l.Blocks)
	}
	if t := n.Loop.Trip; t != nil {
		l.Trips, l.Work = t.Formula, t.Nest
		// A loop with no header to run it from or to charge its
		// iterations at (a bottom test of several conditions) has its
		// parts timed instead.
		l.Whole = t.Communicates == "" && t.Replays == "" && (l.Test != nil || l.Header != nil)
	}
	if l.Test != nil {
		l.Header = l.Test.Block()
		if n.Loop.TestAtBottom {
			// The test is in the latch: the header is where its back
			// edge goes (the latch itself for a loop of one block).
			for _, s := range l.Header.Succs {
				if s.Dominates(l.Header) {
					l.Header = s
					break
				}
			}
		}
	}
	if l.Ind != nil {
		l.Header = l.Ind.Phi.Block()
	}
	if l.Header != nil {
		l.Blocks = naturalLoop(l.Header, l.Blocks)
		l.Clock = clockTest(l.Header, l.Blocks)
		if compound {
			// Not the header's successor: with &&, that is the next test.
			l.IterStart = bodyStart(fn, n, l.Blocks)
		} else {
			l.IterStart = iterStart(n, l.Header, l.Blocks)
		}
	}
	l.Guards = loopGuards(fn, n, l.Ind)
	if in := model.InnerLoop(n); in != nil && a.counted[in] != nil && l.Ind != nil {
		if ii := a.counted[in]; ii.StepValue == nil && !a.varies(ii.Init, l.Blocks) && !a.varies(ii.Bound, l.Blocks) {
			l.Inner = ii
		}
	}
	l.Verdict, l.Why = p.verdict(l)
	if t := n.Loop.Trip; t != nil && l.Verdict == Iterate {
		// Not timed whole at all: say why first.
		switch {
		case t.Communicates != "":
			l.Why = t.Communicates
		case t.Replays != "":
			l.Why = t.Replays
		}
	}
	l.Measure = measure(l)
	return l
}

// verdict decides whether loop l, timed whole, may be collapsed: its trip
// count known on entry, left only by its test, and no value or effect it
// computes needed after it.
func (p *Plan) verdict(l *Loop) (Verdict, string) {
	fn := l.Fn
	switch {
	case l.Header == nil:
		return Iterate, "no trip count: neither a counted loop nor one replayed from the profile"
	case l.Ind != nil:
		l.Source = TripsCounted
	case l.Clock != nil:
		l.Source = TripsClock
	default:
		l.Source = TripsReplayed
	}
	var edges int
	switch l.Exit, l.ExitFrom, edges = loopExit(fn, l.Blocks); edges {
	case 0:
		return Iterate, "it is never left by its test"
	case 2:
		// Its tests (a condition of several) may leave it for one block
		// from several: no matter from which when that block has no φ
		// the model keeps.
		if l.Test != nil || !p.oneExit(l) {
			return Iterate, "it is left from several places"
		}
	}
	if ind := l.Ind; ind != nil {
		// The bound must be known on entry: computed before the loop
		// or in its header.
		if bi, ok := ind.Bound.(ssa.Instruction); ok && bi.Block() != nil && l.Blocks[bi.Block().Index] {
			l.RunHeader = true
			if bi.Block() != l.Header || l.ExitFrom != l.Header || !p.pureBlock(l.Header) {
				// Read elsewhere in it (a do-while's bottom test): it is
				// computed on entry when it does not change in it.
				l.RunHeader = false
				if !p.Invariant(ind.Bound, l.Blocks) {
					return Iterate, "its bound is computed inside it"
				}
				l.BoundOnEntry = true
			}
		}
		if ii, ok := ind.Init.(ssa.Instruction); ok && ii.Block() != nil && l.Blocks[ii.Block().Index] {
			return Iterate, "its start is computed inside it"
		}
	}
	for _, b := range slices.Sorted(maps.Keys(l.Blocks)) {
		blk := fn.Blocks[b]
		for _, instr := range blk.Instrs {
			if !p.keep[instr] {
				continue
			}
			if call, ok := instr.(*ssa.Call); !ok || !p.QuietCall(call) { // a quiet call has no effect the model keeps
				switch in := instr.(type) {
				case *ssa.Store, *ssa.Call, *ssa.Defer, *ssa.Go, *ssa.Return, *ssa.Panic, *ssa.Send, *ssa.MapUpdate, *ssa.Select:
					return Iterate, "it has effects the model keeps"
				case *ssa.UnOp:
					if in.Op == token.ARROW {
						return Iterate, "it receives from a channel"
					}
				}
			}
			v, ok := instr.(ssa.Value)
			if !ok || (l.Ind != nil && v == ssa.Value(l.Ind.Phi)) {
				continue
			}
			for _, ref := range *v.Referrers() {
				if ref.Block() != nil && !l.Blocks[ref.Block().Index] && p.keep[ref] {
					return Iterate, "a value it computes is used after it"
				}
			}
		}
	}
	if l.Clock != nil && l.ExitFrom != l.Header {
		return Iterate, "it runs until a moment of modeled time but is not left from its test"
	}
	switch l.Source {
	case TripsCounted:
		return Collapse, "counted: its trip count is computed on entry"
	case TripsClock:
		return Collapse, "it runs until a moment of modeled time"
	}
	return Collapse, "its trip counts are replayed from the profile, per rank"
}

// compoundHeader returns the block of blocks (a loop's) that dominates
// the others: where a loop whose condition has several tests starts.
func compoundHeader(fn *ssa.Function, blocks map[int]bool) *ssa.BasicBlock {
	for _, b := range slices.Sorted(maps.Keys(blocks)) {
		h := fn.Blocks[b]
		all := true
		for o := range blocks {
			if !h.Dominates(fn.Blocks[o]) {
				all = false
				break
			}
		}
		if all {
			return h
		}
	}
	return nil
}

// bodyStart returns where an iteration of loop n, whose condition has
// several tests, starts: the first instruction of the one block inside
// the loop that a test branches to and that is not a test's; nil when
// there is not exactly one.
func bodyStart(fn *ssa.Function, n *model.Node, blocks map[int]bool) ssa.Instruction {
	tests := map[*ssa.BasicBlock]bool{}
	for _, iff := range loopTests(fn, n) {
		tests[iff.Block()] = true
	}
	var body *ssa.BasicBlock
	for t := range tests {
		for _, s := range t.Succs {
			if !blocks[s.Index] || tests[s] {
				continue
			}
			if body != nil && body != s {
				return nil
			}
			body = s
		}
	}
	if body == nil {
		return nil
	}
	return firstNonPhi(body, 0)
}

// oneExit reports whether every edge that leaves loop l goes to one block
// with no φ the model keeps, and makes the header's edge (or the first)
// l's exit edge.
func (p *Plan) oneExit(l *Loop) bool {
	fn := l.Fn
	var exit, from *ssa.BasicBlock
	for _, b := range slices.Sorted(maps.Keys(l.Blocks)) {
		for _, s := range fn.Blocks[b].Succs {
			if l.Blocks[s.Index] {
				continue
			}
			if exit != nil && s != exit {
				return false
			}
			if exit == nil || fn.Blocks[b] == l.Header {
				exit, from = s, fn.Blocks[b]
			}
		}
	}
	if exit == nil {
		return false
	}
	for _, instr := range exit.Instrs {
		if phi, ok := instr.(*ssa.Phi); ok && p.keep[phi] {
			return false
		}
	}
	l.Exit, l.ExitFrom = exit, from
	return true
}

// measure says what the timing pass measures for loop l.
func measure(l *Loop) string {
	t := l.Node.Loop.Trip
	switch {
	case !l.Whole && t != nil && t.Communicates != "":
		return "its parts: it communicates, so it is not timed whole"
	case !l.Whole && t != nil:
		return "its parts and its opaque decisions: " + t.Replays
	case l.Units != nil:
		return "its time per entry, spread over the innermost iterations the model counts"
	case l.Ind != nil && l.Trips != "" && l.Ind.StepValue != nil:
		return "its time per entry and per iteration; its trips are counted as it runs (its step is a value, not a constant)"
	case l.Ind != nil && l.Trips != "":
		return "its time per entry and per iteration; its trips are computed before it runs"
	}
	return "its time per entry and per iteration, and its trip counts per rank"
}

// iterStart returns the instruction where an iteration of loop n starts:
// the header's first when its test is at the bottom (the header runs once
// per iteration), else the first of the header's successor in the loop.
func iterStart(n *model.Node, header *ssa.BasicBlock, blocks map[int]bool) ssa.Instruction {
	if n.Loop != nil && n.Loop.TestAtBottom {
		return firstNonPhi(header, 0)
	}
	for _, s := range header.Succs {
		if blocks[s.Index] && s != header {
			return firstNonPhi(s, 0)
		}
	}
	return nil
}

// firstNonPhi returns the first instruction of b from index from on that
// is not a φ, or nil.
func firstNonPhi(b *ssa.BasicBlock, from int) ssa.Instruction {
	for i := from; i < len(b.Instrs); i++ {
		if _, ok := b.Instrs[i].(*ssa.Phi); !ok {
			return b.Instrs[i]
		}
	}
	return nil
}

// clockTest returns the header's test as a Clock when it compares
// commlib.Wtime() with a value computed before the loop and the loop goes
// on on its true edge.
func clockTest(header *ssa.BasicBlock, blocks map[int]bool) *Clock {
	iff, ok := header.Instrs[len(header.Instrs)-1].(*ssa.If)
	if !ok {
		return nil
	}
	bin, ok := iff.Cond.(*ssa.BinOp)
	if !ok {
		return nil
	}
	switch bin.Op {
	case token.LSS, token.LEQ, token.GTR, token.GEQ:
	default:
		return nil
	}
	isWtime := func(v ssa.Value) bool {
		call, ok := v.(*ssa.Call)
		if !ok {
			return false
		}
		f := call.Call.StaticCallee()
		return f != nil && isCommlib(f) && opName(f) == "Wtime"
	}
	outside := func(v ssa.Value) bool {
		i, ok := v.(ssa.Instruction)
		return !ok || i.Block() == nil || !blocks[i.Block().Index]
	}
	if !blocks[header.Succs[0].Index] {
		return nil
	}
	switch {
	case isWtime(bin.X) && outside(bin.Y):
		return &Clock{Op: bin.Op, Bound: bin.Y}
	case isWtime(bin.Y) && outside(bin.X):
		return &Clock{Op: mirror(bin.Op), Bound: bin.X}
	}
	return nil
}

// pureBlock reports whether the kept instructions of b are values without
// calls or effects (the header of a collapsed loop runs them).
func (p *Plan) pureBlock(b *ssa.BasicBlock) bool {
	for _, instr := range b.Instrs {
		if !p.keep[instr] {
			continue
		}
		switch in := instr.(type) {
		case *ssa.Call:
			if !pureBuiltin(in) {
				return false
			}
		case *ssa.Store, *ssa.Defer, *ssa.Go, *ssa.Panic, *ssa.Send, *ssa.MapUpdate, *ssa.RunDefers:
			return false
		}
	}
	return true
}

// pureBuiltin reports whether call is of a builtin without effects.
func pureBuiltin(call *ssa.Call) bool {
	b, ok := call.Call.Value.(*ssa.Builtin)
	if !ok {
		return false
	}
	switch b.Name() {
	case "len", "cap", "min", "max":
		return true
	}
	return false
}

// CFGLoop returns the blocks of the natural loop of header in the control
// flow graph (header alone when no back edge reaches it). Safe for
// concurrent use (runs of several compiled programs share the plan).
func (p *Plan) CFGLoop(header *ssa.BasicBlock) map[int]bool {
	p.naturalsMu.Lock()
	defer p.naturalsMu.Unlock()
	if l, ok := p.naturals[header]; ok {
		return l
	}
	l := naturalLoop(header, map[int]bool{header.Index: true})
	p.naturals[header] = l
	return l
}

// InnermostLoop returns the blocks of the innermost natural loop of the
// control flow graph that holds b, and its header, or nil; loops of a
// single block are skipped.
func (p *Plan) InnermostLoop(b *ssa.BasicBlock) (map[int]bool, *ssa.BasicBlock) {
	var best map[int]bool
	var header *ssa.BasicBlock
	for _, h := range b.Parent().Blocks {
		if !h.Dominates(b) {
			continue
		}
		back := false
		for _, pr := range h.Preds {
			if pr == h || h.Dominates(pr) {
				back = true
			}
		}
		if !back {
			continue
		}
		// A block that loops on itself alone does not count: it is the
		// header of a loop of one block, run whole when collapsed.
		if loop := naturalLoop(h, nil); loop[b.Index] && (best == nil || len(loop) < len(best)) {
			best, header = loop, h
		}
	}
	return best, header
}
