// This file defines the last pass over a control tree: source ranges,
// stable IDs, jump targets and loop forms.

package modelgen

import (
	"fmt"
	"go/ast"
	"go/types"
	"strings"

	"github.com/predict-tools/predict/model"
	"golang.org/x/tools/go/ssa"
)

// finish fills positions, IDs, jump targets and loop forms of tree. IDs
// start with prefix (the function's ID, or that and "/recover"). A node
// without a position of its own is named after the last position before
// it in the walk, so that its ID does not depend on code elsewhere in the
// function.
func (fb *funcBuilder) finish(prefix string, tree *model.Node) {
	fb.ranges(tree)
	start := fb.funcRange().Start
	used := map[string]int{}
	anchor := "-"
	model.Walk(tree, func(n *model.Node) bool {
		pos := anchor
		if p := n.Pos.Start; p.IsValid() {
			if p.File == start.File && start.IsValid() {
				pos = fmt.Sprintf("+%d:%d", p.Line-start.Line, p.Col)
			} else {
				pos = fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
			}
			anchor = pos
		}
		kind := string(n.Kind)
		if n.Leaf != nil {
			kind = string(n.Leaf.Kind)
		}
		id := prefix + "/" + kind + "@" + pos
		if k := used[id]; k > 0 {
			used[id] = k + 1
			id = fmt.Sprintf("%s#%d", id, k)
		} else {
			used[id] = 1
		}
		n.ID = id
		return true
	})
	model.Walk(tree, func(n *model.Node) bool {
		if l := fb.jumps[n]; l != nil {
			n.Target = l.ID
		}
		return true
	})
}

// ranges computes every node's source range bottom-up: a loop's is its
// statement's, other inner nodes span their parts.
func (fb *funcBuilder) ranges(n *model.Node) model.Range {
	if n == nil {
		return model.Range{}
	}
	if n.Kind == model.KindLeaf {
		return n.Pos
	}
	var r model.Range
	if n.Kind == model.KindTest {
		r.Union(n.Pos) // the condition's own position
	}
	r.Union(fb.ranges(n.Cond))
	if l := n.Loop; l != nil {
		r.Union(fb.ranges(l.Header))
		r.Union(fb.ranges(l.Body))
		r.Union(fb.ranges(l.Post))
	}
	for _, c := range n.Children {
		r.Union(fb.ranges(c))
	}
	if s, ok := fb.loopStmt[n]; ok && s.stmt != nil {
		r = model.Range{}
		r.Extend(fb.b.pos(s.stmt.Pos()))
		r.Extend(fb.b.pos(s.stmt.End() - 1))
	}
	n.Pos = r
	return r
}

// loopSyntax is the source statement of a loop.
type loopSyntax struct {
	stmt ast.Stmt // *ast.ForStmt or *ast.RangeStmt, nil for loops made by goto
}

// loopForm classifies loop l from its source statement (the innermost for
// or range statement that contains all the loop's instructions) and its
// shape.
func (fb *funcBuilder) loopForm(l *loop, lc *loopCtx) (model.LoopForm, string) {
	stmt := fb.loopStatement(l)
	fb.loopStmt[lc.node] = loopSyntax{stmt: stmt}
	bottom := lc.node.Loop.TestAtBottom
	switch s := stmt.(type) {
	case *ast.RangeStmt:
		return model.LoopRange, fb.rangeKind(s)
	case *ast.ForStmt:
		switch {
		case s.Cond == nil && bottom:
			return model.LoopDoWhile, ""
		case s.Cond == nil:
			return model.LoopInfinite, ""
		case s.Post != nil:
			return model.LoopFor, ""
		}
		return model.LoopWhile, ""
	}
	switch {
	case bottom:
		return model.LoopDoWhile, ""
	case lc.node.Cond != nil:
		return model.LoopWhile, ""
	}
	return model.LoopInfinite, ""
}

// loopStatement finds the statement of loop l: the innermost for or
// range statement of the function whose extent contains every instruction
// position of the loop, other than the statements of the loops nested in
// it. (A range over an integer whose body is only another loop has no
// positioned instruction of its own: all of them are in the inner loop's
// statement, which is that loop's.)
func (fb *funcBuilder) loopStatement(l *loop) ast.Stmt {
	if s, ok := fb.stmtOf[l]; ok {
		return s
	}
	fb.stmtOf[l] = nil // a loop is not nested in itself
	syn := fb.fn.Syntax()
	if syn == nil {
		return nil
	}
	var stmts []ast.Stmt
	ast.Inspect(syn, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return n == syn
		case *ast.ForStmt, *ast.RangeStmt:
			stmts = append(stmts, n.(ast.Stmt))
		}
		return true
	})
	nested := map[ast.Stmt]bool{}
	for _, m := range fb.g.loops {
		if m != l && l.body[m.header] && fromStatement(m) {
			if s := fb.loopStatement(m); s != nil {
				nested[s] = true
			}
		}
	}
	var best ast.Stmt
	for _, s := range stmts {
		if nested[s] {
			continue
		}
		ok, any := true, false
		for v := range l.body {
			for _, blk := range v.blocks {
				for _, instr := range blk.Instrs {
					p := instr.Pos()
					if _, phi := instr.(*ssa.Phi); phi || !p.IsValid() {
						continue
					}
					any = true
					if p < s.Pos() || p >= s.End() {
						ok = false
					}
				}
			}
		}
		if ok && any && (best == nil || s.End()-s.Pos() < best.End()-best.Pos()) {
			best = s
		}
	}
	fb.stmtOf[l] = best
	return best
}

// fromStatement reports whether go/ssa made loop l for a for or range
// statement (its header is one of the blocks it names "for.loop",
// "rangeint.body", ...), not for a goto (a block named for its label,
// which has no dot).
func fromStatement(l *loop) bool {
	c := l.header.comment()
	return strings.HasPrefix(c, "for.") || strings.HasPrefix(c, "range") && strings.Contains(c, ".")
}

// rangeKind names what a range statement ranges over.
func (fb *funcBuilder) rangeKind(s *ast.RangeStmt) string {
	pkg := fb.fn.Pkg
	if o := fb.fn.Origin(); o != nil {
		pkg = o.Pkg
	}
	if pkg == nil {
		return ""
	}
	info := fb.b.l.info[pkg.Pkg]
	if info == nil {
		return ""
	}
	t := info.TypeOf(s.X)
	if t == nil {
		return ""
	}
	switch u := t.Underlying().(type) {
	case *types.Slice:
		return "slice"
	case *types.Array:
		return "array"
	case *types.Pointer:
		return "array"
	case *types.Map:
		return "map"
	case *types.Chan:
		return "chan"
	case *types.Signature:
		return "func"
	case *types.Basic:
		if u.Info()&types.IsString != 0 {
			return "string"
		}
		return "int"
	case *types.TypeParam:
		return "generic"
	}
	return ""
}
