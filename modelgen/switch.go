// This file defines the recovery of switch statements from the if-chains
// Go's SSA builder lowers them to.

package modelgen

import (
	"slices"

	"golang.org/x/tools/go/ssa"

	"github.com/predict-tools/predict/model"
)

// recoverSwitches rewrites, everywhere in the tree, chains of conditionals
// whose tests the builder made for a switch, type switch or select
// ("switch.next" blocks) into switch nodes with one case per test.
func (fb *funcBuilder) recoverSwitches(n *model.Node) {
	if n == nil {
		return
	}
	fb.recoverSwitches(n.Cond)
	if l := n.Loop; l != nil {
		fb.recoverSwitches(l.Header)
		fb.recoverSwitches(l.Body)
		fb.recoverSwitches(l.Post)
	}
	for _, c := range n.Children {
		fb.recoverSwitches(c)
	}
	if n.Kind != model.KindSeq {
		return
	}
	var items []*model.Node
	for i := 0; i < len(n.Children); i++ {
		c := n.Children[i]
		// A chain head: a conditional whose else part, or whose next
		// sibling (when the then part never completes), is a case test.
		if (c.Kind == model.KindIf || c.Kind == model.KindIfElse) && !fb.isCaseTest(c) {
			var rest []*model.Node
			if c.Kind == model.KindIf && i+1 < len(n.Children) {
				rest = n.Children[i+1:]
			}
			if sw, used := fb.chain(c, rest); sw != nil {
				items = append(items, sw)
				i += used
				continue
			}
		}
		items = append(items, c)
	}
	n.Children = items
}

// chain builds the switch starting at head; rest are the nodes after head
// in its sequence. It returns the switch and how many of rest it took.
// Case tests follow a test either as its else part or, when the then part
// never completes, as the next node of the same sequence.
func (fb *funcBuilder) chain(head *model.Node, rest []*model.Node) (*model.Node, int) {
	sw := &model.Node{Kind: model.KindSwitch, Switch: &model.Switch{}}
	used, tests := 0, 0
	cur, siblings, top := head, rest, true
	type move struct {
		leaves []*model.Node
		test   *model.Node
	}
	var moves []move
	take := func(nodes []*model.Node, k int) {
		if k > 0 {
			moves = append(moves, move{nodes[:k], fb.firstTestNode(nodes[k].Cond)})
		}
	}
	for {
		if cur.Kind == model.KindIf && cur.Cond.Kind == model.KindNot {
			// "if !c { rest }" is "if c {} else { rest }": an empty case,
			// unless rest never completes (a blocking select's last test
			// panics when no case matched): then what follows in the
			// sequence is c's case.
			body := seqNode(nil)
			if neverCompletes(cur.Children[0]) && len(siblings) > 0 {
				body = seqNode(siblings)
				if top {
					used += len(siblings)
				}
				siblings = nil
			}
			cur = &model.Node{Kind: model.KindIfElse, Cond: cur.Cond.Children[0], Pos: cur.Pos,
				Children: []*model.Node{body, cur.Children[0]}}
		}
		sw.Children = append(sw.Children, &model.Node{Kind: model.KindCase, Cond: cur.Cond,
			Children: []*model.Node{cur.Children[0]}})
		if cur.Kind == model.KindIfElse {
			els := cur.Children[1]
			if k := fb.caseTestAt(els.Children); k >= 0 {
				take(els.Children, k)
				cur, siblings, top = els.Children[k], els.Children[k+1:], false
				tests++
				continue
			}
			sw.Children = append(sw.Children, &model.Node{Kind: model.KindCase, Children: []*model.Node{els}})
			break
		}
		if k := fb.caseTestAt(siblings); k >= 0 {
			take(siblings, k)
			cur, siblings = siblings[k], siblings[k+1:]
			tests++
			if top {
				used += k + 1
			}
			continue
		}
		if !top && len(siblings) > 0 {
			// The nodes after the last test in an else part run after its
			// case too (a fallthrough, or code the cases share): no switch.
			return nil, 0
		}
		break
	}
	if tests == 0 {
		return nil, 0
	}
	// The leaves that compute a case's value become part of its test.
	for _, m := range moves {
		m.test.Children = append(slices.Clone(m.leaves), m.test.Children...)
	}
	sw.Switch.Form, sw.Switch.Tag = fb.switchForm(sw)
	return sw, used
}

// neverCompletes reports whether n ends in a panic, a return, a break or
// a continue: what follows it in its sequence never runs after it.
func neverCompletes(n *model.Node) bool {
	for n != nil && n.Kind == model.KindSeq && len(n.Children) > 0 {
		n = n.Children[len(n.Children)-1]
	}
	switch {
	case n == nil:
		return false
	case n.Kind == model.KindBreak || n.Kind == model.KindContinue:
		return true
	case n.Kind == model.KindLeaf && n.Leaf != nil:
		return n.Leaf.Kind == model.LeafPanic || n.Leaf.Kind == model.LeafRet
	}
	return false
}

// caseTestAt returns the index of the case test that nodes start with,
// after the leaves of its own test block (they compute the case value), or
// -1.
func (fb *funcBuilder) caseTestAt(nodes []*model.Node) int {
	for k, n := range nodes {
		if n.Kind != model.KindLeaf {
			if !fb.isCaseTest(n) {
				return -1
			}
			test := fb.firstTestNode(n.Cond)
			for _, l := range nodes[:k] {
				if l.Leaf.Block != *test.Block {
					return -1
				}
			}
			return k
		}
	}
	return -1
}

// isCaseTest reports whether n is a conditional whose test the builder made
// for the second or a later case of a switch.
func (fb *funcBuilder) isCaseTest(n *model.Node) bool {
	if n.Kind != model.KindIf && n.Kind != model.KindIfElse {
		return false
	}
	switch fb.testComment(n) {
	case "switch.next", "typeswitch.next", "select.next":
		return true
	}
	return false
}

// testComment is the block comment of the first test of a conditional.
func (fb *funcBuilder) testComment(n *model.Node) string {
	if b := fb.firstTest(n.Cond); b != nil {
		return b.Comment
	}
	return ""
}

// firstTest returns the block of the first test a condition evaluates.
func (fb *funcBuilder) firstTest(c *model.Node) *ssa.BasicBlock {
	if t := fb.firstTestNode(c); t != nil {
		return fb.testBlock[t]
	}
	return nil
}

// firstTestNode returns the first test a condition evaluates.
func (fb *funcBuilder) firstTestNode(c *model.Node) *model.Node {
	for c != nil {
		if c.Kind == model.KindTest {
			return c
		}
		if len(c.Children) == 0 {
			return nil
		}
		c = c.Children[0]
	}
	return nil
}

// switchForm classifies a recovered switch: a select, a type switch, a
// value switch on one tag, or a tagless switch of conditions.
func (fb *funcBuilder) switchForm(sw *model.Node) (form, tag string) {
	var x ssa.Value
	same := true
	for i, c := range sw.Children {
		if c.Cond == nil {
			continue
		}
		b := fb.firstTest(c.Cond)
		if b == nil {
			same = false
			continue
		}
		if i > 0 {
			switch b.Comment {
			case "typeswitch.next":
				return "type", ""
			case "select.next":
				return "select", ""
			}
		}
		cond := b.Instrs[len(b.Instrs)-1].(*ssa.If).Cond
		bin, ok := cond.(*ssa.BinOp)
		if !ok || bin.Op.String() != "==" {
			same = false
			continue
		}
		if x == nil {
			x = bin.X
		} else if bin.X != x {
			same = false
		}
	}
	if same && x != nil {
		return "value", valueName(x)
	}
	return "cond", ""
}
