// This file defines trip-count formulas and collapse candidates.

package reduce

import (
	"fmt"
	"github.com/predict-tools/predict/commlib/catalog"
	"go/constant"
	"go/token"
	"go/types"
	"strconv"
	"strings"

	"github.com/predict-tools/predict/model"
	"golang.org/x/tools/go/ssa"
)

// pureQueries are commlib calls that do not communicate or synchronize:
// the catalog's queries and topology computations, and a pool's size.
var pureQueries = func() map[string]bool {
	m := map[string]bool{"Pool.Size": true}
	for _, o := range catalog.All() {
		if o.Class == catalog.ClassQuery || o.Class == catalog.ClassTopology {
			m[o.Name] = true
		}
	}
	return m
}()

// communicates reports, for every function, whether it communicates or
// synchronizes (directly or through the functions it calls). The model's
// shape decides it: it is computed once.
func (a *analysis) communicates(prog *model.Program) map[string]string {
	if a.comm == nil {
		a.comm = communicatesIn(prog)
	}
	return a.comm
}

func communicatesIn(prog *model.Program) map[string]string {
	direct := map[string]string{}
	calls := map[string][]string{}
	for _, f := range prog.Functions {
		model.Walk(f.Tree, func(n *model.Node) bool {
			lf := n.Leaf
			if lf == nil {
				return true
			}
			switch lf.Kind {
			case model.LeafCFC:
				if !pureQueries[lf.Op] && direct[f.ID] == "" {
					direct[f.ID] = lf.Op + " at " + n.Pos.Start.String()
				}
			case model.LeafSpawn:
				if direct[f.ID] == "" {
					direct[f.ID] = "go statement at " + n.Pos.Start.String()
				}
			case model.LeafUFC:
				calls[f.ID] = append(calls[f.ID], lf.Callee)
				calls[f.ID] = append(calls[f.ID], lf.Targets...)
			}
			return true
		})
	}
	for changed := true; changed; {
		changed = false
		for id, cs := range calls {
			if direct[id] != "" {
				continue
			}
			for _, c := range cs {
				if direct[c] != "" {
					direct[id] = "a call of " + c + ", which communicates (" + direct[c] + ")"
					changed = true
					break
				}
			}
		}
	}
	return direct
}

// tripCount derives the trip count of loop node n of fn.
func (a *analysis) tripCount(fn *ssa.Function, n *model.Node, comm map[string]string) *model.TripCount {
	tc := &model.TripCount{}
	l := n.Loop
	switch l.Range {
	case "map":
		tc.Opaque = "range over a map: its order is random"
	case "chan":
		tc.Opaque = "range over a channel: it ends when the channel is closed"
	case "func":
		tc.Opaque = "range over a function: the iterator decides"
	}
	if tc.Opaque == "" {
		var ind *Induction
		tc.Formula, tc.Opaque, ind = a.loopFormula(fn, n)
		if ind != nil {
			a.induction[n] = a.expr(ind.Phi, 1)
			a.counted[n] = ind
		}
	}
	reason := a.loopCommunicates(n, comm)
	tc.Communicates = reason
	if reason == "" {
		tc.Replays = replayedDecision(n)
	}
	switch {
	case reason != "":
		tc.Reason = "not a collapse candidate: " + reason
	case tc.Formula == "":
		tc.Reason = "not a collapse candidate: no trip-count formula"
		if tc.Opaque != "" {
			tc.Reason += " (" + tc.Opaque + ")"
		}
	case tc.Replays != "":
		tc.Reason = "not a collapse candidate: " + tc.Replays
	default:
		tc.Candidate = true
	}
	return tc
}

// replayedDecision says which opaque decision inside loop n decides what
// the model keeps (a kept append to the next frontier under a branch on
// data the model does not hold), or is empty. The interpreter replays
// such a decision at each iteration, so the timing pass must record its
// outcomes rather than time the loop whole (which records none).
func replayedDecision(n *model.Node) string {
	l := n.Loop
	reason := ""
	for _, part := range []*model.Node{l.Header, l.Body, l.Post} {
		model.Walk(part, func(x *model.Node) bool {
			if reason != "" {
				return false
			}
			if x.Cond == nil || x.Kind == model.KindLoop {
				return true
			}
			test := opaqueTest(x.Cond)
			if test == nil {
				return true
			}
			for _, ch := range x.Children {
				if keepsAny(ch) {
					reason = "its opaque decision at " + test.Pos.Start.String() + " decides what the model keeps"
					return false
				}
			}
			return true
		})
	}
	return reason
}

// opaqueTest returns a test of cond replayed from the profile (opaque and
// not a check), or nil.
func opaqueTest(cond *model.Node) *model.Node {
	var t *model.Node
	model.Walk(cond, func(x *model.Node) bool {
		if t == nil && x.Kind == model.KindTest && x.Opaque != "" && x.Check == "" {
			t = x
		}
		return t == nil
	})
	return t
}

// keepsAny reports whether a leaf under n keeps an instruction.
func keepsAny(n *model.Node) bool {
	kept := false
	model.Walk(n, func(x *model.Node) bool {
		if x.Leaf != nil && len(x.Leaf.Keep) > 0 {
			kept = true
		}
		return !kept
	})
	return kept
}

// loopCommunicates says how loop n communicates or synchronizes, or is
// empty when it does neither.
func (a *analysis) loopCommunicates(n *model.Node, comm map[string]string) string {
	l := n.Loop
	reason := ""
	for _, part := range []*model.Node{l.Header, l.Body, l.Post, n.Cond} {
		model.Walk(part, func(x *model.Node) bool {
			if reason != "" || x.Leaf == nil {
				return reason == ""
			}
			switch lf := x.Leaf; lf.Kind {
			case model.LeafCFC:
				if !pureQueries[lf.Op] {
					reason = "it calls " + lf.Op + " at " + x.Pos.Start.String()
				}
			case model.LeafSpawn:
				reason = "it starts a goroutine at " + x.Pos.Start.String()
			case model.LeafUFC:
				for _, c := range append([]string{lf.Callee}, lf.Targets...) {
					if comm[c] != "" {
						reason = "it calls " + c + ", which communicates (" + comm[c] + ")"
						break
					}
				}
			}
			return reason == ""
		})
	}
	return reason
}

// loopFormula finds the trip count of a counted loop: the test compares an
// induction variable (a φ of the header stepped by a constant) with a
// bound that does not change in the loop. ind is the induction, also when
// the comparison has no formula.
func (a *analysis) loopFormula(fn *ssa.Function, n *model.Node) (formula, opaque string, ind *Induction) {
	iff, negated := condTest(fn, n)
	if iff == nil {
		return "", "", nil
	}
	if why := a.opaque[iff.Cond]; why != "" {
		return "", why, nil
	}
	return a.inductionAt(fn, n, iff, negated)
}

// counter returns the induction of loop n of fn in the program itself,
// also when the model does not compute its test (an opaque bound): the
// program knows its trip count before the loop runs.
func (a *analysis) counter(fn *ssa.Function, n *model.Node) *Induction {
	if n.Loop.Range == "map" || n.Loop.Range == "chan" || n.Loop.Range == "func" {
		return nil
	}
	iff, negated := condTest(fn, n)
	if iff == nil {
		return nil
	}
	_, _, ind := a.inductionAt(fn, n, iff, negated)
	return ind
}

// inductionAt finds the induction of loop n whose test is iff (of the
// loop's condition, negated when negated) and its trip-count formula.
func (a *analysis) inductionAt(fn *ssa.Function, n *model.Node, iff *ssa.If, negated bool) (formula, opaque string, ind *Induction) {
	bin, ok := iff.Cond.(*ssa.BinOp)
	if !ok {
		return "", "", nil
	}
	inLoop := model.Blocks(n)
	op, x, bound := bin.Op, bin.X, bin.Y
	if a.varies(bound, inLoop) {
		op, x, bound = mirror(op), bin.Y, bin.X
	}
	if a.varies(bound, inLoop) {
		return "", "", nil
	}
	if negated {
		op = negate(op)
	}
	phi, offset := inductionPhi(x)
	if phi == nil || !inLoop[phi.Block().Index] {
		return "", "", nil
	}
	var init, stepValue ssa.Value
	var step int64
	for i, e := range phi.Edges {
		pred := phi.Block().Preds[i]
		if inLoop[pred.Index] {
			p, s := inductionPhi(e)
			if p != phi || s == 0 {
				// A step the loop does not change: i += np.
				if stepValue = a.invariantStep(e, phi, inLoop); stepValue == nil {
					return "", "", nil
				}
			}
			step = s
		} else if init == nil {
			init = e
		} else {
			return "", "", nil
		}
	}
	if init == nil || step == 0 && stepValue == nil {
		return "", "", nil
	}
	ind = &Induction{Phi: phi, Init: init, Offset: offset, Bound: bound, Op: op, Step: step, StepValue: stepValue, TestAtBottom: n.Loop.TestAtBottom}
	first := a.plus(init, offset) // the first value tested
	hi := a.expr(bound, 3)
	// The step as a divisor, and whether the test counts up: a step that
	// is a value is taken as positive for a test that counts up (<, <=),
	// negative for one that counts down (>, >=): a step of the other sign
	// never ends the loop.
	var k string
	var up bool
	switch {
	case stepValue != nil && (op == token.LSS || op == token.LEQ):
		k, up = a.expr(stepValue, 3), true
	case stepValue != nil && (op == token.GTR || op == token.GEQ):
		k = "-" + a.expr(stepValue, 3)
	case stepValue != nil:
		return "", "", nil
	case (op == token.LSS || op == token.NEQ || op == token.LEQ) && step > 0:
		k, up = strconv.FormatInt(step, 10), true
	case (op == token.GTR || op == token.NEQ || op == token.GEQ) && step < 0:
		k = strconv.FormatInt(-step, 10)
	default:
		return "", "", ind
	}
	span := sub(first, hi)
	if up {
		span = sub(hi, first)
	}
	f := ceilDiv(span, k)
	if op == token.LEQ || op == token.GEQ {
		f = floorDiv(span, k) + " + 1"
	}
	f = fmt.Sprintf("max(0, %s)", f)
	if n.Loop.TestAtBottom {
		f = "1 + " + f
	}
	return f, "", ind
}

// invariantStep returns v when e is phi + v (or v + phi) and v is a value
// the loop does not change, else nil.
func (a *analysis) invariantStep(e ssa.Value, phi *ssa.Phi, inLoop map[int]bool) ssa.Value {
	bin, ok := e.(*ssa.BinOp)
	if !ok || bin.Op != token.ADD {
		return nil
	}
	if b, ok := bin.Type().Underlying().(*types.Basic); !ok || b.Info()&types.IsInteger == 0 {
		return nil
	}
	switch {
	case bin.X == phi && !a.varies(bin.Y, inLoop):
		return bin.Y
	case bin.Y == phi && !a.varies(bin.X, inLoop):
		return bin.X
	}
	return nil
}

// inductionPhi returns the φ that x is, or steps by a constant, and the
// constant.
func inductionPhi(x ssa.Value) (*ssa.Phi, int64) {
	switch x := x.(type) {
	case *ssa.Phi:
		return x, 0
	case *ssa.BinOp:
		if c, ok := x.Y.(*ssa.Const); ok && (x.Op == token.ADD || x.Op == token.SUB) && c.Value != nil && c.Value.Kind() == constant.Int {
			if p, ok := x.X.(*ssa.Phi); ok {
				s, _ := constant.Int64Val(c.Value)
				if x.Op == token.SUB {
					s = -s
				}
				return p, s
			}
		}
	}
	return nil, 0
}

// varies reports whether v may change from one iteration to the next: it
// is computed inside the loop from something other than invariants by
// arithmetic, conversions and len/cap.
func (a *analysis) varies(v ssa.Value, inLoop map[int]bool) bool {
	instr, ok := v.(ssa.Instruction)
	if !ok || instr.Block() == nil || !inLoop[instr.Block().Index] {
		return false
	}
	switch v := v.(type) {
	case *ssa.BinOp:
		return a.varies(v.X, inLoop) || a.varies(v.Y, inLoop)
	case *ssa.UnOp:
		switch v.Op {
		case token.ARROW:
			return true
		case token.MUL:
			return a.varies(v.X, inLoop) || a.writtenIn(v.X, v.Parent(), inLoop)
		}
		return a.varies(v.X, inLoop)
	case *ssa.FieldAddr:
		return a.varies(v.X, inLoop)
	case *ssa.IndexAddr:
		return a.varies(v.X, inLoop) || a.varies(v.Index, inLoop)
	case *ssa.Convert:
		return a.varies(v.X, inLoop)
	case *ssa.ChangeType:
		return a.varies(v.X, inLoop)
	case *ssa.Call:
		if b, ok := v.Call.Value.(*ssa.Builtin); ok && (b.Name() == "len" || b.Name() == "cap") {
			return a.varies(v.Call.Args[0], inLoop)
		}
	}
	return true
}

// writtenIn reports whether the memory p points to may be written during
// the loop: by an instruction of the loop, or by a function of the module
// that the loop's calls reach (the points-to analysis knows every writer of
// a location; calls outside the module and commlib's are writers too).
func (a *analysis) writtenIn(p ssa.Value, fn *ssa.Function, inLoop map[int]bool) bool {
	var reached map[*ssa.Function]bool // functions of the module the loop's calls reach
	for idx := range inLoop {
		for _, instr := range fn.Blocks[idx].Instrs {
			call, ok := instr.(ssa.CallInstruction)
			if !ok {
				continue
			}
			if reached == nil {
				reached = map[*ssa.Function]bool{}
			}
			for _, t := range a.callees[call] {
				a.reach(t, reached)
			}
			// A function value passed to a call (sort.Slice's less, a
			// pool task) may be called by it.
			for _, arg := range call.Common().Args {
				a.reachValue(arg, reached)
			}
		}
	}
	for l := range a.pts[p] {
		for _, w := range a.writersOf(l) {
			b := w.Block()
			if b == nil {
				continue
			}
			if (b.Parent() == fn && inLoop[b.Index]) || reached[b.Parent()] {
				return true
			}
		}
	}
	return false
}

// reachValue adds the function a function value designates, and what it
// calls, to seen.
func (a *analysis) reachValue(v ssa.Value, seen map[*ssa.Function]bool) {
	switch v := v.(type) {
	case *ssa.MakeClosure:
		if f, ok := v.Fn.(*ssa.Function); ok && a.analyzed[f] {
			a.reach(f, seen)
		}
	case *ssa.Function:
		if a.analyzed[v] {
			a.reach(v, seen)
		}
	}
}

// reach adds fn and the functions of the module it calls to seen.
func (a *analysis) reach(fn *ssa.Function, seen map[*ssa.Function]bool) {
	if seen[fn] {
		return
	}
	seen[fn] = true
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			if call, ok := instr.(ssa.CallInstruction); ok {
				for _, t := range a.callees[call] {
					a.reach(t, seen)
				}
				for _, arg := range call.Common().Args {
					a.reachValue(arg, seen)
				}
			}
		}
	}
}

// mirror returns the comparison that holds for y op' x when x op y does
// (< and >, <= and >=).
func mirror(op token.Token) token.Token {
	switch op {
	case token.LSS:
		return token.GTR
	case token.GTR:
		return token.LSS
	case token.LEQ:
		return token.GEQ
	case token.GEQ:
		return token.LEQ
	}
	return op
}

func negate(op token.Token) token.Token {
	switch op {
	case token.LSS:
		return token.GEQ
	case token.GEQ:
		return token.LSS
	case token.GTR:
		return token.LEQ
	case token.LEQ:
		return token.GTR
	case token.EQL:
		return token.NEQ
	case token.NEQ:
		return token.EQL
	}
	return op
}

// plus prints v + k, folding constants.
func (a *analysis) plus(v ssa.Value, k int64) string {
	if c, ok := v.(*ssa.Const); ok && c.Value != nil && c.Value.Kind() == constant.Int {
		x, _ := constant.Int64Val(c.Value)
		return fmt.Sprint(x + k)
	}
	switch {
	case k > 0:
		return fmt.Sprintf("%s + %d", a.expr(v, 3), k)
	case k < 0:
		return fmt.Sprintf("%s - %d", a.expr(v, 3), -k)
	}
	return a.expr(v, 3)
}

func sub(x, y string) string {
	switch y {
	case "0":
		return x
	}
	if strings.HasPrefix(y, "-") && !strings.ContainsAny(y[1:], " +-") {
		return x + " + " + y[1:]
	}
	if strings.ContainsAny(y, " +-") && !wrapped(y) {
		y = "(" + y + ")"
	}
	return x + " - " + y
}

// wrapped reports whether s is one parenthesized group.
func wrapped(s string) bool {
	if !strings.HasPrefix(s, "(") {
		return false
	}
	depth := 0
	for i, c := range s {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 && i != len(s)-1 {
				return false
			}
		}
	}
	return depth == 0
}

// ceilDiv and floorDiv print x / k rounded up and down (k a divisor as
// printed: a constant's digits or a value's expression).
func ceilDiv(x, k string) string {
	if k == "1" {
		return x
	}
	return fmt.Sprintf("ceil((%s) / %s)", x, k)
}

func floorDiv(x, k string) string {
	if k == "1" {
		return x
	}
	return fmt.Sprintf("floor((%s) / %s)", x, k)
}

// expr prints v as an expression of named values, constants, len/cap and
// arithmetic, to the given depth.
func (a *analysis) expr(v ssa.Value, depth int) string {
	switch v := v.(type) {
	case *ssa.Const:
		if v.Value == nil {
			return "0"
		}
		if v.Value.Kind() == constant.Int {
			return v.Value.ExactString()
		}
		return v.Value.String()
	case *ssa.Parameter, *ssa.FreeVar:
		return v.Name()
	case *ssa.Global:
		return v.Name()
	}
	if name := a.loaded.Names[v]; name != "" {
		// Arithmetic reads better as itself: in j := i + 1 the value is
		// named j, yet the formula wants i + 1.
		switch v.(type) {
		case *ssa.BinOp, *ssa.Convert, *ssa.ChangeType:
		default:
			return name
		}
	}
	if depth <= 0 {
		return v.Name()
	}
	switch v := v.(type) {
	case *ssa.UnOp:
		if v.Op == token.MUL {
			switch v.X.(type) {
			case *ssa.IndexAddr, *ssa.FieldAddr: // x[i], x.f read as values
				return a.expr(v.X, depth)
			}
			return "*" + a.expr(v.X, depth-1)
		}
		return v.Op.String() + a.expr(v.X, depth-1)
	case *ssa.BinOp:
		return "(" + a.expr(v.X, depth-1) + " " + v.Op.String() + " " + a.expr(v.Y, depth-1) + ")"
	case *ssa.IndexAddr:
		return a.expr(v.X, depth-1) + "[" + a.expr(v.Index, depth-1) + "]"
	case *ssa.FieldAddr:
		if st, ok := v.X.Type().Underlying().(*types.Pointer).Elem().Underlying().(*types.Struct); ok {
			return a.expr(v.X, depth-1) + "." + st.Field(v.Field).Name()
		}
	case *ssa.Convert:
		return a.expr(v.X, depth)
	case *ssa.ChangeType:
		return a.expr(v.X, depth)
	case *ssa.Call:
		if b, ok := v.Call.Value.(*ssa.Builtin); ok && (b.Name() == "len" || b.Name() == "cap") {
			return b.Name() + "(" + a.expr(v.Call.Args[0], depth-1) + ")"
		}
		if f := v.Call.StaticCallee(); f != nil && isCommlib(f) {
			return opName(f) + "()"
		}
	case *ssa.Extract:
		if call, ok := v.Tuple.(*ssa.Call); ok {
			if f := call.Call.StaticCallee(); f != nil && isCommlib(f) && opName(f) == "Comm.Shift" {
				return fmt.Sprintf("Shift()[%d]", v.Index)
			}
		}
	}
	return v.Name()
}

// nestFormula is the number of runs of the innermost body of the perfect
// nest n heads (n's body holds one loop and nothing else that loops): a
// product when the inner count does not depend on n's induction variable,
// a sum over it when it does (a triangular nest).
func (a *analysis) nestFormula(n *model.Node) string {
	if n.Loop.Trip == nil || n.Loop.Trip.Formula == "" {
		return ""
	}
	var inner *model.Node
	count := 0
	for _, c := range n.Loop.Body.Children {
		if c.Kind == model.KindLoop {
			inner = c
			count++
		}
	}
	if count != 1 || inner.Loop.Trip == nil {
		return ""
	}
	in := inner.Loop.Trip.Nest
	if in == "" {
		in = inner.Loop.Trip.Formula
	}
	if in == "" {
		return ""
	}
	if v := a.induction[n]; v != "" && mentions(in, v) {
		return fmt.Sprintf("Σ_{%s: %s iterations} (%s)", v, n.Loop.Trip.Formula, in)
	}
	return fmt.Sprintf("(%s) × (%s)", n.Loop.Trip.Formula, in)
}

// mentions reports whether formula uses the name as a whole word.
func mentions(formula, name string) bool {
	for i := 0; ; {
		j := strings.Index(formula[i:], name)
		if j < 0 {
			return false
		}
		j += i
		before := j == 0 || !isIdent(formula[j-1])
		after := j+len(name) == len(formula) || !isIdent(formula[j+len(name)])
		if before && after {
			return true
		}
		i = j + 1
	}
}

func isIdent(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
