// This file defines the one way the timing pass times a region whole:
// which statements are timed so (the rule), and how (the mechanism).

package estimator

import (
	"cmp"
	"fmt"
	"go/ast"
	"slices"
	"strings"

	"github.com/predict-tools/predict/model"
	"github.com/predict-tools/predict/profile"
)

// A region timed whole is code the loop plan (reduce.Plan, issue 11)
// charges as a whole: a loop it marks Whole, which neither communicates
// nor leaves early and whose callees no code outside such loops calls
// (planWholeLoops). The timing pass times it without changing how its hot
// code compiles, in one way:
//
//   - The statement that enters the region is written twice (a version,
//     version.go): each entry that probe.SampleEntry samples (the first
//     few, then sparser) runs an instrumented copy, which times its first
//     iterations (the balance D, the time per iteration); every other
//     entry runs the statement as written, with only a clock read before
//     it and a record of its time and trip count after it.
//   - The statement timed is the outermost that enters the region and
//     nothing else: the call statement, when the region is the whole work
//     of a function called only by such statements (the function's loop,
//     behind statements the model keeps nothing of: callsite.go); the loop
//     statement otherwise.
//   - The instrumented copy is written apart from the code it times
//     whenever that is the same program: for a call, the callee's clone
//     (f__psample), so that the callee itself stays as written and is
//     inlined where the plain build inlines it; for a loop, the copy
//     outlined into a function of its own (outline.go), so that its
//     function holds one copy of the loop, compiled as the plain build
//     compiles it. Where it cannot be written apart (the loop takes an
//     address, holds a closure, returns, …), it stays in place, and the
//     plan says why ([WholeRegion]).
//
// Why apart. A probe call in a hot loop's body, even one not taken, changes
// the code the compiler makes of the loop (values live across the call
// stay on the stack: 5-15 % slower); two copies of a loop nest in one
// function change how the original copy is compiled (ep's gaussianPairs:
// 5 % slower, 1.5 % faster than that once outlined); and a probe in a
// function stops the compiler from inlining it (stencil's sweep, class W:
// 0.41-0.46 s plain, 0.47-0.54 s marked //go:noinline).

// Where a region's instrumented copy is written ([WholeRegion].Copy).
const (
	CopyClone    = "clone"    // the callee's clone: the call statement is timed
	CopyOutlined = "outlined" // a function of its own, the loop's variables passed in and back
	CopyInPlace  = "in place" // beside the original, in its function
)

// WholeRegion is a region timed whole, as the plan placed it.
type WholeRegion struct {
	Fragment int32       `json:"fragment"` // the loop's fragment
	Pos      model.Range `json:"pos"`      // the statement timed: a loop, or a call of the function that is one
	Call     bool        `json:"call,omitempty"`
	Copy     string      `json:"copy"`
	// Why: for a copy in place, what kept it from being written apart.
	Why string `json:"why,omitempty"`
}

// whole is a statement that enters a region timed whole.
type whole struct {
	stmt ast.Stmt
	loop *model.Node // the loop timed whole: the statement, or its callee's
	site *callSite   // the call statement of a function that is the loop, or nil
}

// wholeOf returns the region timed whole that statement s enters, or nil:
// the rule. Inside a function timed by the loops that call it, nothing is
// (they time it); inside a region timed with nothing timed inside
// (region.go) only a loop whose trip counts the model replays per rank is,
// which the region then accounts apart.
func (in *instrumenter) wholeOf(s ast.Stmt, fc *funcCtx) *whole {
	if fc.decisionsOnly {
		return nil
	}
	if l, ok := s.(*ast.LabeledStmt); ok {
		return in.wholeOf(l.Stmt, fc)
	}
	if cs := in.sites[s]; cs != nil {
		if fc.coarse > 0 {
			return nil // its callee's clone would time it inside the region
		}
		return &whole{stmt: s, loop: cs.fn.loop, site: cs}
	}
	switch s.(type) {
	case *ast.ForStmt, *ast.RangeStmt:
	default:
		return nil
	}
	node := in.wholeLoop(s, fc)
	if node == nil || (fc.coarse > 0 && !opaqueBound(node)) {
		return nil
	}
	return &whole{stmt: s, loop: node}
}

// timeWhole times statement s whole when it enters a region timed whole,
// and reports whether it did; otherwise the caller instruments inside it.
func (in *instrumenter) timeWhole(s ast.Stmt, fc *funcCtx) bool {
	w := in.wholeOf(s, fc)
	if w == nil {
		return false
	}
	if w.site != nil {
		in.timeCall(w, fc)
		return true
	}
	in.timeLoop(w, fc)
	return true
}

// timeCall writes a call statement of a function that is a loop timed
// whole twice: the call of the callee's clone for a sampled entry, the
// call as written between the loop's clock read and record otherwise.
func (in *instrumenter) timeCall(w *whole, fc *funcCtx) {
	cs := w.site
	if !fc.usedCalls {
		fc.usedCalls = true
		fc.vars = append(fc.vars, "__lc", "__lk")
	}
	// The trip count is read before the call: the call may change what
	// it reads (a field of its receiver).
	start := in.fset.Position(w.stmt.Pos())
	in.versions[fc.file] = append(in.versions[fc.file], version{
		start: start.Offset, end: in.fset.Position(w.stmt.End()).Offset, line: start.Line, col: start.Column,
		sampled: fmt.Sprintf("if __probe.SampleEntry(%d) != 0 { ", cs.fn.id),
		plain:   fmt.Sprintf(" } else { __lk = int64(%s); __lc = %s; ", cs.trips, in.now),
		close:   fmt.Sprintf("; __probe.%s(%d, __lc, __lk) }", loopRecord(in.plan.Regions), cs.fn.id),
	})
	fc.timed[fc.region] = true
	in.insertSampled(fc.file, cs.call.Fun.End(), "__psample")
	in.plan.Whole = append(in.plan.Whole, WholeRegion{Fragment: cs.fn.id, Pos: in.rangeOf(w.stmt.Pos(), w.stmt.End()), Call: true, Copy: CopyClone})
}

// timeLoop writes a loop statement timed whole twice, with its trip count
// and sampled iterations: a sampled copy, which times its first
// iterations, and the original code, which only counts its iterations
// when the trip count is not known before the loop runs.
func (in *instrumenter) timeLoop(w *whole, fc *funcCtx) {
	s, node := w.stmt, w.loop
	body := loopBody(s)
	rng := in.rangeOf(s.Pos(), s.End())
	id, callee := in.callLoops[node] // the loop of a function timed at its call sites: its clone's
	if !callee {
		id = in.fragment(profile.FragLoop, fc, node.ID, in.covered(rng, fc), rng)
	}
	record := "Loop"
	if callee {
		record = loopRecord(in.plan.Regions) // timed in the regions of the call sites
	}
	if opaqueBound(node) {
		record = "LoopRanked" // the interpreter replays its trip counts per rank
		if fc.coarse > 0 && in.plan.Regions {
			// Timed inside a region timed whole (its own function's,
			// or its callers'): accounted apart there as it runs, or
			// the region would count its time again.
			record = "LoopRankedApart"
			in.plan.Fragments[id].Apart = true
		}
	}
	t, n, it, ls := fmt.Sprintf("__lt%d", id), fmt.Sprintf("__ln%d", id), fmt.Sprintf("__li%d", id), fmt.Sprintf("__ls%d", id)
	fc.vars = append(fc.vars, t, n, it, ls)
	// A loop whose entry is sampled runs, after its samples, in the
	// original copy: the sampling code costs its hot inner loops nothing
	// then (ep's batch loop, entered once, ran 18 % slower all along in
	// the sampled copy). rs: 1 runs the original copy from the start,
	// 2 resumes it at rx, 0 skips it.
	rs, rx := fmt.Sprintf("__rs%d", id), fmt.Sprintf("__rx%d", id)
	resume, leave := in.resumable(s, body, fc, rs, rx)
	if resume {
		fc.vars = append(fc.vars, rs, rx)
		in.plan.Fragments[id].Resumes = true
	}
	start := in.fset.Position(s.Pos())
	v := version{start: start.Offset, end: in.fset.Position(s.End()).Offset, line: start.Line, col: start.Column,
		close: fmt.Sprintf(" }; __probe.%s(%d, %s, %s)", record, id, t, n)}
	if trips, ok := in.staticTrips(s, node, fc); ok {
		// The trip count is computed before the loop: the original copy
		// runs as it is. Iteration k of a sampled entry is the
		// (IterSamples+1-ls)th, ls counting the Iter calls left.
		in.plan.Fragments[id].Static = true
		// own is the loop statement's own trip count (n counts the
		// innermost iterations of a perfect nest): what the sampled copy
		// iterates and Sampled records.
		setup, own := fmt.Sprintf("%s = %s", n, trips), n
		if inner, ok := in.innerTrips(s, body, node, fc); ok {
			own = fmt.Sprintf("__lo%d", id)
			fc.vars = append(fc.vars, own)
			setup = fmt.Sprintf("%s = %s; %s = %s * (%s)", own, trips, n, own, inner)
			in.plan.Fragments[id].Innermost = true
		}
		v.sampled = fmt.Sprintf("%s; %s = __probe.SampleEntry(%d); %s = 0; %s = %s; if %s != 0 { ", setup, ls, id, it, t, in.now, ls)
		sample := fmt.Sprintf(" if %s > 0 { %s--; %s = __probe.Iter(%d, __probe.IterSamples+1-%s, %s) }", ls, ls, it, id, ls, it)
		v.plain = fmt.Sprintf("; if %s != 0 && %s > 0 { __probe.IterEnd(%d, __probe.IterSamples+1-%s, %s) }; __probe.Sampled(%d, %s) } else { ", it, ls, id, ls, it, id, own)
		if resume {
			v.sampled = fmt.Sprintf("%s; %s = __probe.SampleEntry(%d); %s = 0; %s = %s; %s = 1; if %s != 0 { %s = 0; ", setup, ls, id, it, t, in.now, rs, ls, rs)
			sample += " else { " + leave + " }"
			v.plain = fmt.Sprintf("; if %s != 0 && %s > 0 { __probe.IterEnd(%d, __probe.IterSamples+1-%s, %s) }; __probe.Sampled(%d, %s) }; if %s != 0 { ", it, ls, id, ls, it, id, own, rs)
		}
		in.insertSampled(fc.file, body.Lbrace+1, sample+";")
	} else {
		// Both copies count their iterations; iteration k's start closes
		// iteration k-1's sample, the loop's end the last one when the
		// loop ran no more than IterSamples.
		v.sampled = fmt.Sprintf("%s = __probe.SampleEntry(%d); %s = 0; %s = 0; %s = %s; if %s != 0 { ", ls, id, n, it, t, in.now, ls)
		in.insert(fc.file, body.Lbrace+1, fmt.Sprintf(" %s++;", n))
		sample := fmt.Sprintf(" if %s <= __probe.IterSamples+1 { %s = __probe.Iter(%d, %s, %s) }", n, it, id, n, it)
		v.plain = fmt.Sprintf("; if %s != 0 && %s <= __probe.IterSamples { __probe.IterEnd(%d, %s, %s) }; __probe.Sampled(%d, %s) } else { ", it, n, id, n, it, id, n)
		if resume {
			v.sampled = fmt.Sprintf("%s = __probe.SampleEntry(%d); %s = 0; %s = 0; %s = %s; %s = 1; if %s != 0 { %s = 0; ", ls, id, n, it, t, in.now, rs, ls, rs)
			// The original copy counts this iteration again.
			sample += fmt.Sprintf(" else { %s--; %s }", n, leave)
			v.plain = fmt.Sprintf("; if %s != 0 && %s <= __probe.IterSamples { __probe.IterEnd(%d, %s, %s) }; __probe.Sampled(%d, %s) }; if %s != 0 { ", it, n, id, n, it, id, n, rs)
		}
		in.insertSampled(fc.file, body.Lbrace+1, sample+";")
	}
	if callee {
		// The clone is the copy apart; in it the loop always samples
		// (clone), so both its copies stay in place.
		in.versions[fc.file] = append(in.versions[fc.file], v)
		return
	}
	set := []string{ls, it} // the probe variables the sampled copy sets
	if !in.plan.Fragments[id].Static {
		set = append(set, n)
	}
	if resume {
		set = append(set, rs, rx)
	}
	var why string
	v.outline, why = in.outline(s, id, fc, set)
	in.versions[fc.file] = append(in.versions[fc.file], v)
	r := WholeRegion{Fragment: id, Pos: rng, Copy: CopyOutlined}
	if v.outline == nil {
		r.Copy, r.Why = CopyInPlace, why
	}
	in.plan.Whole = append(in.plan.Whole, r)
}

// sortWhole orders the plan's regions timed whole by position.
func sortWhole(rs []WholeRegion) {
	slices.SortFunc(rs, func(a, b WholeRegion) int {
		return cmp.Or(cmp.Compare(a.Pos.Start.File, b.Pos.Start.File), cmp.Compare(a.Pos.Start.Line, b.Pos.Start.Line),
			cmp.Compare(a.Pos.Start.Col, b.Pos.Start.Col), cmp.Compare(a.Fragment, b.Fragment))
	})
}

// WholeSummary says in a line how the plan timed its regions timed whole:
// how many, where their copies are, and each copy left in place with why.
func (p *Plan) WholeSummary() string {
	if len(p.Whole) == 0 {
		return "no region timed whole"
	}
	count := map[string]int{}
	var inPlace []string
	for _, r := range p.Whole {
		count[r.Copy]++
		if r.Copy == CopyInPlace {
			inPlace = append(inPlace, fmt.Sprintf("%s: %s", r.Pos.Start, r.Why))
		}
	}
	s := fmt.Sprintf("%d regions timed whole: %d calls timed at their sites (the callee's clone samples), %d loops with their sampled copy outlined, %d in place",
		len(p.Whole), count[CopyClone], count[CopyOutlined], count[CopyInPlace])
	if len(inPlace) > 0 {
		s += " (" + strings.Join(inPlace, "; ") + ")"
	}
	return s
}
