// This file defines the planning of a compiled program: the fragments of
// the profile and where they are charged, the loops the loop plan runs
// whole, and the opaque decisions replayed from the profile.

package interp

import (
	"fmt"
	"math"
	"sort"

	"github.com/predict-tools/predict/model"
	"github.com/predict-tools/predict/profile"
	"github.com/predict-tools/predict/reduce"
	"golang.org/x/tools/go/ssa"
)

// plan prepares the compiler: kept instructions, fragments and their
// charges, collapsed loops, opaque decisions.
func (cp *Compiled) plan() error {
	prog := cp.prog
	c := &compiler{cp: cp, l: prog.Loaded, rep: prog.Report, funcs: map[*ssa.Function]*function{},
		models: map[*ssa.Function]*model.Function{}, keep: prog.Report.Plan.Kept(),
		charges: map[ssa.Instruction][]*fragment{}, loopHeads: map[*ssa.BasicBlock]*loopPlan{},
		globals: map[*ssa.Global]*box{}}
	cp.comp = c
	leaves := map[string]*model.Node{}
	loopNodes := map[string]*model.Node{}
	fnOfNode := map[string]*ssa.Function{}
	fnOfRoot := map[string]*ssa.Function{} // by the ID of a function's root node
	tests := map[*ssa.BasicBlock]*model.Node{}
	condRoot := map[*model.Node]*model.Node{}
	negated := map[*model.Node]bool{}           // a test under an odd number of nots of its root
	loopOfTest := map[*model.Node]*model.Node{} // a loop's test → the loop
	for _, mf := range prog.Model.Functions {
		fn := prog.SSA[mf]
		if fn == nil {
			continue
		}
		c.models[fn] = mf
		if mf.Tree != nil {
			fnOfRoot[mf.Tree.ID] = fn
		}
		for _, tree := range []*model.Node{mf.Tree, mf.Recover} {
			model.Walk(tree, func(n *model.Node) bool {
				if n.Cond != nil {
					markCondRoot(n.Cond, n.Cond, false, condRoot, negated)
				}
				switch {
				case n.Leaf != nil:
					leaves[n.ID] = n
					fnOfNode[n.ID] = fn
				case n.Kind == model.KindLoop:
					loopNodes[n.ID] = n
					fnOfNode[n.ID] = fn
					model.Walk(n.Cond, func(t *model.Node) bool {
						if t.Kind == model.KindTest {
							loopOfTest[t] = n
						}
						return true
					})
				case n.Kind == model.KindTest && n.Block != nil && n.Opaque != "":
					tests[fn.Blocks[*n.Block]] = n
					fnOfNode[n.ID] = fn
				}
				return true
			})
		}
	}
	pf := cp.prof
	planned := map[string]bool{}
	var loopStats map[string]*profile.LoopStats
	var decStats map[string]*profile.DecisionStats
	if pf != nil {
		loopStats = map[string]*profile.LoopStats{}
		for i := range pf.Loops {
			loopStats[pf.Loops[i].Node] = &pf.Loops[i]
		}
		decStats = cp.recs[0].Decisions // the profile's own record
		for _, fs := range pf.Fragments {
			f := cp.track(&fragment{index: len(cp.frags), node: fs.Node, kind: "compute", pos: fs.Pos, mean: fs.MeanPS, seen: fs.Executions, errRel: fs.ErrorRel})
			switch fs.Kind {
			case profile.FragSegment:
				n := leaves[fs.Node]
				if n == nil {
					continue
				}
				fn := fnOfNode[fs.Node]
				instr := firstNonPhi(fn.Blocks[n.Leaf.Block], n.Leaf.First)
				if instr == nil {
					continue
				}
				cp.frags = append(cp.frags, f)
				c.charges[instr] = append(c.charges[instr], f)
				var covers []*model.Node
				for _, id := range fs.Covers {
					if l := leaves[id]; l != nil && fnOfNode[id] == fn {
						covers = append(covers, l)
					}
				}
				cp.planAllocUnits(c, fn, n, covers, f)
			case profile.FragRegion:
				if err := cp.planRegion(c, f, fnOfRoot[fs.Node], loopNodes[fs.Node]); err != nil {
					return err
				}
			case profile.FragLoop:
				n := loopNodes[fs.Node]
				ls := loopStats[fs.Node]
				if n == nil || ls == nil {
					continue
				}
				cp.frags = append(cp.frags, f)
				if fs.Executions > 0 {
					// Iterated, the loop is charged per iteration.
					f.seen = max(fs.Executions, iterations(ls))
				}
				pl := prog.Report.Plan.Loop(n)
				ut := unitTime{total: 1, units: 1}
				if !cp.counting {
					ut = cp.unitTime[n.ID]
				}
				switch {
				case pl.Units != nil && !ls.Innermost && ut.units > 0:
					cp.planUnits(c, pl, f, ut)
				case pl.Verdict == reduce.Iterate && !ls.Innermost && ut.units > 0 && cp.planIteratedUnits(c, pl, f, ut):
				default:
					cp.planLoop(c, pl, f, ls)
				}
				planned[fs.Node] = true
			}
		}
	}
	// Loops that run until a moment of modeled time ("for Wtime() < end")
	// take that time whatever an iteration costs: they are collapsed
	// even when the profile did not time them.
	ids := make([]string, 0, len(loopNodes))
	for id := range loopNodes {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	// Sealed loops first: the reduction kept nothing inside them, so they
	// are always collapsed, and the loops inside them are never reached.
	plan := prog.Report.Plan
	for _, id := range ids {
		n := loopNodes[id]
		pl := plan.Loop(n)
		if !pl.Sealed || plan.Sealed(pl.Fn) != "" {
			continue // not sealed, or in a sealed recursion: never reached
		}
		model.Walk(n.Loop.Body, func(x *model.Node) bool {
			if x.Kind == model.KindLoop {
				planned[x.ID] = true
			}
			return true
		})
		if planned[id] {
			continue
		}
		planned[id] = true
		if !c.timeless(pl.Fn, pl.Blocks) {
			// The timing pass times a sealed loop whole (or a loop
			// around it): time charged inside it means the profile was
			// planned on another reduction.
			return fmt.Errorf("%s: the profile times fragments inside this loop, which the reduction seals (never runs its body): the profile does not match this version of predict; measure it again", n.Pos)
		}
		f := cp.track(&fragment{index: len(cp.frags), node: id, kind: "compute", pos: n.Pos.String()})
		cp.frags = append(cp.frags, f)
		cp.planLoop(c, pl, f, &profile.LoopStats{Node: id})
	}
	for _, id := range ids {
		if planned[id] {
			continue
		}
		pl := plan.Loop(loopNodes[id])
		if plan.Sealed(pl.Fn) != "" {
			continue // in a sealed recursion: never reached
		}
		if pl.Clock != nil || (pl.Ind != nil && c.timeless(pl.Fn, pl.Blocks)) {
			// A loop until a moment of modeled time; or a counted loop in
			// which nothing is timed (no fragment, no call): its
			// iterations cost nothing, so it is collapsed rather than
			// iterated, whatever its trip count.
			f := cp.track(&fragment{index: len(cp.frags), node: id, kind: "compute", pos: pl.Node.Pos.String()})
			cp.frags = append(cp.frags, f)
			cp.planLoop(c, pl, f, &profile.LoopStats{Node: id})
		}
	}
	for _, lp := range cp.iterated {
		if plan.Loop(loopNodes[lp.node]).Sealed {
			return fmt.Errorf("internal error: %s: the reduction sealed this loop (its body is not kept) but the interpreter cannot collapse it: %s", lp.pos, lp.why)
		}
	}
	// Opaque branches.
	for b, n := range tests {
		root := condRoot[n]
		if root == nil {
			root = n
		}
		at := n.Pos.Start.String()
		switch {
		case n.Pos.Start.IsValid():
		case root.Pos.Start.IsValid():
			at = root.Pos.Start.String() // a loop-carried flag's test: its condition's place
		case loopOfTest[n] != nil && loopOfTest[n].Pos.Start.IsValid():
			at = loopOfTest[n].Pos.Start.String() // a range loop's test: its statement's place
		default:
			at = blockPos(b, prog.Loaded.PosString) // a range loop's test
		}
		d := &decision{index: len(cp.decisions), node: root.ID, pos: at, def: (n.Check == "true") != negated[n], check: n.Check != ""}
		leave, isExit := exitOutcome(prog.Report.Plan, b, negated[n])
		var fromTrips *model.Node // the loop whose recorded trips stand for this exit test's outcomes
		if l := loopOfTest[n]; l != nil && isExit && !d.check && decStats[root.ID] == nil {
			for _, rec := range cp.recs {
				if _, ok := rec.Loops[l.ID]; ok {
					fromTrips = l
				}
			}
		}
		if fromTrips != nil {
			// The timing pass timed the loop whole and recorded its
			// trips per entry; the model runs it iteration by
			// iteration (a function it calls has replayed decisions):
			// its exit test stays that many times, then leaves.
			d.stats, d.fromTrips = &profile.DecisionStats{Node: root.ID, Pos: at}, true
		} else if ds := decStats[root.ID]; ds == nil && !d.check {
			// Not in the profile (a function the timing pass runs
			// without probes, inside a loop it times whole): a loop's
			// exit test leaves the loop.
			d.exitDefault(prog.Report.Plan, b, negated[n], cp.prog.loopAt)
		} else if ds != nil {
			d.stats = ds
		}
		for _, rec := range cp.recs {
			var m map[int]*profile.RankOutcomes
			if ds := rec.Decisions[root.ID]; ds != nil {
				m = rankMap(ds.Ranks, func(ro *profile.RankOutcomes) int { return ro.Rank })
			} else if fromTrips != nil {
				if ranks, ok := rec.Loops[fromTrips.ID]; ok {
					m = map[int]*profile.RankOutcomes{}
					for _, rt := range ranks {
						m[rt.Rank] = outcomesOfTrips(rt, !leave)
					}
				}
			}
			d.byRec = append(d.byRec, m)
		}
		if isExit {
			d.exit, d.stay = true, !leave
		}
		cp.decisions = append(cp.decisions, d)
		if c.opaqueIf == nil {
			c.opaqueIf = map[*ssa.If]opaqueBranch{}
		}
		// The profile records the outcome of the root's condition; the
		// branch tests its own: "if !(r < tol)" branches on r < tol.
		c.opaqueIf[b.Instrs[len(b.Instrs)-1].(*ssa.If)] = opaqueBranch{d, negated[n]}
	}
	sort.Slice(cp.decisions, func(i, j int) bool {
		a, b := cp.decisions[i], cp.decisions[j]
		if a.pos != b.pos {
			return a.pos < b.pos
		}
		return a.node < b.node // tests without a position: their order must not follow the map's
	})
	for i, d := range cp.decisions {
		d.index = i
	}
	c.done()
	return nil
}

// markCondRoot records root as the condition root of every test under
// x, and which tests sit under an odd number of nots of the root (only
// through nots: the outcome of an and or an or does not give its tests').
func markCondRoot(x, root *model.Node, neg bool, condRoot map[*model.Node]*model.Node, negated map[*model.Node]bool) {
	switch x.Kind {
	case model.KindTest:
		condRoot[x] = root
		negated[x] = neg
		return
	case model.KindNot:
		neg = !neg
	default:
		neg = false
	}
	for _, ch := range x.Children {
		markCondRoot(ch, root, neg, condRoot, negated)
	}
}

func firstNonPhi(b *ssa.BasicBlock, from int) ssa.Instruction {
	for i := from; i < len(b.Instrs); i++ {
		if _, ok := b.Instrs[i].(*ssa.Phi); !ok {
			return b.Instrs[i]
		}
	}
	return nil
}

// planLoop plans loop pl, timed as a whole, as its plan says: collapsed
// (its trip count computed, replayed or until a moment of modeled time, its
// time charged at once) or iterated with its time charged per iteration.
// What the profile adds: a loop whose trips are replayed needs their
// record, and a nest timed per innermost iteration its inner count on
// entry.
func (cp *Compiled) planLoop(c *compiler, pl *reduce.Loop, f *fragment, ls *profile.LoopStats) {
	fn, n := pl.Fn, pl.Node
	c.working(nodePos(fn, n))
	lp := &loopPlan{node: n.ID, pos: n.Pos.String(), frag: f, perIter: ls.PerIterPS, blocks: pl.Blocks, why: pl.Why, runHeader: pl.RunHeader}
	ind := pl.Ind
	collapsible := pl.Verdict != reduce.Iterate
	switch {
	case collapsible && pl.Source == reduce.TripsReplayed && len(ls.Ranks) == 0:
		collapsible, lp.why = false, "no trip count: neither a counted loop nor one replayed from the profile"
	case collapsible && ls.Innermost && ind != nil && pl.Inner == nil:
		collapsible, lp.why = false, "the inner loop's count is not known on entry"
	}
	if !collapsible {
		cp.iterated = append(cp.iterated, lp)
		// Iterated: the time of an iteration at each entry of the body
		// (of the inner loop's body when it is per innermost iteration).
		perIter := cp.track(&fragment{index: f.index, node: f.node, kind: f.kind, pos: f.pos, mean: ls.PerIterPS, seen: f.seen, errRel: f.errRel})
		at := pl.IterStart
		if ls.Innermost {
			at = nil
			if in := model.InnerLoop(n); in != nil {
				at = cp.prog.Report.Plan.Loop(in).IterStart
			}
		}
		if at != nil {
			c.charges[at] = append(c.charges[at], perIter)
		} else if ls.PerIterPS > 0 && cp.planErr == nil {
			// Nowhere to charge its iterations: the profile was planned
			// on another loop plan; never drop its time silently.
			cp.planErr = fmt.Errorf("%s: the profile times this loop whole, %d ps an iteration, but the loop plan has no place to charge its iterations (%s): the profile does not match this version of predict; measure it again", pl.Node.Pos, ls.PerIterPS, lp.why)
		}
		return
	}
	if len(ls.FirstItersPS) > 0 && !ls.Innermost {
		// Unbalanced by iteration index: an entry is the sum of its
		// iterations' estimates (entryTime).
		lp.firstIters, lp.laterIter = make([]int64, len(ls.FirstItersPS)), ls.LaterIterPS
		var sum int64
		for i, t := range ls.FirstItersPS {
			sum = addTime(sum, t)
			lp.firstIters[i] = sum
		}
	}
	cf := c.fn(fn)
	switch {
	case ind != nil:
		lp.ind = ind
		lp.init, lp.bound, lp.phiSlot = c.operand(cf, ind.Init), c.operand(cf, ind.Bound), c.slot(cf, ind.Phi)
		if ind.StepValue != nil {
			lp.step = c.operand(cf, ind.StepValue)
		}
		if pl.BoundOnEntry {
			lp.boundPrep = c.entryOps(cf, lp.blocks, ind.Bound)
		}
		if ls.Innermost {
			lp.inner = pl.Inner
			lp.innerInit, lp.innerBound = c.operand(cf, lp.inner.Init), c.operand(cf, lp.inner.Bound)
			if in := model.InnerLoop(n); in != nil {
				lp.innerGuarded = len(cp.prog.Report.Plan.Loop(in).Guards) > 0
			}
			lp.innerPrep = c.entryOps(cf, lp.blocks, lp.inner.Init, lp.inner.Bound)
		}
	case pl.Clock != nil:
		lp.clockOp, lp.bound = pl.Clock.Op, c.operand(cf, pl.Clock.Bound)
	default:
		lp.ranked = ls
		var sum, cnt int64
		for _, t := range ls.Trips {
			sum += t.Trips * t.Count
			cnt += t.Count
		}
		var mean int64
		if cnt > 0 {
			mean = sum / cnt
		}
		for k, rec := range cp.recs {
			var m map[int]*profile.RankTrips
			if ranks, ok := rec.Loops[n.ID]; ok {
				m = rankMap(ranks, func(rt *profile.RankTrips) int { return rt.Rank })
			}
			lp.byRec = append(lp.byRec, m)
			if k > 0 {
				mean = int64(math.Round(meanTripsOf(m)))
			}
			lp.meanRec = append(lp.meanRec, mean)
		}
	}
	lp.exit = cf.blockOf(pl.Exit)
	lp.exitFrom = cf.blockOf(pl.ExitFrom)
	c.loopHeads[pl.Header] = lp
	cp.loops = append(cp.loops, lp)
}

// entryOps returns the operations computing the instructions inside the
// loop (blocks) that vs depend on, operands first. The reduction found
// them invariant in the loop, so computing them on entry gives the values
// every iteration sees.
func (c *compiler) entryOps(cf *function, blocks map[int]bool, vs ...ssa.Value) []op {
	var ops []op
	seen := map[ssa.Value]bool{}
	var visit func(v ssa.Value)
	visit = func(v ssa.Value) {
		instr, ok := v.(ssa.Instruction)
		if !ok || seen[v] || instr.Block() == nil || !blocks[instr.Block().Index] {
			return
		}
		seen[v] = true
		var rands []*ssa.Value
		for _, r := range instr.Operands(rands) {
			if *r != nil {
				visit(*r)
			}
		}
		ops = append(ops, c.instr(cf, nil, instr))
	}
	for _, v := range vs {
		visit(v)
	}
	return ops
}

// planRegion charges the time of a region (profile.FragRegion) that its
// fragments leave: per call at the entry of a function (fn), per iteration
// at the start of an iterated loop's iteration (loop).
func (cp *Compiled) planRegion(c *compiler, f *fragment, fn *ssa.Function, loop *model.Node) error {
	var at ssa.Instruction
	switch {
	case fn != nil && len(fn.Blocks) > 0:
		at = firstNonPhi(fn.Blocks[0], 0)
	case loop != nil:
		if pl := cp.prog.Report.Plan.Loop(loop); pl != nil && pl.Verdict == reduce.Iterate {
			at = pl.IterStart
		}
	}
	if at == nil {
		// Never drop measured time silently.
		return fmt.Errorf("%s: the profile has the time of this region (%d ps per execution) but the model has no place to charge it: the profile does not match this version of predict; measure it again", f.pos, f.mean)
	}
	cp.frags = append(cp.frags, f)
	c.charges[at] = append(c.charges[at], f)
	return nil
}
