// This file defines what stops a modeled run that no longer follows the
// real one: a loop that iterates while the clock stands still, and code
// that runs far more often than the timing pass saw it run with the same
// arguments.

package interp

import (
	"fmt"
	"sort"
	"strings"

	"github.com/predict-tools/predict/model"
	"github.com/predict-tools/predict/profile"
	"golang.org/x/tools/go/ssa"
)

// maxSpins bounds the iterations of loops while the clock stands still.
const maxSpins = 1 << 26

// A modeled run with the profile's arguments executes a fragment about as
// often as the timing pass counted (the same count at the same np; at a
// larger np, up to np²/profNP² when every rank loops over every other).
// Far more means the model left the real run's path: a loop exit the
// model computes from values it does not have (the reduction dropped
// them: they read zero) never holds, and the run would go on for
// minutes to a wrong answer. runawaySlack and runawayFloor keep far
// from the legitimate differences (rank-dependent work, replayed
// decisions).
const (
	runawaySlack = 16
	runawayFloor = 1 << 12
)

// A fragment the profile counts no execution of (a synthetic profile, or
// one whose counts were not kept) has no limit.

// runawayLimit is the most executions of a fragment the timing pass ran
// recorded times at profNP that a run at np may charge.
func runawayLimit(recorded int64, profNP, np int) int64 {
	s := int64(max(1, (np+profNP-1)/max(profNP, 1)))
	return runawaySlack*recorded*s*s + runawayFloor
}

// iterations is the iterations the timing pass counted of a loop it
// timed whole, over all its entries.
func iterations(ls *profile.LoopStats) int64 {
	var n int64
	for _, tc := range ls.Trips {
		n += tc.Trips * tc.Count
	}
	return n
}

// runaway stops the run at a fragment charged more than its limit.
func (p *proc) runaway(f *fragment, fr *frame) ctl {
	msg := fmt.Sprintf("%s ran %d times in the model, more than %d: the timing pass ran it %d times with the same arguments at np=%d, so the modeled run no longer follows the real one and stops here",
		f.pos, p.w.hot[f.index].freq, f.limit, f.recorded, p.w.profNP)
	if fn := fr.f.ssa; fn != nil && fr.blk.index < len(fn.Blocks) {
		if _, h := p.w.prog.Report.Plan.InnermostLoop(fn.Blocks[fr.blk.index]); h != nil {
			opaque, computed := p.loopExits(fn, h)
			msg += fmt.Sprintf(": the loop at %s goes on where the real run left it", p.w.prog.loopAt(h))
			if len(opaque) > 0 {
				msg += "; its exit test at " + strings.Join(opaque, ", ") + " is replayed from the profile"
			}
			if len(computed) > 0 {
				msg += "; the model computes its exit test at " + strings.Join(computed, ", ") + ", perhaps from values it does not compute (they read zero: see predict model --reduced)"
			}
		}
	}
	return p.fail(f.pos, msg)
}

// loopExits returns the exit tests of the natural loop of header in fn:
// those replayed from the profile (with where their outcomes come from)
// and those the model computes, as file:line, sorted.
func (p *proc) loopExits(fn *ssa.Function, header *ssa.BasicBlock) (opaque, computed []string) {
	pos := p.w.prog.Loaded.PosString
	loop := p.w.prog.Report.Plan.CFGLoop(header)
	tests := p.w.testPositions(fn)
	for i := range loop {
		b := fn.Blocks[i]
		iff, ok := b.Instrs[len(b.Instrs)-1].(*ssa.If)
		if !ok || loop[b.Succs[0].Index] == loop[b.Succs[1].Index] {
			continue
		}
		at := tests[i]
		if at == "" {
			at = blockPos(b, pos)
		}
		if ob := p.w.comp.opaqueIf[iff]; ob.d != nil {
			opaque = append(opaque, fmt.Sprintf("%s (%s)", at, ob.d.source(p.w)))
		} else {
			computed = append(computed, at)
		}
	}
	sort.Strings(opaque)
	sort.Strings(computed)
	return opaque, computed
}

// testPositions returns the positions of the tests of fn's model, by the
// block whose branch they are.
func (w *World) testPositions(fn *ssa.Function) map[int]string {
	out := map[int]string{}
	for mf, f := range w.prog.SSA {
		if f != fn {
			continue
		}
		for _, root := range []*model.Node{mf.Tree, mf.Recover} {
			model.Walk(root, func(n *model.Node) bool {
				if n.Kind == model.KindTest && n.Block != nil && n.Pos.Start.IsValid() {
					out[*n.Block] = n.Pos.Start.String()
				}
				return true
			})
		}
	}
	return out
}

// loopAt is the position of the loop statement whose header is h (the
// model's innermost loop around h's first instruction), or of that
// instruction when the model has none.
func (prog *Program) loopAt(h *ssa.BasicBlock) string {
	// The loop whose test the header tests, by the model's tree.
	for mf, f := range prog.SSA {
		if f != h.Parent() {
			continue
		}
		var found *model.Node
		model.Walk(mf.Tree, func(n *model.Node) bool {
			if n.Kind == model.KindLoop && n.Pos.Start.IsValid() && found == nil {
				model.Walk(n.Cond, func(t *model.Node) bool {
					if t.Kind == model.KindTest && t.Block != nil && *t.Block == h.Index {
						found = n
					}
					return true
				})
			}
			return found == nil
		})
		if found != nil {
			return found.Pos.String()
		}
	}
	var at model.Pos
	for _, in := range h.Instrs {
		if _, phi := in.(*ssa.Phi); !phi && in.Pos().IsValid() {
			at = prog.Loaded.Pos(in.Pos())
			break
		}
	}
	if !at.IsValid() {
		return prog.Loaded.PosString(h.Parent().Pos())
	}
	var best *model.Node
	for mf, f := range prog.SSA {
		if f != h.Parent() {
			continue
		}
		model.Walk(mf.Tree, func(n *model.Node) bool {
			if n.Kind == model.KindLoop && n.Pos.Start.File == at.File && !at.Before(n.Pos.Start) && !n.Pos.End.Before(at) &&
				(best == nil || best.Pos.Start.Before(n.Pos.Start)) {
				best = n
			}
			return true
		})
	}
	if best == nil {
		return at.String()
	}
	return best.Pos.String()
}

// endlessLoop describes a loop that iterated maxSpins times while the
// clock stood still (header is its header, a block of fr's function):
// what decides its end, and why the model never saw it end.
func (p *proc) endlessLoop(fr *frame, header *block) string {
	fn := fr.f.ssa
	if fn == nil || header.index >= len(fn.Blocks) {
		return fmt.Sprintf("a loop of %s iterated %d times without modeled time passing: it would run forever in the model", fr.f.id, maxSpins)
	}
	h := fn.Blocks[header.index]
	opaque, computed := p.loopExits(fn, h)
	msg := fmt.Sprintf("the loop at %s (in %s) iterated %d times without modeled time passing: it would run forever in the model", p.w.prog.loopAt(h), fr.f.id, maxSpins)
	switch {
	case len(opaque) > 0:
		return msg + ": the model cannot decide when it ends: its exit test at " + strings.Join(opaque, ", ") + " depends on data the model does not compute"
	case len(computed) > 0:
		return msg + ": its exit test at " + strings.Join(computed, ", ") + ", which the model computes, never held (a loop waiting for time, for Wtime() < t, needs its compute time from a profile)"
	}
	return msg + ": it has no exit test"
}
