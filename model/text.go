// This file defines the text form of models.

package model

import (
	"fmt"
	"io"
	"strings"
)

// WriteText prints the program's functions as indented trees with
// file:line, one function after another in ID order.
func (p *Program) WriteText(w io.Writer) error {
	tw := &textWriter{w: w}
	tw.printf("program %s (module %s)\n", p.Package, p.Module)
	tw.printf("body %s", p.Body)
	if p.Driver != "" {
		tw.printf(", driver %s", p.Driver)
	}
	tw.printf("\n")
	for _, f := range p.Functions {
		tw.printf("\nfunc %s  %s  blocks=%d", f.ID, f.Pos, f.Blocks)
		if r := f.Regions(); r > 0 {
			tw.printf(" unstructured=%d", r)
		}
		tw.printf("\n")
		tw.node(f.Tree, 1, "")
		if f.Recover != nil {
			tw.printf("  recover:\n")
			tw.node(f.Recover, 2, "")
		}
	}
	return tw.err
}

type textWriter struct {
	w   io.Writer
	err error
}

func (tw *textWriter) printf(format string, args ...any) {
	if tw.err == nil {
		_, tw.err = fmt.Fprintf(tw.w, format, args...)
	}
}

// node prints n at the given depth; label prefixes its line ("then:", ...).
func (tw *textWriter) node(n *Node, depth int, label string) {
	if n == nil {
		return
	}
	ind := strings.Repeat("  ", depth)
	tw.printf("%s%s%s\n", ind, label, n.headline())
	switch n.Kind {
	case KindLeaf, KindBreak, KindContinue:
		return
	case KindSeq:
		for _, c := range n.Children {
			tw.node(c, depth+1, "")
		}
		return
	}
	if n.Cond != nil {
		tw.node(n.Cond, depth+1, "cond: ")
	}
	if l := n.Loop; l != nil {
		if l.Header != nil && len(l.Header.Children) > 0 {
			tw.node(l.Header, depth+1, "header: ")
		}
		tw.node(l.Body, depth+1, "body: ")
		if l.Post != nil {
			tw.node(l.Post, depth+1, "post: ")
		}
	}
	for i, c := range n.Children {
		label := ""
		switch {
		case n.Kind == KindIf || n.Kind == KindCase:
			label = "then: "
		case n.Kind == KindIfElse && i == 0:
			label = "then: "
		case n.Kind == KindIfElse:
			label = "else: "
		case n.Kind == KindRegion:
			label = fmt.Sprintf("[%d] ", i)
		}
		tw.node(c, depth+1, label)
	}
}

// headline is the one-line description of a node.
func (n *Node) headline() string {
	var b strings.Builder
	b.WriteString(string(n.Kind))
	switch n.Kind {
	case KindLeaf:
		l := n.Leaf
		b.Reset()
		b.WriteString(string(l.Kind))
		switch {
		case l.Op != "":
			fmt.Fprintf(&b, " %s(%s)", l.Op, strings.Join(l.Args, ", "))
		case l.Callee != "":
			fmt.Fprintf(&b, " %s(%s)", l.Callee, strings.Join(l.Args, ", "))
		}
		if l.Dynamic {
			fmt.Fprintf(&b, " dynamic targets=[%s]", strings.Join(l.Targets, " "))
		}
		fmt.Fprintf(&b, "  b%d[%d:%d]", l.Block, l.First, l.Last)
	case KindLoop:
		fmt.Fprintf(&b, " %s", n.Loop.Form)
		if n.Loop.Range != "" {
			fmt.Fprintf(&b, " over %s", n.Loop.Range)
		}
		if n.Loop.TestAtBottom {
			b.WriteString(" test-at-bottom")
		}
	case KindSwitch:
		fmt.Fprintf(&b, " %s", n.Switch.Form)
		if n.Switch.Tag != "" {
			fmt.Fprintf(&b, " on %s", n.Switch.Tag)
		}
	case KindCase:
		if n.Cond == nil {
			b.WriteString(" default")
		}
	case KindTest:
		fmt.Fprintf(&b, " %s", n.Value)
	case KindBreak, KindContinue:
		fmt.Fprintf(&b, " %s", n.Target)
	case KindBlock:
		if len(n.Succs) > 0 {
			fmt.Fprintf(&b, " -> %v", n.Succs)
		}
	}
	if n.Pos.Start.IsValid() {
		fmt.Fprintf(&b, "  %s", n.Pos)
	}
	return b.String()
}
