// This file defines the shape check of models read from files: the
// structure every consumer of a Program relies on without testing it.

package model

import "fmt"

// arity is the number of children a node kind requires (-1: any).
var arity = map[Kind]int{
	KindSeq: -1, KindIf: 1, KindIfElse: 2, KindSwitch: -1, KindCase: 1,
	KindLoop: 0, KindRegion: -1, KindBlock: -1, KindBreak: 0, KindContinue: 0,
	KindTest: -1, KindAnd: 2, KindOr: 2, KindNot: 1, KindLeaf: 0,
}

var leafKinds = map[LeafKind]bool{
	LeafCB: true, LeafUFC: true, LeafEFC: true, LeafCFC: true, LeafRet: true,
	LeafSpawn: true, LeafDefer: true, LeafRunDefers: true, LeafPanic: true,
}

// checkShape reports the first structural defect of p: a missing function
// or tree, duplicate IDs, an unknown kind, a node whose kind and parts
// disagree, a region successor or jump target that names nothing.
func (p *Program) checkShape() error {
	funcs := map[string]bool{}
	for i, f := range p.Functions {
		switch {
		case f == nil:
			return fmt.Errorf("functions[%d] is null", i)
		case f.ID == "":
			return fmt.Errorf("functions[%d] has no id", i)
		case funcs[f.ID]:
			return fmt.Errorf("function %s appears twice", f.ID)
		case f.Tree == nil:
			return fmt.Errorf("function %s has no tree", f.ID)
		}
		funcs[f.ID] = true
	}
	if !funcs[p.Body] {
		return fmt.Errorf("body %q is not among the functions", p.Body)
	}
	if p.Driver != "" && !funcs[p.Driver] {
		return fmt.Errorf("driver %q is not among the functions", p.Driver)
	}
	// Node IDs are unique in the program, recover trees included.
	ids := map[string]bool{}
	for _, f := range p.Functions {
		loops := map[string]bool{}
		var jumps []*Node
		for _, tree := range []*Node{f.Tree, f.Recover} {
			if err := checkNode(tree, ids, loops, &jumps); err != nil {
				return fmt.Errorf("function %s: %v", f.ID, err)
			}
		}
		for _, j := range jumps {
			if !loops[j.Target] {
				return fmt.Errorf("function %s: node %s: target %q is not a loop of the function", f.ID, j.ID, j.Target)
			}
		}
	}
	return nil
}

// checkNode checks n and its descendants, recording node IDs, the IDs of
// loops and the break and continue nodes.
func checkNode(n *Node, ids, loops map[string]bool, jumps *[]*Node) error {
	if n == nil {
		return nil
	}
	switch {
	case n.ID == "":
		return fmt.Errorf("a %s node has no id", n.Kind)
	case ids[n.ID]:
		return fmt.Errorf("node ID %s appears twice", n.ID)
	}
	ids[n.ID] = true
	if err := checkParts(n); err != nil {
		return fmt.Errorf("node %s: %v", n.ID, err)
	}
	switch n.Kind {
	case KindLoop:
		loops[n.ID] = true
	case KindBreak, KindContinue:
		*jumps = append(*jumps, n)
	}
	parts := append([]*Node{n.Cond}, n.Children...)
	if l := n.Loop; l != nil {
		parts = append(parts, l.Header, l.Body, l.Post)
	}
	for _, c := range parts {
		if err := checkNode(c, ids, loops, jumps); err != nil {
			return err
		}
	}
	return nil
}

// checkParts checks that n's parts fit its kind.
func checkParts(n *Node) error {
	want, ok := arity[n.Kind]
	switch {
	case !ok:
		return fmt.Errorf("unknown kind %q", n.Kind)
	case want >= 0 && len(n.Children) != want:
		return fmt.Errorf("%s node with %d children, want %d", n.Kind, len(n.Children), want)
	case (n.Kind == KindLeaf) != (n.Leaf != nil):
		return fmt.Errorf("%s node with leaf %v", n.Kind, n.Leaf != nil)
	case (n.Kind == KindLoop) != (n.Loop != nil):
		return fmt.Errorf("%s node with loop %v", n.Kind, n.Loop != nil)
	case (n.Kind == KindSwitch) != (n.Switch != nil):
		return fmt.Errorf("%s node with switch %v", n.Kind, n.Switch != nil)
	case n.Loop != nil && n.Loop.Body == nil:
		return fmt.Errorf("loop without body")
	case n.Leaf != nil && !leafKinds[n.Leaf.Kind]:
		return fmt.Errorf("unknown leaf kind %q", n.Leaf.Kind)
	case (n.Kind == KindIf || n.Kind == KindIfElse) && n.Cond == nil:
		return fmt.Errorf("%s node without cond", n.Kind)
	}
	for i, c := range n.Children {
		switch {
		case c == nil:
			return fmt.Errorf("children[%d] is null", i)
		case n.Kind == KindSwitch && c.Kind != KindCase:
			return fmt.Errorf("switch child %s is a %s, want case", c.ID, c.Kind)
		case n.Kind == KindRegion && c.Kind != KindBlock:
			return fmt.Errorf("region child %s is a %s, want block", c.ID, c.Kind)
		}
		if n.Kind == KindRegion {
			for _, s := range c.Succs {
				if s < -1 || s >= len(n.Children) {
					return fmt.Errorf("block %s: successor %d outside the region's %d blocks", c.ID, s, len(n.Children))
				}
			}
		}
	}
	return nil
}
