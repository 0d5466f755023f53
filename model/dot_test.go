package model_test

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/predict-tools/predict/model"
)

// TestDOT checks that the DOT form of real models parses, declares every
// node an edge names, and has one graph node per model node.
func TestDOT(t *testing.T) {
	for _, m := range []*realModel{stencil, shapes} {
		t.Run(m.pattern, func(t *testing.T) {
			p := m.build(t)
			var buf bytes.Buffer
			if err := p.WriteDOT(&buf); err != nil {
				t.Fatal(err)
			}
			g, err := parseDOT(buf.String())
			if err != nil {
				t.Fatalf("DOT does not parse: %v", err)
			}
			modelNodes := 0
			for _, f := range p.Functions {
				for _, tree := range []*model.Node{f.Tree, f.Recover} {
					model.Walk(tree, func(*model.Node) bool { modelNodes++; return true })
				}
			}
			if got := g.withID(); got != modelNodes {
				t.Errorf("%d graph nodes carry a model ID, want one per model node: %d", got, modelNodes)
			}
			if g.clusters != len(p.Functions) {
				t.Errorf("%d clusters for %d functions", g.clusters, len(p.Functions))
			}
			var again bytes.Buffer
			if err := m.build(t).WriteDOT(&again); err != nil {
				t.Fatal(err)
			}
			if again.String() != buf.String() {
				t.Errorf("two builds of %s give different DOT", m.pattern)
			}
			renderDOT(t, buf.Bytes())
		})
	}
}

// TestDOTEdges checks the edge kinds on the shapes fixture: labelled tree
// edges, dashed region successors, dotted jumps to their loop.
func TestDOTEdges(t *testing.T) {
	p := shapes.build(t)
	var buf bytes.Buffer
	if err := p.WriteDOT(&buf); err != nil {
		t.Fatal(err)
	}
	g, err := parseDOT(buf.String())
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, e := range g.edges {
		count["label="+e.attrs["label"]]++
		count["xlabel="+e.attrs["xlabel"]]++
		count["style="+e.attrs["style"]]++
		if e.attrs["style"] == "dotted" {
			from, to := g.nodes[e.from]["label"], g.nodes[e.to]["label"]
			if !strings.HasPrefix(from, "break") && !strings.HasPrefix(from, "continue") || !strings.HasPrefix(to, "loop") {
				t.Errorf("dotted edge from %q to %q, want a jump to its loop", from, to)
			}
		}
	}
	for _, want := range []string{"label=then", "label=cond", "label=body", "label=header", "label=[0]",
		"xlabel=true", "xlabel=false", "style=dashed", "style=dotted"} {
		if count[want] == 0 {
			t.Errorf("no edge with %s", want)
		}
	}
	var recovers int
	for _, attrs := range g.nodes {
		if strings.HasPrefix(attrs["label"], "recover: ") {
			recovers++
		}
	}
	if recovers != 1 {
		t.Errorf("%d recover roots, want 1 (func safe)", recovers)
	}
}

// TestDOTQuoting feeds names with quotes, backslashes and newlines.
func TestDOTQuoting(t *testing.T) {
	callee := "f(\"a\\\"b\\\\c\nd\")\x00"
	p := &model.Program{Package: `odd"pkg\`, Body: "f", Functions: []*model.Function{{
		ID: `f"`, Tree: &model.Node{ID: `f"/seq`, Kind: model.KindSeq, Children: []*model.Node{
			{ID: `f"/efc`, Kind: model.KindLeaf, Leaf: &model.Leaf{Kind: model.LeafEFC, Callee: callee}},
		}},
	}}}
	var buf bytes.Buffer
	if err := p.WriteDOT(&buf); err != nil {
		t.Fatal(err)
	}
	g, err := parseDOT(buf.String())
	if err != nil {
		t.Fatalf("%v in\n%s", err, buf.String())
	}
	// Control characters become spaces; lines are broken by \n.
	want := "efc " + `f("a\"b\\c d") ` + "\n" + "b0[0:0]"
	found := false
	for _, attrs := range g.nodes {
		found = found || labelText(attrs["label"]) == want
	}
	if !found {
		t.Errorf("no node labelled %s in\n%s", want, buf.String())
	}
	renderDOT(t, buf.Bytes())
}

// renderDOT runs Graphviz on src when it is installed and fails on any
// message it prints.
func renderDOT(t *testing.T, src []byte) {
	t.Helper()
	path, err := exec.LookPath("dot")
	if err != nil {
		return // Graphviz is not needed to build or test predict
	}
	cmd := exec.Command(path, "-Tsvg", "-o", "/dev/null")
	cmd.Stdin = bytes.NewReader(src)
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("dot -Tsvg: %v\n%s", err, out)
	}
}

// dotGraph is what parseDOT finds: node statements, edges and clusters.
type dotGraph struct {
	nodes    map[string]map[string]string // name → attributes, unquoted
	edges    []dotEdge
	clusters int
}

type dotEdge struct {
	from, to string
	attrs    map[string]string
}

func (g *dotGraph) withID() int {
	n := 0
	for _, attrs := range g.nodes {
		if attrs["id"] != "" {
			n++
		}
	}
	return n
}

// parseDOT parses the subset of DOT that WriteDOT writes and checks it:
// braces and brackets balance, strings close, each node is declared once
// and every edge endpoint is declared.
func parseDOT(src string) (*dotGraph, error) {
	toks, err := dotTokens(src)
	if err != nil {
		return nil, err
	}
	g := &dotGraph{nodes: map[string]map[string]string{}}
	i := 0
	next := func() string {
		if i >= len(toks) {
			return ""
		}
		i++
		return toks[i-1]
	}
	peek := func() string {
		if i >= len(toks) {
			return ""
		}
		return toks[i]
	}
	attrs := func() (map[string]string, error) {
		m := map[string]string{}
		if peek() != "[" {
			return m, nil
		}
		next()
		for peek() != "]" {
			k, eq, v := next(), next(), next()
			if eq != "=" || k == "" || v == "" {
				return nil, fmt.Errorf("bad attribute %s %s %s", k, eq, v)
			}
			m[k] = unquoteDOT(v)
			if peek() == "," {
				next()
			}
		}
		next()
		return m, nil
	}
	if next() != "digraph" || next() == "" || next() != "{" {
		return nil, fmt.Errorf("does not start with digraph NAME {")
	}
	depth := 1
	for depth > 0 {
		switch tok := next(); tok {
		case "":
			return nil, fmt.Errorf("%d unclosed braces", depth)
		case "}":
			depth--
		case ";":
		case "subgraph":
			if name := next(); strings.HasPrefix(unquoteDOT(name), "cluster") {
				g.clusters++
			}
			if next() != "{" {
				return nil, fmt.Errorf("subgraph without {")
			}
			depth++
		case "graph", "node", "edge":
			if _, err := attrs(); err != nil {
				return nil, err
			}
		default:
			switch peek() {
			case "=": // graph attribute
				next()
				next()
			case "->":
				next()
				to := next()
				a, err := attrs()
				if err != nil {
					return nil, err
				}
				g.edges = append(g.edges, dotEdge{from: tok, to: to, attrs: a})
			default:
				if _, dup := g.nodes[tok]; dup {
					return nil, fmt.Errorf("node %s declared twice", tok)
				}
				a, err := attrs()
				if err != nil {
					return nil, err
				}
				g.nodes[tok] = a
			}
		}
	}
	if i != len(toks) {
		return nil, fmt.Errorf("tokens after the closing brace: %v", toks[i:])
	}
	for _, e := range g.edges {
		for _, end := range []string{e.from, e.to} {
			if _, ok := g.nodes[end]; !ok {
				return nil, fmt.Errorf("edge %s -> %s: %s is not declared", e.from, e.to, end)
			}
		}
	}
	return g, nil
}

// dotTokens splits src into identifiers, quoted strings (quotes kept) and
// punctuation.
func dotTokens(src string) ([]string, error) {
	var toks []string
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			i++
		case c == '"':
			j := i + 1
			for ; j < len(src) && src[j] != '"'; j++ {
				if src[j] == '\\' {
					j++
				} else if src[j] == '\n' {
					return nil, fmt.Errorf("newline in string at byte %d", j)
				}
			}
			if j >= len(src) {
				return nil, fmt.Errorf("unterminated string at byte %d", i)
			}
			toks = append(toks, src[i:j+1])
			i = j + 1
		case strings.HasPrefix(src[i:], "->"):
			toks = append(toks, "->")
			i += 2
		case strings.ContainsRune("{}[];,=", rune(c)):
			toks = append(toks, string(c))
			i++
		case c == '_' || c == '.' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
			j := i
			for j < len(src) && (src[j] == '_' || src[j] == '.' || '0' <= src[j] && src[j] <= '9' ||
				'a' <= src[j] && src[j] <= 'z' || 'A' <= src[j] && src[j] <= 'Z') {
				j++
			}
			toks = append(toks, src[i:j])
			i = j
		default:
			return nil, fmt.Errorf("unexpected %q at byte %d", c, i)
		}
	}
	return toks, nil
}

// unquoteDOT removes the quotes of a DOT string and its \" escapes;
// Graphviz escapes such as \n and \\ stay.
func unquoteDOT(s string) string {
	if len(s) < 2 || s[0] != '"' {
		return s
	}
	var b strings.Builder
	for i := 1; i < len(s)-1; i++ {
		if s[i] == '\\' && s[i+1] == '"' {
			i++
		} else if s[i] == '\\' {
			b.WriteByte(s[i])
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// labelText is the text Graphviz shows for a label: \\ is a backslash,
// \n a line break.
func labelText(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == 'n' {
				b.WriteByte('\n')
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
