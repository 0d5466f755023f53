// This file defines the regions of the instrumentation: the function
// bodies and loops measured inside, timed whole as well, so that the time
// their fragments leave out is measured too.
//
// Fragments are statements between control points and whole loops; what
// lies between them (a loop's control, the conditions of ifs and
// switches, the calls of functions that have no fragments, the calls
// themselves and their returns) no fragment measures. ParJava's rule is
// that every nanosecond of the run is measured or accounted for, so every
// function with fragments is a region, and so is every loop the
// interpreter iterates and the timing pass measures inside: each entry is
// timed from start to end (package probe, region.go), less what was timed
// apart inside it while it ran (regions it entered, commlib calls), and
// [fill] subtracts the fragments that lie directly in it. What remains is
// the region's own time, charged per call of the function or per
// iteration of the loop.

package estimator

import (
	"fmt"
	"go/ast"

	"github.com/predict-tools/predict/estimator/probe"
	"github.com/predict-tools/predict/model"
	"github.com/predict-tools/predict/profile"
	"github.com/predict-tools/predict/reduce"
	"golang.org/x/tools/go/ssa"
)

// loopNode returns the model's loop of loop statement s (not a loop a
// goto makes that starts with it), or nil.
func (in *instrumenter) loopNode(s ast.Stmt, fc *funcCtx) *model.Node {
	var node *model.Node
	for _, n := range fc.loops[in.pos(s.Pos())] {
		if n.Pos.End == in.pos(s.End()-1) {
			node = n
		}
	}
	return node
}

// enterFuncRegion makes f's body a region, the innermost of fc, and
// returns it (-1 for none): not the driver (which runs the ranks), nor a
// function timed from its call sites (whose body moves to a clone).
func (in *instrumenter) enterFuncRegion(f *model.Function, fn *ssa.Function, body *ast.BlockStmt, fc *funcCtx, prog *model.Program) int32 {
	if !in.plan.Regions || f.ID == prog.Driver || in.callFuncs[f.ID] != nil || f.Tree == nil {
		return -1
	}
	if in.coarse[f.Tree.ID] {
		// Cheaper than its probes: nothing is timed inside it, its time
		// is its callers'.
		fc.coarse++
		return -1
	}
	id := in.fragment(profile.FragRegion, fc, f.Tree.ID, nil, in.rangeOf(body.Lbrace, body.Rbrace+1))
	fc.region = id
	return id
}

// exitFuncRegion times the function's body when fragments lie in it.
func (in *instrumenter) exitFuncRegion(id int32, body *ast.BlockStmt, fc *funcCtx) {
	fc.region, fc.coarse = -1, 0
	if id < 0 || !fc.timed[id] {
		return
	}
	in.insert(fc.file, body.Lbrace+1, fmt.Sprintf(" defer __probe.Region(%d, __probe.RegionStart());", id))
}

// loopRegion is a loop region being instrumented and the region around it.
type loopRegion struct {
	id, parent int32
	coarse     bool // timed whole with nothing timed inside
}

// enterLoopRegion makes loop s a region, the innermost of fc, when the
// interpreter iterates it (its own time is then charged per iteration)
// and it is left only by its end or a plain break (the region's end runs).
func (in *instrumenter) enterLoopRegion(s ast.Stmt, body *ast.BlockStmt, fc *funcCtx) loopRegion {
	r := loopRegion{id: -1, parent: fc.region}
	if fc.region < 0 || fc.coarse > 0 || leavesEarly(body) {
		return r
	}
	node := in.loopNode(s, fc)
	if node == nil {
		return r
	}
	pl := in.loops.Loop(node)
	if pl == nil || pl.Verdict != reduce.Iterate || pl.IterStart == nil || pl.Sealed {
		return r
	}
	r.id = in.fragment(profile.FragRegion, fc, node.ID, nil, in.rangeOf(s.Pos(), s.End()))
	fc.region = r.id
	if r.coarse = in.coarse[node.ID]; r.coarse {
		fc.coarse++
	}
	return r
}

// exitLoopRegion times the loop whole, with its iterations. It does so
// even when no fragment lies in it: the interpreter iterates it, and what
// its iterations cost (calls of functions without fragments, say) is
// charged per iteration, not per call of the function around it, whose
// calls need not run it as often at another np.
func (in *instrumenter) exitLoopRegion(r loopRegion, s ast.Stmt, body *ast.BlockStmt, fc *funcCtx) {
	fc.region = r.parent
	if r.coarse {
		fc.coarse--
	}
	if r.id < 0 {
		return
	}
	fc.timed[r.parent] = true
	tok, iters := fmt.Sprintf("__rg%d", r.id), fmt.Sprintf("__gi%d", r.id)
	fc.tokens = append(fc.tokens, tok)
	fc.vars = append(fc.vars, iters)
	in.insert(fc.file, s.Pos(), fmt.Sprintf("%s = 0; %s = __probe.RegionStart(); ", iters, tok))
	in.insert(fc.file, body.Lbrace+1, fmt.Sprintf(" %s++;", iters))
	in.insert(fc.file, s.End(), fmt.Sprintf("; __probe.RegionLoop(%d, %s, %s)", r.id, tok, iters))
}

// loopRecord is the probe that ends an entry of a loop timed at its
// function's call sites: with regions, one that accounts for it in the
// callers' regions as it runs.
func loopRecord(regions bool) string {
	if regions {
		return "LoopApart"
	}
	return "Loop"
}

// coarseNS is the time per execution (a call, an iteration) under which
// a region is timed whole: 40 probe pairs, so that the probes of a region
// measured inside cost less than a few percent of it.
func coarseNS(ov probe.RawOverhead) float64 { return 40 * max(ov.PairNS, 1) }

// pilotCuts are what a pilot run found cheaper than its probes, by node
// ID: the regions timed whole with nothing timed inside (coarseRegions),
// and the segments not probed (smallSegments).
type pilotCuts struct {
	regions, segments map[string]bool
}

// cutsOf returns what the pilot run raw of plan found cheaper than its
// probes.
func cutsOf(plan *Plan, raw *probe.Raw) pilotCuts {
	return pilotCuts{regions: coarseRegions(plan, raw), segments: smallSegments(plan, raw)}
}

// smallSegments returns the segments of a pilot run, inside regions,
// that took less time per execution than a probe pair costs (their own
// time, less the part of the pair inside them), by node ID: probed
// alone, a segment that small reads mostly its probes' noise and slows
// the program around it more than it measures (a 12 ns `h := len(a)/2`
// in every call of a recursive sort, under a 1.4 µs pair of thread-clock
// reads). Left unprobed, its time is its region's: the region's entries
// hold it, charged per call or per iteration as the region is (ParJava's
// rule: fragments as large as possible, every nanosecond accounted for).
func smallSegments(plan *Plan, raw *probe.Raw) map[string]bool {
	pair := max(raw.Overhead.PairNS, 1)
	small := map[string]bool{}
	for _, rf := range raw.Fragments {
		if int(rf.ID) >= len(plan.Fragments) || rf.Kind != "seg" || rf.Count == 0 {
			continue
		}
		// Outside every region, its time would be in none.
		if fr := plan.Fragments[rf.ID]; fr.Parent >= 0 && float64(rf.SumNS)/float64(rf.Count)-raw.Overhead.SegNS < pair {
			small[fr.Node] = true
		}
	}
	return small
}

// coarseRegions returns the regions of a pilot run that took less than
// coarseNS per execution, probes included, by node ID: measured inside,
// their fragments would be as small as a probe and read slow (the probes
// keep the compiler from optimizing them) or zero.
func coarseRegions(plan *Plan, raw *probe.Raw) map[string]bool {
	limit := coarseNS(raw.Overhead)
	// A counted loop measured in a region keeps its region measured
	// inside when an entry costs 4 probe pairs or more: its time then
	// follows its trip count, which the model computes at every np and
	// call, where a coarse region would charge its mean per call (a
	// kernel called on chunks and once on the whole domain).
	counted := map[int32]bool{}
	for _, rf := range raw.Fragments {
		if int(rf.ID) >= len(plan.Fragments) || rf.Count == 0 {
			continue
		}
		if fr := plan.Fragments[rf.ID]; fr.Kind == profile.FragLoop && fr.Static && fr.Parent >= 0 &&
			float64(rf.SumNS)/float64(rf.Count) >= 4*max(raw.Overhead.PairNS, 1) {
			counted[fr.Parent] = true
		}
	}
	coarse := map[string]bool{}
	for _, rf := range raw.Fragments {
		if int(rf.ID) >= len(plan.Fragments) || rf.Kind != "region" || rf.Count == 0 || counted[rf.ID] {
			continue
		}
		fr := plan.Fragments[rf.ID]
		execs := rf.Count
		if isLoopRegion(fr) {
			execs = max(rf.Iterations, 1)
		}
		if float64(rf.InclNS)/float64(execs) < limit {
			coarse[fr.Node] = true
		}
	}
	return coarse
}
