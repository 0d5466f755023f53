package modelgen

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/predict-tools/predict/model"
	"golang.org/x/tools/go/ssa"
)

// checkCoverage checks that every instruction of every block reachable
// from the entry (or the recover block), except the final If or Jump,
// appears in exactly one leaf, and every block ending in If in exactly one
// test.
func checkCoverage(t *testing.T, f *model.Function, fn *ssa.Function) {
	t.Helper()
	type key struct{ block, instr int }
	count := map[key]int{}
	tests := map[int]int{}
	for _, tree := range []*model.Node{f.Tree, f.Recover} {
		model.Walk(tree, func(n *model.Node) bool {
			if n.Leaf != nil {
				for i := n.Leaf.First; i < n.Leaf.Last; i++ {
					count[key{n.Leaf.Block, i}]++
				}
			}
			if n.Kind == model.KindTest {
				tests[*n.Block]++
			}
			return true
		})
	}
	for _, b := range reachableBlocks(fn) {
		for i, instr := range b.Instrs {
			switch instr.(type) {
			case *ssa.If:
				if tests[b.Index] != 1 && !(tests[b.Index] > 1 && len(b.Succs) == 0) {
					t.Errorf("%s: block %d's branch is in %d tests, want 1", f.ID, b.Index, tests[b.Index])
				}
				continue
			case *ssa.Jump:
				continue
			}
			c := count[key{b.Index, i}]
			if c == 1 || (c > 1 && len(b.Succs) == 0) { // a block that ends the function may be copied
				continue
			}
			t.Errorf("%s: instruction b%d[%d] %q is in %d leaves, want 1", f.ID, b.Index, i, instr, c)
		}
	}
}

func reachableBlocks(fn *ssa.Function) []*ssa.BasicBlock {
	seen := map[*ssa.BasicBlock]bool{}
	var out []*ssa.BasicBlock
	var visit func(b *ssa.BasicBlock)
	visit = func(b *ssa.BasicBlock) {
		if b == nil || seen[b] {
			return
		}
		seen[b] = true
		out = append(out, b)
		for _, s := range b.Succs {
			visit(s)
		}
	}
	visit(fn.Blocks[0])
	visit(fn.Recover)
	return out
}

// walker executes a control tree with random branch outcomes and records
// the SSA blocks it passes, as an interpreter would (seed-003 §4 status
// rules): the result must be a path of the CFG.
type walker struct {
	rng   *rand.Rand
	path  []step
	steps int
	limit int
}

type step struct {
	block  int
	choice int // 0 true, 1 false for the block's branch; -1 when none was taken
}

type status struct {
	kind   model.Kind // "" for ok, KindBreak, KindContinue, or "return"
	target string
}

var statusOK = status{}

// errWalkLimit stops a walk that ran long enough.
type errWalkLimit struct{}

func (w *walker) visit(block int) {
	w.steps++
	if w.steps > w.limit {
		panic(errWalkLimit{})
	}
	if n := len(w.path); n > 0 && w.path[n-1].block == block && w.path[n-1].choice < 0 {
		return
	}
	w.path = append(w.path, step{block, -1})
}

func (w *walker) exec(n *model.Node) status {
	switch n.Kind {
	case model.KindSeq:
		for _, c := range n.Children {
			if st := w.exec(c); st != statusOK {
				return st
			}
		}
		return statusOK
	case model.KindLeaf:
		w.visit(n.Leaf.Block)
		if n.Leaf.Kind == model.LeafRet || n.Leaf.Kind == model.LeafPanic {
			return status{kind: "return"}
		}
		return statusOK
	case model.KindBreak, model.KindContinue:
		return status{kind: n.Kind, target: n.Target}
	case model.KindIf:
		if w.cond(n.Cond) {
			return w.exec(n.Children[0])
		}
		return statusOK
	case model.KindIfElse:
		if w.cond(n.Cond) {
			return w.exec(n.Children[0])
		}
		return w.exec(n.Children[1])
	case model.KindSwitch:
		for _, c := range n.Children {
			if c.Cond == nil || w.cond(c.Cond) {
				return w.exec(c.Children[0])
			}
		}
		return statusOK
	case model.KindLoop:
		return w.loop(n)
	case model.KindRegion:
		return w.region(n)
	}
	panic(fmt.Sprintf("walker: unexpected node kind %s", n.Kind))
}

func (w *walker) loop(n *model.Node) status {
	l := n.Loop
	test := func() bool {
		if l.Header != nil {
			if st := w.exec(l.Header); st != statusOK {
				panic("walker: a loop header does not complete")
			}
		}
		return n.Cond == nil || w.cond(n.Cond)
	}
	for {
		if !l.TestAtBottom && !test() {
			return statusOK
		}
		st := w.exec(l.Body)
		switch {
		case st.target == n.ID && st.kind == model.KindBreak:
			return statusOK
		case st.target == n.ID && st.kind == model.KindContinue, st == statusOK:
		default:
			return st
		}
		if l.Post != nil {
			w.exec(l.Post)
		}
		if l.TestAtBottom && !test() {
			return statusOK
		}
	}
}

func (w *walker) region(n *model.Node) status {
	i := 0
	for {
		blk := n.Children[i]
		for _, c := range blk.Children {
			if st := w.exec(c); st != statusOK {
				return st
			}
		}
		switch {
		case blk.Cond != nil:
			if w.cond(blk.Cond) {
				i = blk.Succs[0]
			} else {
				i = blk.Succs[1]
			}
		case len(blk.Succs) == 1:
			i = blk.Succs[0]
		default:
			panic("walker: a region block without successors completed normally")
		}
		if i < 0 {
			return statusOK
		}
	}
}

// cond evaluates a condition, choosing each test's outcome at random.
func (w *walker) cond(c *model.Node) bool {
	switch c.Kind {
	case model.KindTest:
		for _, l := range c.Children {
			w.exec(l)
		}
		w.visit(*c.Block)
		choice := w.rng.IntN(2)
		w.path[len(w.path)-1].choice = choice
		return choice == 0
	case model.KindNot:
		return !w.cond(c.Children[0])
	case model.KindAnd:
		return w.cond(c.Children[0]) && w.cond(c.Children[1])
	case model.KindOr:
		return w.cond(c.Children[0]) || w.cond(c.Children[1])
	}
	panic(fmt.Sprintf("walker: unexpected condition kind %s", c.Kind))
}

// checkWalks walks the tree of f n times and checks each path against the CFG.
func checkWalks(t *testing.T, f *model.Function, fn *ssa.Function, n int) {
	t.Helper()
	for seed := range n {
		w := &walker{rng: rand.New(rand.NewPCG(uint64(seed), 7)), limit: 2000}
		ended := func() (ended bool) {
			defer func() {
				if r := recover(); r != nil {
					if _, ok := r.(errWalkLimit); !ok {
						panic(r)
					}
					ended = false
				}
			}()
			st := w.exec(f.Tree)
			if st.kind != "return" {
				t.Errorf("%s: walk %d completed with %v, want a return", f.ID, seed, st)
			}
			return true
		}()
		if err := validPath(fn, w.path, ended); err != nil {
			t.Errorf("%s: walk %d: %v\npath %v", f.ID, seed, err, w.path)
			return
		}
	}
}

// validPath checks that consecutive blocks of path are joined by CFG edges
// (through blocks that hold only a jump), following each branch's choice.
func validPath(fn *ssa.Function, path []step, ended bool) error {
	if len(path) == 0 {
		return fmt.Errorf("empty path")
	}
	if !reachesThroughJumps(fn.Blocks[0], path[0].block) {
		return fmt.Errorf("path starts at b%d, not at the entry", path[0].block)
	}
	for i := 0; i+1 < len(path); i++ {
		from, to := fn.Blocks[path[i].block], path[i+1].block
		succs := from.Succs
		if c := path[i].choice; c >= 0 {
			succs = succs[c : c+1]
		} else if _, isIf := from.Instrs[len(from.Instrs)-1].(*ssa.If); isIf {
			return fmt.Errorf("b%d ends in a branch but the walk took none", from.Index)
		}
		if !slices.ContainsFunc(succs, func(s *ssa.BasicBlock) bool { return reachesThroughJumps(s, to) }) {
			return fmt.Errorf("no edge b%d -> b%d (choice %d)", from.Index, to, path[i].choice)
		}
	}
	if last := fn.Blocks[path[len(path)-1].block]; ended {
		switch last.Instrs[len(last.Instrs)-1].(type) {
		case *ssa.Return, *ssa.Panic:
		default:
			return fmt.Errorf("the walk returned in b%d, which does not return", last.Index)
		}
	}
	return nil
}

// reachesThroughJumps reports whether b is block to, or jumps to it
// through blocks that hold nothing but a jump.
func reachesThroughJumps(b *ssa.BasicBlock, to int) bool {
	for range 100 {
		if b.Index == to {
			return true
		}
		if len(b.Instrs) != 1 || len(b.Succs) != 1 {
			return false
		}
		b = b.Succs[0]
	}
	return false
}
