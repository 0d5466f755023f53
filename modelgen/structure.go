// This file defines structural analysis: turning the folded CFG of a
// function into a control tree of sequences, conditionals, loops and
// jumps, with unstructured regions for what does not reduce.

package modelgen

import (
	"errors"
	"slices"

	"github.com/predict-tools/predict/model"
	"golang.org/x/tools/go/ssa"
)

// errUnstructured means a part of the CFG does not fit the construct being
// built; the caller replaces that part by an unstructured region.
var errUnstructured = errors.New("unstructured")

// loopCtx is a loop whose body is being structured: reaching its continue
// target or its follow (exit) node from inside means continue or break.
type loopCtx struct {
	l            *loop
	node         *model.Node
	follow, cont *vnode
}

// structure builds the control tree of the function from entry.
func (fb *funcBuilder) structure(entry *ssa.BasicBlock) *model.Node {
	fb.g = newGraph(fb.fn, entry)
	fb.visited = make([]bool, len(fb.g.nodes))
	fb.log = fb.log[:0]
	items, err := fb.seq(fb.g.nodes[0], nil, nil, nil)
	if err != nil {
		fb.rollback(0)
		r, err := fb.region(fb.g.nodes[0], nil, nil)
		if err != nil {
			panic("modelgen: a region from the entry must always build: " + err.Error())
		}
		items = []*model.Node{r}
	}
	return seqNode(items)
}

func seqNode(items []*model.Node) *model.Node {
	return &model.Node{Kind: model.KindSeq, Children: items}
}

func (fb *funcBuilder) visit(v *vnode) {
	fb.visited[v.id] = true
	fb.log = append(fb.log, v.id)
}

// rollback unmarks the nodes visited since the log had length mark.
func (fb *funcBuilder) rollback(mark int) {
	for _, id := range fb.log[mark:] {
		fb.visited[id] = false
	}
	fb.log = fb.log[:mark]
}

// seq structures the path from v until stop (normal completion), a jump
// out of an enclosing loop, or the end of the function. exempt is a loop
// header whose body starts at the header itself: it is not taken for a
// jump, a stop or a new loop the first time.
func (fb *funcBuilder) seq(v, stop *vnode, cx []*loopCtx, exempt *vnode) ([]*model.Node, error) {
	var items []*model.Node
	// The constructs built so far: when the path reaches a node one of
	// them took (a goto into it, a shared tail), that construct and the
	// rest of the sequence become one region, not the whole function.
	type start struct {
		items, mark int
		entry       *vnode
	}
	var starts []start
	for v != nil {
		first := v == exempt
		exempt = nil
		if v == stop && !first {
			break
		}
		if !first {
			if j := fb.jump(v, cx); j != nil {
				return append(items, j), nil
			}
		}
		if fb.visited[v.id] && len(v.succs) > 0 { // a terminal block may be copied; others may not
			for k := len(starts) - 1; k >= 0; k-- {
				st := starts[k]
				if !slices.Contains(fb.log[st.mark:], v.id) {
					continue
				}
				fb.rollback(st.mark)
				r, err := fb.region(st.entry, stop, cx)
				if err != nil {
					return nil, err
				}
				return append(items[:st.items], r), nil
			}
			return nil, errUnstructured
		}
		if l := fb.g.loopAt[v]; l != nil && !first {
			mark := len(fb.log)
			starts = append(starts, start{len(items), mark, v})
			node, follow, err := fb.loop(l, cx)
			if err != nil {
				fb.rollback(mark)
				r, err := fb.region(v, stop, cx)
				if err != nil {
					return nil, err
				}
				return append(items, r), nil
			}
			items = append(items, node)
			v = follow
			continue
		}
		mark := len(fb.log)
		fb.visit(v)
		if v.cond == nil {
			items = append(items, fb.leaves(v.blocks[0])...)
			if len(v.succs) == 0 {
				return items, nil
			}
			v = v.succs[0]
			continue
		}
		starts = append(starts, start{len(items), mark, v})
		node, next, err := fb.branch(v, stop, cx)
		if err != nil {
			fb.rollback(mark)
			r, err := fb.region(v, stop, cx)
			if err != nil {
				return nil, err
			}
			return append(items, r), nil
		}
		items = append(items, fb.leaves(v.blocks[0])...)
		items = append(items, node)
		v = next
	}
	return items, nil
}

// jump returns the break or continue node for reaching v, if v is the
// follow or continue target of an enclosing loop.
func (fb *funcBuilder) jump(v *vnode, cx []*loopCtx) *model.Node {
	for i := len(cx) - 1; i >= 0; i-- {
		lc := cx[i]
		switch v {
		case lc.cont, lc.l.header:
			return fb.jumpNode(model.KindContinue, lc.node)
		case lc.follow:
			return fb.jumpNode(model.KindBreak, lc.node)
		}
	}
	return nil
}

func (fb *funcBuilder) jumpNode(kind model.Kind, loop *model.Node) *model.Node {
	n := &model.Node{Kind: kind}
	fb.jumps[n] = loop
	return n
}

// isJumpTarget reports whether v is a follow or continue target in cx.
func isJumpTarget(v *vnode, cx []*loopCtx) bool {
	for _, lc := range cx {
		if v == lc.cont || v == lc.follow || v == lc.l.header {
			return true
		}
	}
	return false
}

// reach returns the nodes reachable from v without passing stop (which is
// included when reached), a jump target or a visited node.
func (fb *funcBuilder) reach(v, stop *vnode, cx []*loopCtx) []bool {
	seen := make([]bool, len(fb.g.nodes))
	stack := []*vnode{v}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[x.id] {
			continue
		}
		if x == stop {
			seen[x.id] = true // the stop may be visited already: a loop's header
			continue
		}
		if (fb.visited[x.id] && len(x.succs) > 0) || isJumpTarget(x, cx) {
			continue
		}
		seen[x.id] = true
		stack = append(stack, x.succs...)
	}
	return seen
}

// branch structures the conditional at v (already visited) and returns it
// with the node where the path continues.
func (fb *funcBuilder) branch(v, stop *vnode, cx []*loopCtx) (*model.Node, *vnode, error) {
	t, f := v.succs[0], v.succs[1]
	r0, r1 := fb.reach(t, stop, cx), fb.reach(f, stop, cx)
	// The merge is the first node both arms reach, in reverse postorder;
	// the stop counts only when they share nothing before it (it may be a
	// loop header, early in the order but reached by a back edge).
	// When an arm reaches the stop, a block that ends the function is not
	// a merge: the arms that reach it get a copy each (a "continue" in a
	// range-over-func body is a shared "return true").
	tails := stop != nil && (r0[stop.id] || r1[stop.id])
	var merge *vnode
	for _, x := range fb.g.nodes {
		if r0[x.id] && r1[x.id] && x != stop && !(tails && len(x.succs) == 0) && (merge == nil || x.rpo < merge.rpo) {
			merge = x
		}
	}
	if merge == nil && stop != nil && r0[stop.id] && r1[stop.id] {
		merge = stop
	}
	cond := fb.condNode(v.cond, v.blocks[0])
	if merge == nil {
		// No common continuation: at most one arm completes normally. The
		// other becomes an if without else and the path goes on with the
		// arm that may complete.
		if stop != nil && r0[stop.id] && !r1[stop.id] {
			t, f = f, t
			cond = &model.Node{Kind: model.KindNot, Children: []*model.Node{cond}}
		}
		then, err := fb.seq(t, stop, cx, nil)
		if err != nil {
			return nil, nil, err
		}
		return &model.Node{Kind: model.KindIf, Cond: cond, Children: []*model.Node{seqNode(then)}}, f, nil
	}
	then, err := fb.seq(t, merge, cx, nil)
	if err != nil {
		return nil, nil, err
	}
	els, err := fb.seq(f, merge, cx, nil)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case len(els) == 0:
		return &model.Node{Kind: model.KindIf, Cond: cond, Children: []*model.Node{seqNode(then)}}, merge, nil
	case len(then) == 0:
		cond = &model.Node{Kind: model.KindNot, Children: []*model.Node{cond}}
		return &model.Node{Kind: model.KindIf, Cond: cond, Children: []*model.Node{seqNode(els)}}, merge, nil
	}
	return &model.Node{Kind: model.KindIfElse, Cond: cond, Children: []*model.Node{seqNode(then), seqNode(els)}}, merge, nil
}

// condNode builds the condition tree of a (compound) branch starting in
// block entry. The leaves of entry run before the branch and are not part
// of the condition; those of the blocks of further operands are.
func (fb *funcBuilder) condNode(c *cexpr, entry *ssa.BasicBlock) *model.Node {
	switch c.op {
	case "test":
		idx := c.block.Index
		n := &model.Node{Kind: model.KindTest, Block: &idx}
		if cond := c.block.Instrs[len(c.block.Instrs)-1].(*ssa.If).Cond; cond.Pos().IsValid() {
			if _, phi := cond.(*ssa.Phi); !phi && cond.Parent() == fb.fn {
				p := fb.b.pos(cond.Pos())
				n.Pos = model.Range{Start: p, End: p}
			}
		}
		if c.block != entry {
			n.Children = fb.leaves(c.block)
		}
		fb.testBlock[n] = c.block
		ifInstr := c.block.Instrs[len(c.block.Instrs)-1].(*ssa.If)
		n.Value = valueName(ifInstr.Cond)
		return n
	case "not":
		return &model.Node{Kind: model.KindNot, Children: []*model.Node{fb.condNode(c.x, entry)}}
	}
	kind := model.KindAnd
	if c.op == "or" {
		kind = model.KindOr
	}
	return &model.Node{Kind: kind, Children: []*model.Node{fb.condNode(c.x, entry), fb.condNode(c.y, entry)}}
}

// loop structures the natural loop l and returns its node and the node
// where the path continues after it.
func (fb *funcBuilder) loop(l *loop, cx []*loopCtx) (*model.Node, *vnode, error) {
	h := l.header
	node := &model.Node{Kind: model.KindLoop, Loop: &model.Loop{}}
	lc := &loopCtx{l: l, node: node}
	inner := append(slices.Clip(cx), lc)
	var latch *vnode
	if len(l.latches) == 1 {
		latch = l.latches[0]
	}
	var body []*model.Node
	var err error
	switch {
	case latch == h && h.cond != nil:
		// One block that branches back to itself: its instructions are
		// the body, the test comes after them.
		stay := 0
		if h.succs[0] != h {
			stay = 1
		}
		fb.visit(h)
		lc.follow, lc.cont = h.succs[1-stay], h
		node.Loop.TestAtBottom = true
		body = fb.leaves(h.blocks[0])
		node.Cond = fb.condNode(h.cond, h.blocks[0])
		if stay == 1 {
			node.Cond = &model.Node{Kind: model.KindNot, Children: []*model.Node{node.Cond}}
		}
	case h.cond != nil && l.body[h.succs[0]] != l.body[h.succs[1]] &&
		fb.onlyExit(l, outside(l, h.succs...), cx):
		// The test is at the top: for, while, range.
		entry, exit := h.succs[0], h.succs[1]
		node.Loop.Header = seqNode(fb.leaves(h.blocks[0]))
		node.Cond = fb.condNode(h.cond, h.blocks[0])
		if !l.body[entry] {
			entry, exit = exit, entry
			node.Cond = &model.Node{Kind: model.KindNot, Children: []*model.Node{node.Cond}}
		}
		fb.visit(h)
		lc.follow, lc.cont = exit, h
		if latch != nil && latch != h && latch.cond == nil && latch.comment() == "for.post" && !fb.visited[latch.id] {
			lc.cont = latch
			fb.visit(latch)
			node.Loop.Post = seqNode(fb.leaves(latch.blocks[0]))
		}
		body, err = fb.seq(entry, lc.cont, inner, nil)
	case latch != nil && latch != h && latch.cond != nil && (latch.succs[0] == h) != (latch.succs[1] == h) &&
		outside(l, latch.succs...) != nil && fb.onlyExit(l, outside(l, latch.succs...), cx):
		// The test is at the bottom: do-while, rotated range loops.
		exit := latch.succs[0]
		negate := true
		if exit == h {
			exit, negate = latch.succs[1], false
		}
		lc.follow, lc.cont = exit, latch
		node.Loop.TestAtBottom = true
		body, err = fb.seq(h, latch, inner, h)
		if err == nil {
			if fb.visited[latch.id] {
				return nil, nil, errUnstructured
			}
			fb.visit(latch)
			node.Loop.Header = seqNode(fb.leaves(latch.blocks[0]))
			node.Cond = fb.condNode(latch.cond, latch.blocks[0])
			if negate {
				node.Cond = &model.Node{Kind: model.KindNot, Children: []*model.Node{node.Cond}}
			}
		}
	default:
		// No test: left by break, return or panic.
		lc.follow, lc.cont = fb.chooseFollow(l, cx), h
		stop := h
		if latch != nil && latch != h && latch.cond == nil && latch.comment() == "for.post" && !fb.visited[latch.id] {
			lc.cont, stop = latch, latch
		}
		body, err = fb.seq(h, stop, inner, h)
		if err == nil && stop != h {
			fb.visit(latch)
			node.Loop.Post = seqNode(fb.leaves(latch.blocks[0]))
		}
	}
	if err != nil {
		return nil, nil, err
	}
	node.Loop.Body = seqNode(body)
	node.Loop.Form, node.Loop.Range = fb.loopForm(l, lc)
	return node, lc.follow, nil
}

// outside returns the one of nodes that is not in l's body, or nil.
func outside(l *loop, nodes ...*vnode) *vnode {
	for _, n := range nodes {
		if !l.body[n] {
			return n
		}
	}
	return nil
}

// onlyExit reports whether main is the one way out of l that code after
// the loop continues from: every other exit is a jump out of an enclosing
// loop or leads only to a return or panic (an early return).
func (fb *funcBuilder) onlyExit(l *loop, main *vnode, cx []*loopCtx) bool {
	for x := range l.body {
		for _, s := range x.succs {
			if !l.body[s] && s != main && !isJumpTarget(s, cx) && !fb.returnOnly(s, l) {
				return false
			}
		}
	}
	return true
}

// returnOnly reports whether the code from t (outside loop l) is a tail of
// its own: it ends in returns or panics and shares no node with code that
// is reached otherwise.
func (fb *funcBuilder) returnOnly(t *vnode, l *loop) bool {
	tail := map[*vnode]bool{}
	stack := []*vnode{t}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if tail[x] {
			continue
		}
		if l.body[x] || len(tail) > 64 {
			return false
		}
		tail[x] = true
		stack = append(stack, x.succs...)
	}
	for x := range tail {
		for _, p := range x.preds {
			if !tail[p] && !l.body[p] {
				return false
			}
		}
	}
	return true
}

// chooseFollow picks the exit node of a loop without a test: the builder's
// ".done" block if it is an exit, else the exit with most edges into it.
func (fb *funcBuilder) chooseFollow(l *loop, cx []*loopCtx) *vnode {
	count := map[*vnode]int{}
	for x := range l.body {
		for _, s := range x.succs {
			if !l.body[s] && !isJumpTarget(s, cx) {
				count[s]++
			}
		}
	}
	var best *vnode
	for s, n := range count {
		switch {
		case best == nil:
			best = s
		case isDone(s) != isDone(best):
			if isDone(s) {
				best = s
			}
		case n != count[best]:
			if n > count[best] {
				best = s
			}
		case s.rpo < best.rpo:
			best = s
		}
	}
	return best
}

func isDone(v *vnode) bool {
	c := v.comment()
	return len(c) > 5 && c[len(c)-5:] == ".done"
}

// region builds an unstructured region: the nodes reachable from v up to
// stop or a jump out of an enclosing loop, as a small CFG.
func (fb *funcBuilder) region(v, stop *vnode, cx []*loopCtx) (*model.Node, error) {
	var members []*vnode
	index := map[*vnode]int{}
	stack := []*vnode{v}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if _, ok := index[x]; ok || (x != v && (x == stop || isJumpTarget(x, cx))) {
			continue
		}
		if fb.visited[x.id] && len(x.succs) > 0 {
			return nil, errUnstructured
		}
		index[x] = len(members)
		members = append(members, x)
		for i := len(x.succs) - 1; i >= 0; i-- {
			stack = append(stack, x.succs[i])
		}
	}
	// v first, the rest in reverse postorder.
	slices.SortStableFunc(members[1:], func(a, b *vnode) int { return a.rpo - b.rpo })
	for i, x := range members {
		index[x] = i
		fb.visit(x)
	}
	node := &model.Node{Kind: model.KindRegion}
	jumps := map[*vnode]int{}
	for _, x := range members {
		idx := x.blocks[0].Index
		blk := &model.Node{Kind: model.KindBlock, Block: &idx}
		blk.Children = fb.leaves(x.blocks[0])
		if x.cond != nil {
			blk.Cond = fb.condNode(x.cond, x.blocks[0])
		}
		node.Children = append(node.Children, blk)
	}
	for i, x := range members {
		blk := node.Children[i]
		for _, s := range x.succs {
			switch j, ok := index[s]; {
			case s == stop:
				blk.Succs = append(blk.Succs, -1)
			case ok:
				blk.Succs = append(blk.Succs, j)
			default: // a jump out of an enclosing loop
				k, seen := jumps[s]
				if !seen {
					k = len(node.Children)
					jumps[s] = k
					node.Children = append(node.Children, &model.Node{Kind: model.KindBlock,
						Children: []*model.Node{fb.jump(s, cx)}})
				}
				blk.Succs = append(blk.Succs, k)
			}
		}
	}
	return node, nil
}
