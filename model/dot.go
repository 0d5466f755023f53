// This file defines the Graphviz DOT form of models.

package model

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// WriteDOT writes p as a Graphviz digraph: one cluster per function, one
// graph node per tree node (labelled with its kind, its loop form or leaf
// kind and callee, and its file:line; the SVG id is the model node ID),
// tree edges from parent to child (labelled cond, header, body, post,
// then, else, or [i] for the blocks of a region), dashed edges for the
// successors of a region's blocks, and dotted edges from break and
// continue to their loop. Graph node names are n0, n1, ... in the order of
// Walk, so the output depends only on p.
func (p *Program) WriteDOT(w io.Writer) error {
	dw := &dotWriter{w: w, names: map[*Node]string{}}
	dw.printf("digraph %s {\n", dotString(p.Package))
	dw.printf("  graph [label=%s, labelloc=t, fontname=\"Helvetica\", ordering=out];\n",
		dotString("program "+p.Package, "body "+p.Body+driverSuffix(p.Driver)))
	dw.printf("  node [fontname=\"Helvetica\", fontsize=10, shape=box, style=rounded];\n")
	dw.printf("  edge [fontname=\"Helvetica\", fontsize=9];\n")
	for i, f := range p.Functions {
		dw.printf("\n  subgraph cluster_%d {\n", i)
		dw.printf("    label=%s;\n", dotString(fmt.Sprintf("func %s  %s  blocks=%d", f.ID, f.Pos, f.Blocks)))
		// Names first, so that jump edges may point anywhere in the function.
		dw.loops = map[string]string{}
		for _, t := range []*Node{f.Tree, f.Recover} {
			Walk(t, func(n *Node) bool {
				if name := dw.name(n); n.Kind == KindLoop && n.ID != "" {
					dw.loops[n.ID] = name
				}
				return true
			})
		}
		if f.Tree != nil {
			dw.node(f.Tree, "")
		}
		if f.Recover != nil {
			dw.node(f.Recover, "recover: ")
		}
		dw.printf("  }\n")
	}
	dw.printf("}\n")
	return dw.err
}

func driverSuffix(driver string) string {
	if driver == "" {
		return ""
	}
	return ", driver " + driver
}

type dotWriter struct {
	w     io.Writer
	err   error
	names map[*Node]string  // graph node names
	loops map[string]string // the current function's loops: model ID → graph node name
	next  int
}

func (dw *dotWriter) printf(format string, args ...any) {
	if dw.err == nil {
		_, dw.err = fmt.Fprintf(dw.w, format, args...)
	}
}

// name returns the graph node name of n, made on first use.
func (dw *dotWriter) name(n *Node) string {
	s, ok := dw.names[n]
	if !ok {
		s = dw.fresh()
		dw.names[n] = s
	}
	return s
}

// fresh returns a graph node name not used yet.
func (dw *dotWriter) fresh() string {
	dw.next++
	return fmt.Sprintf("n%d", dw.next-1)
}

// node writes n, the edges to its parts and its parts; prefix starts the
// label of n.
func (dw *dotWriter) node(n *Node, prefix string) {
	name := dw.name(n)
	lines := dotLines(n)
	lines[0] = prefix + lines[0]
	dw.printf("    %s [label=%s, id=%s%s];\n", name, dotString(lines...), dotString(n.ID), dotStyle(n))
	edge := func(c *Node, label string) {
		if c == nil {
			return
		}
		if label != "" {
			label = " [label=" + dotString(label) + "]"
		}
		dw.printf("    %s -> %s%s;\n", name, dw.name(c), label)
		dw.node(c, "")
	}
	if l := n.Loop; l != nil { // in the order of an iteration
		if l.TestAtBottom {
			edge(l.Body, "body")
		}
		edge(l.Header, "header")
		edge(n.Cond, "cond")
		if !l.TestAtBottom {
			edge(l.Body, "body")
		}
		edge(l.Post, "post")
	} else {
		edge(n.Cond, "cond")
	}
	for i, c := range n.Children {
		edge(c, childLabel(n, i))
	}
	switch n.Kind {
	case KindRegion:
		dw.successors(n)
	case KindBreak, KindContinue:
		if loop, ok := dw.loops[n.Target]; ok {
			dw.printf("    %s -> %s [style=dotted, constraint=false, arrowhead=empty];\n", name, loop)
		}
	}
}

// successors writes the dashed successor edges of region r's blocks, and
// the region's exit point if a block leaves it.
func (dw *dotWriter) successors(r *Node) {
	exit := ""
	for _, b := range r.Children {
		for k, s := range b.Succs {
			attrs := "style=dashed, constraint=false"
			if b.Cond != nil && len(b.Succs) == 2 {
				attrs += ", xlabel=" + dotString([]string{"true", "false"}[k])
			}
			to := ""
			switch {
			case s == -1:
				if exit == "" {
					exit = dw.fresh()
					dw.printf("    %s [shape=point, label=\"\", tooltip=%s];\n", exit, dotString("exit of "+r.ID))
				}
				to = exit
			case s >= 0 && s < len(r.Children):
				to = dw.name(r.Children[s])
			default:
				continue // not a block of this region: nothing to point at
			}
			dw.printf("    %s -> %s [%s];\n", dw.name(b), to, attrs)
		}
	}
}

// childLabel labels the edge to the i-th child of n.
func childLabel(n *Node, i int) string {
	switch n.Kind {
	case KindIf, KindCase:
		return "then"
	case KindIfElse:
		if i == 0 {
			return "then"
		}
		return "else"
	case KindRegion:
		return fmt.Sprintf("[%d]", i)
	}
	return ""
}

// dotLines are the lines of n's label: what it is, then file:line.
func dotLines(n *Node) []string {
	first := string(n.Kind)
	var more []string
	switch {
	case n.Kind == KindLeaf && n.Leaf != nil:
		l := n.Leaf
		first = string(l.Kind)
		switch {
		case l.Op != "":
			first += " " + l.Op
		case l.Callee != "":
			first += " " + l.Callee
		}
		if l.Dynamic {
			first += " (dynamic)"
		}
		more = append(more, fmt.Sprintf("b%d[%d:%d]", l.Block, l.First, l.Last))
	case n.Kind == KindLoop && n.Loop != nil:
		first += " " + string(n.Loop.Form)
		if n.Loop.Range != "" {
			first += " over " + n.Loop.Range
		}
		if n.Loop.TestAtBottom {
			first += " test-at-bottom"
		}
	case n.Kind == KindSwitch && n.Switch != nil:
		first += " " + n.Switch.Form
		if n.Switch.Tag != "" {
			first += " on " + n.Switch.Tag
		}
	case n.Kind == KindCase && n.Cond == nil:
		first += " default"
	case n.Kind == KindTest:
		first += " " + n.Value
	}
	if n.Pos.Start.IsValid() {
		more = append(more, n.Pos.String())
	}
	return append([]string{first}, more...)
}

// dotStyle returns the attributes that set n's shape and colour.
func dotStyle(n *Node) string {
	switch n.Kind {
	case KindLeaf:
		if n.Leaf == nil {
			return ""
		}
		switch n.Leaf.Kind {
		case LeafCFC:
			return `, style="rounded,filled", fillcolor="#cfe2ff"`
		case LeafUFC:
			return `, style="rounded,filled", fillcolor="#d9ead3"`
		case LeafEFC:
			return `, style="rounded,filled", fillcolor="#fff2cc"`
		case LeafRet, LeafPanic, LeafRunDefers:
			return `, style="rounded,filled", fillcolor="#eeeeee"`
		}
		return ""
	case KindLoop:
		return ", shape=ellipse, style=bold"
	case KindTest, KindAnd, KindOr, KindNot:
		return ", shape=diamond, style=solid"
	case KindBreak, KindContinue:
		return ", style=dashed"
	}
	return ", shape=ellipse, style=solid"
}

// dotString quotes lines as one DOT string, lines centred: backslashes and
// quotes are escaped, control characters and invalid UTF-8 replaced.
func dotString(lines ...string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i, s := range lines {
		if i > 0 {
			b.WriteString(`\n`)
		}
		for _, r := range strings.ToValidUTF8(s, string(utf8.RuneError)) {
			switch {
			case r == '\\' || r == '"':
				b.WriteByte('\\')
				b.WriteRune(r)
			case r < 0x20 || r == 0x7f:
				b.WriteByte(' ')
			default:
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}
