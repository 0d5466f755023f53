// This file defines where the interpreter is in the program, for modeling
// limits: a panic while a run is planned, compiled or executed becomes a
// modelgen.LimitError naming the program's file:line being worked on.

package interp

import (
	"go/token"

	"github.com/predict-tools/predict/model"
	"golang.org/x/tools/go/ssa"
)

// position is the file:line of the program the world was working on:
// the instruction being compiled or planned, else the instruction the
// running process (or thread) was executing, else its function.
func (w *World) position() string {
	l := w.prog.Loaded
	if c := w.comp; c != nil && c.at.IsValid() {
		return l.PosString(c.at)
	}
	p := w.running
	if p == nil || p.cur == nil || len(p.cur.stack) == 0 {
		return ""
	}
	fr := p.top()
	if fr.blk != nil && fr.pc > 0 && fr.pc <= len(fr.blk.instrs) {
		if in := fr.blk.instrs[fr.pc-1]; in != nil && in.Pos().IsValid() {
			return l.PosString(in.Pos())
		}
	}
	return l.PosString(fr.f.ssa.Pos())
}

// working records what the compiler works on; done clears it.
func (c *compiler) working(p token.Pos) { c.at = p }
func (c *compiler) done()               { c.at = token.NoPos }

// nodePos is the position of the first instruction that has one in the
// first of a model node's blocks, or the function's.
func nodePos(fn *ssa.Function, n *model.Node) token.Pos {
	first := -1
	for b := range model.Blocks(n) {
		if b < len(fn.Blocks) && (first < 0 || b < first) {
			first = b
		}
	}
	if first >= 0 {
		for _, in := range fn.Blocks[first].Instrs {
			if in.Pos().IsValid() {
				return in.Pos()
			}
		}
	}
	return fn.Pos()
}
