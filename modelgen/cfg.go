// This file defines the graph that structural analysis works on: the SSA
// CFG of a function with each compound condition (&&, ||, multi-value
// switch cases) folded into one node, and its dominators, postdominators
// and natural loops.

package modelgen

import (
	"slices"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// vnode is a node of the folded CFG: one SSA block, or a block and the
// blocks of the compound condition it starts.
type vnode struct {
	id     int
	blocks []*ssa.BasicBlock // blocks[0] is the entry
	cond   *cexpr            // the branch condition; nil unless two succs
	succs  []*vnode          // two (true, false) with cond, one for a jump, none for return/panic
	preds  []*vnode
	rpo    int // reverse postorder number from the entry
}

func (v *vnode) comment() string { return v.blocks[0].Comment }

// cexpr is a branch condition: a block's If, or a short-circuit
// combination.
type cexpr struct {
	op    string // "test", "and", "or", "not"
	block *ssa.BasicBlock
	x, y  *cexpr
}

// graph is the folded CFG of one function.
type graph struct {
	fn    *ssa.Function
	nodes []*vnode // by id; nodes[0] is the entry
	byBlk map[*ssa.BasicBlock]*vnode

	idom        []*vnode // immediate dominator; nil for the entry
	loops       []*loop  // natural loops, outermost first
	loopAt      map[*vnode]*loop
	irreducible bool
}

// loop is a natural loop.
type loop struct {
	header  *vnode
	body    map[*vnode]bool // includes the header
	latches []*vnode        // body nodes with an edge to the header
	parent  *loop
}

// newGraph builds the folded CFG of fn from the given entry block
// (fn.Blocks[0], or fn.Recover).
func newGraph(fn *ssa.Function, entry *ssa.BasicBlock) *graph {
	g := &graph{fn: fn, byBlk: map[*ssa.BasicBlock]*vnode{}}
	// Nodes for the blocks reachable from entry, in DFS order.
	var visit func(b *ssa.BasicBlock)
	visit = func(b *ssa.BasicBlock) {
		if g.byBlk[b] != nil {
			return
		}
		v := &vnode{id: len(g.nodes), blocks: []*ssa.BasicBlock{b}}
		g.nodes = append(g.nodes, v)
		g.byBlk[b] = v
		for _, s := range b.Succs {
			visit(s)
		}
	}
	visit(entry)
	for _, v := range g.nodes {
		b := v.blocks[0]
		for _, s := range b.Succs {
			w := g.byBlk[s]
			v.succs = append(v.succs, w)
			w.preds = append(w.preds, v)
		}
		if _, ok := b.Instrs[len(b.Instrs)-1].(*ssa.If); ok {
			v.cond = &cexpr{op: "test", block: b}
		}
	}
	g.foldConditions()
	g.number()
	g.dominators()
	g.findLoops()
	return g
}

// foldConditions merges the blocks of compound conditions into the node
// that starts them, until nothing changes.
func (g *graph) foldConditions() {
	for changed := true; changed; {
		changed = false
		for _, b := range g.nodes {
			if b == nil || b.cond == nil {
				continue
			}
			t, f := b.succs[0], b.succs[1]
			for _, c := range []*vnode{t, f} {
				if c == b || c.cond == nil || len(c.preds) != 1 || !isConditionBlock(c) {
					continue
				}
				ct, cf := c.succs[0], c.succs[1]
				var cond *cexpr
				var nt, nf *vnode
				switch {
				case c == t && cf == f:
					cond, nt, nf = &cexpr{op: "and", x: b.cond, y: c.cond}, ct, f
				case c == t && ct == f:
					cond, nt, nf = &cexpr{op: "and", x: b.cond, y: &cexpr{op: "not", x: c.cond}}, cf, f
				case c == f && ct == t:
					cond, nt, nf = &cexpr{op: "or", x: b.cond, y: c.cond}, t, cf
				case c == f && cf == t:
					cond, nt, nf = &cexpr{op: "or", x: b.cond, y: &cexpr{op: "not", x: c.cond}}, t, ct
				default:
					continue
				}
				if nt == nf || nt == c || nf == c {
					continue
				}
				g.merge(b, c, cond, nt, nf)
				changed = true
				break
			}
		}
	}
	// Renumber the surviving nodes.
	live := g.nodes[:0]
	for _, v := range g.nodes {
		if v != nil {
			v.id = len(live)
			live = append(live, v)
		}
	}
	g.nodes = live
}

// isConditionBlock reports whether c is a block the Go SSA builder made for
// the second operand of a short-circuit condition, or for a further value
// of a multi-value switch case.
func isConditionBlock(c *vnode) bool {
	switch c.comment() {
	case "cond.true", "cond.false", "switch.next", "typeswitch.next":
		return true
	}
	return false
}

// merge folds c (the only successor path into it is from b) into b.
func (g *graph) merge(b, c *vnode, cond *cexpr, t, f *vnode) {
	for _, s := range b.succs {
		s.preds = slices.DeleteFunc(s.preds, func(p *vnode) bool { return p == b })
	}
	for _, s := range c.succs {
		s.preds = slices.DeleteFunc(s.preds, func(p *vnode) bool { return p == c })
	}
	b.blocks = append(b.blocks, c.blocks...)
	b.cond = cond
	b.succs = []*vnode{t, f}
	t.preds = append(t.preds, b)
	f.preds = append(f.preds, b)
	for _, blk := range c.blocks {
		g.byBlk[blk] = b
	}
	g.nodes[c.id] = nil
}

// number computes reverse postorder numbers from the entry.
func (g *graph) number() {
	seen := make([]bool, len(g.nodes))
	order := make([]*vnode, 0, len(g.nodes))
	var dfs func(v *vnode)
	dfs = func(v *vnode) {
		seen[v.id] = true
		for _, s := range v.succs {
			if !seen[s.id] {
				dfs(s)
			}
		}
		order = append(order, v)
	}
	dfs(g.nodes[0])
	for i, v := range order {
		v.rpo = len(order) - 1 - i
	}
}

// dominators computes immediate dominators (Cooper, Harvey and Kennedy's
// iterative algorithm).
func (g *graph) dominators() {
	n := len(g.nodes)
	byRPO := make([]*vnode, n)
	for _, v := range g.nodes {
		byRPO[v.rpo] = v
	}
	idom := make([]*vnode, n)
	entry := g.nodes[0]
	idom[entry.id] = entry
	intersect := func(a, b *vnode) *vnode {
		for a != b {
			for a.rpo > b.rpo {
				a = idom[a.id]
			}
			for b.rpo > a.rpo {
				b = idom[b.id]
			}
		}
		return a
	}
	for changed := true; changed; {
		changed = false
		for _, v := range byRPO[1:] {
			var nd *vnode
			for _, p := range v.preds {
				if idom[p.id] == nil {
					continue
				}
				if nd == nil {
					nd = p
				} else {
					nd = intersect(p, nd)
				}
			}
			if idom[v.id] != nd {
				idom[v.id] = nd
				changed = true
			}
		}
	}
	idom[entry.id] = nil
	g.idom = idom
}

// dominates reports whether a dominates b.
func (g *graph) dominates(a, b *vnode) bool {
	for ; b != nil; b = g.idom[b.id] {
		if b == a {
			return true
		}
	}
	return false
}

// findLoops finds natural loops (a back edge's target dominates its
// source) and notes whether some cycle is irreducible.
func (g *graph) findLoops() {
	g.loopAt = map[*vnode]*loop{}
	for _, v := range g.nodes {
		for _, h := range v.succs {
			if h.rpo > v.rpo {
				continue // forward edge
			}
			if !g.dominates(h, v) {
				g.irreducible = true
				continue
			}
			l := g.loopAt[h]
			if l == nil {
				l = &loop{header: h, body: map[*vnode]bool{h: true}}
				g.loopAt[h] = l
				g.loops = append(g.loops, l)
			}
			l.latches = append(l.latches, v)
			// Body: every node that reaches v without passing h.
			stack := []*vnode{v}
			for len(stack) > 0 {
				x := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if l.body[x] {
					continue
				}
				l.body[x] = true
				stack = append(stack, x.preds...)
			}
		}
	}
	slices.SortFunc(g.loops, func(a, b *loop) int { return len(b.body) - len(a.body) })
	for i, l := range g.loops {
		for j := i - 1; j >= 0; j-- { // the smallest enclosing loop is the last bigger one containing l
			if g.loops[j].body[l.header] {
				l.parent = g.loops[j]
				break
			}
		}
	}
}

// rangeKindOfComment returns the range form a block comment names.
func rangeKindOfComment(c string) string {
	switch {
	case strings.HasPrefix(c, "rangeint"):
		return "int"
	case strings.HasPrefix(c, "rangechan"):
		return "chan"
	case strings.HasPrefix(c, "rangeiter"):
		return "map"
	case strings.HasPrefix(c, "rangefunc"):
		return "func"
	case strings.HasPrefix(c, "rangeindex"):
		return "slice"
	}
	return ""
}
