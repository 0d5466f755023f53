// This file defines the loops whose exit depends on how the opaque
// decisions inside them went: an implicit flow of data the model does not
// compute into the loop's own test.

package reduce

import (
	"go/token"
	"slices"

	"github.com/predict-tools/predict/model"
	"golang.org/x/tools/go/ssa"
)

// A loop that does not communicate and whose test reads a value that the
// opaque decisions inside it decide — a work queue appended to when a
// vertex is new (`for len(queue) > 0 { … if level[v] < 0 { queue =
// append(queue, v) } }`), a flag set when an element passes a test — has
// no data flow from opaque data into its test, only a control flow: which
// way the decisions went selects the value (a φ). The model could compute
// the test from the decisions' replayed outcomes, but then it runs the
// loop iteration by iteration to replay as many outcomes as the real run
// took (millions), and it follows the real run only while it replays them
// all in step: past the outcomes the timing pass could keep, or with
// several decisions replayed apart, the test no longer holds where it did
// and the loop runs on. Its trip count is the profile's either way, so it
// is taken from the profile directly: the test is opaque, its outcomes
// per entry are recorded, and nothing of the body needs to be kept for
// it.
//
// A value of such a loop that is used after it — the index a binary
// search over data leaves with, the positions where a merge stopped, a
// bucket index carried into the next item — is selected by the same
// decisions. Computed from their replayed outcomes it holds at the
// profile's np only: at another np the model would take, as computed, a
// count or a peer that the program never computes there (a sample sort's
// send counts, from searches over its keys). It is opaque instead, and
// the taint pass carries it on: what it decides is recorded at the
// profile's np and said to be, and the loop's trips are replayed.
//
// The implicit flow is found on SSA values only (φ, arithmetic,
// comparisons, conversions, len and cap, slicing, append): a loop whose
// state lives in memory across iterations keeps today's treatment.
// A loop that communicates keeps it too: its test is replayed anyway,
// and what its decisions decide (a peer, a count) is kept for the
// communication.

// implicitExits taints the tests of the loops that do not communicate and
// whose condition depends, by an implicit flow, on an opaque decision
// inside the loop, and the values of such a loop that are used after it.
// It reports whether a taint grew (the taint pass must then run again).
func (a *analysis) implicitExits(prog *model.Program) (grew bool) {
	if a.opts.Exact {
		return false
	}
	comm := a.communicates(prog)
	for _, f := range prog.Functions {
		fn := a.ssaOf[f]
		if fn == nil || len(fn.Blocks) == 0 {
			continue
		}
		var flow map[ssa.Value]map[*ssa.If]bool // computed on the first loop that needs it
		model.Walk(f.Tree, func(n *model.Node) bool {
			if n.Kind != model.KindLoop || n.Loop == nil || a.loopCommunicates(n, comm) != "" {
				return true
			}
			tests := loopTests(fn, n)
			if len(tests) == 0 {
				return true
			}
			blocks := naturalLoop(tests[0].Block(), model.Blocks(n))
			if flow == nil {
				flow = a.implicitFlow(fn)
			}
			for _, iff := range tests {
				if a.taint[iff.Cond] != "" {
					continue
				}
				var src *ssa.If
				for b := range flow[iff.Cond] {
					if blocks[b.Block().Index] && (src == nil || a.earlier(b, src)) {
						src = b
					}
				}
				if src == nil {
					continue
				}
				why := "how the opaque decision at " + a.where(a.condPos(src.Block(), src.Cond)) + " went inside the loop (" + a.taint[src.Cond] + ")"
				if a.setTaint(iff.Cond, why) {
					grew = true
				}
				for _, v := range escaping(fn, blocks, flow) {
					if a.setTaint(v, why) {
						grew = true
					}
				}
			}
			return true
		})
	}
	return grew
}

// escaping returns the values of the loop made of blocks that an opaque
// decision inside it selects (flow) and that are used after it: the index
// a search leaves with, the positions a merge stopped at. The model would
// compute them from the decisions' replayed outcomes, which hold at the
// profile's np only; at any other np it would take a value the program
// never computes for a count or a peer as computed. They are opaque
// instead: what they decide is recorded, and said.
func escaping(fn *ssa.Function, blocks map[int]bool, flow map[ssa.Value]map[*ssa.If]bool) []ssa.Value {
	var out []ssa.Value
	for _, b := range fn.Blocks {
		if !blocks[b.Index] {
			continue
		}
		for _, instr := range b.Instrs {
			v, ok := instr.(ssa.Value)
			if !ok || !selectedInside(flow[v], blocks) {
				continue
			}
			if refs := v.Referrers(); refs != nil && slices.ContainsFunc(*refs, func(r ssa.Instruction) bool {
				return r.Block() != nil && !blocks[r.Block().Index]
			}) {
				out = append(out, v)
			}
		}
	}
	return out
}

// selectedInside reports whether one of the branches srcs is in blocks.
func selectedInside(srcs map[*ssa.If]bool, blocks map[int]bool) bool {
	for s := range srcs {
		if blocks[s.Block().Index] {
			return true
		}
	}
	return false
}

// loopTests returns the branches of loop n's condition (one per test of a
// condition made of && and ||), in the order of the condition.
func loopTests(fn *ssa.Function, n *model.Node) []*ssa.If {
	var out []*ssa.If
	model.Walk(n.Cond, func(x *model.Node) bool {
		if x.Kind == model.KindTest && x.Block != nil && *x.Block < len(fn.Blocks) {
			blk := fn.Blocks[*x.Block]
			if iff, ok := blk.Instrs[len(blk.Instrs)-1].(*ssa.If); ok {
				out = append(out, iff)
			}
		}
		return true
	})
	return out
}

// earlier orders branches by position (condPos's, as the report places
// them), those with one first, then by block: the reason names the same
// one whatever the map's order.
func (a *analysis) earlier(x, y *ssa.If) bool {
	px, py := a.condPos(x.Block(), x.Cond), a.condPos(y.Block(), y.Cond)
	if px.IsValid() != py.IsValid() {
		return px.IsValid()
	}
	if px != py {
		return px < py
	}
	return x.Block().Index < y.Block().Index
}

// implicitFlow returns, for the SSA values of fn, the opaque branches
// (conditions tainted) whose outcome selects them or a value they are
// computed from.
func (a *analysis) implicitFlow(fn *ssa.Function) map[ssa.Value]map[*ssa.If]bool {
	var sources []*ssa.If
	for _, b := range fn.Blocks {
		if iff, ok := b.Instrs[len(b.Instrs)-1].(*ssa.If); ok && a.taint[iff.Cond] != "" && iff.Block().Succs[0] != iff.Block().Succs[1] {
			sources = append(sources, iff)
		}
	}
	flow := map[ssa.Value]map[*ssa.If]bool{}
	add := func(v ssa.Value, srcs map[*ssa.If]bool) bool {
		grew := false
		for s := range srcs {
			if !flow[v][s] {
				if flow[v] == nil {
					flow[v] = map[*ssa.If]bool{}
				}
				flow[v][s] = true
				grew = true
			}
		}
		return grew
	}
	if len(sources) == 0 {
		return flow
	}
	// Seeds: the φs whose edges the sources' outcomes choose between.
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			phi, ok := instr.(*ssa.Phi)
			if !ok {
				break
			}
			for _, src := range sources {
				if selects(src, phi) {
					add(phi, map[*ssa.If]bool{src: true})
				}
			}
		}
	}
	// Forward, through values, to a fixed point.
	for changed := true; changed; {
		changed = false
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				v, ok := instr.(ssa.Value)
				if !ok || !carriesFlow(instr) {
					continue
				}
				var ops []*ssa.Value
				for _, op := range instr.Operands(ops) {
					if *op != nil && len(flow[*op]) > 0 && add(v, flow[*op]) {
						changed = true
					}
				}
			}
		}
	}
	return flow
}

// carriesFlow reports whether instr's value is computed from its operands
// alone, so that an implicit flow into them flows into it.
func carriesFlow(instr ssa.Instruction) bool {
	switch v := instr.(type) {
	case *ssa.Phi, *ssa.BinOp, *ssa.UnOp, *ssa.Convert, *ssa.ChangeType, *ssa.Slice, *ssa.Extract:
		if u, ok := v.(*ssa.UnOp); ok && (u.Op == token.MUL || u.Op == token.ARROW) {
			return false // a load or a receive: memory, not values
		}
		return true
	case *ssa.Call:
		if b, ok := v.Call.Value.(*ssa.Builtin); ok {
			switch b.Name() {
			case "len", "cap", "append", "min", "max":
				return true
			}
		}
	}
	return false
}

// selects reports whether the outcome of src chooses between edges of phi
// that bring different values: one outcome reaches an edge that the other
// does not, and the other reaches one with another value.
func selects(src *ssa.If, phi *ssa.Phi) bool {
	join := phi.Block()
	var reach [2][]bool
	for o := range 2 {
		reach[o] = reachesEdges(src.Block(), src.Block().Succs[o], join)
	}
	for i, vi := range phi.Edges {
		for j, vj := range phi.Edges {
			if i == j || vi == vj {
				continue
			}
			for o := range 2 {
				if reach[o][i] && !reach[1-o][i] && reach[1-o][j] {
					return true
				}
			}
		}
	}
	return false
}

// reachesEdges returns, per predecessor of join, whether the edge from it
// into join is reached from the branch's successor succ (taken from
// block from) without passing through join.
func reachesEdges(from, succ, join *ssa.BasicBlock) []bool {
	out := make([]bool, len(join.Preds))
	if succ == join {
		for k, p := range join.Preds {
			out[k] = p == from
		}
		return out
	}
	seen := map[*ssa.BasicBlock]bool{succ: true}
	work := []*ssa.BasicBlock{succ}
	for len(work) > 0 {
		b := work[len(work)-1]
		work = work[:len(work)-1]
		for _, s := range b.Succs {
			if s == join {
				for k, p := range join.Preds {
					if p == b {
						out[k] = true
					}
				}
				continue
			}
			if !seen[s] {
				seen[s] = true
				work = append(work, s)
			}
		}
	}
	return out
}
