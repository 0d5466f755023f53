// This file defines opaque decisions as the interpreter replays them:
// the outcomes the timing pass recorded per rank, the default of a
// decision the profile does not have (a loop's exit test leaves its
// loop). Opaque communication arguments are replayargs.go's.

package interp

import (
	"fmt"
	"go/token"
	"math"
	"sort"

	"github.com/predict-tools/predict/modelgen"

	"github.com/predict-tools/predict/profile"
	"github.com/predict-tools/predict/reduce"
	"golang.org/x/tools/go/ssa"
)

// decision is an opaque branch replayed from the profile.
type decision struct {
	index  int
	node   string
	pos    string
	stats  *profile.DecisionStats // the profile's (of any record)
	byRec  []map[int]*profile.RankOutcomes
	byRank map[int]*profile.RankOutcomes // the run's record's (records.go)
	from   recordChoice                  // which record that is
	// exit: the decision is the exit test of the loop around it, stay the
	// outcome that stays in it.
	exit, stay bool
	// The run's scaling of a record from another np (records.go): thin
	// the outcomes thinTrue says by thin (0: none), or stretch the runs of
	// the staying outcome of an exit test (0: none); trend says how.
	thin     float64
	thinTrue bool
	stretch  float64
	trend    string
	def      bool // the outcome of the condition (the root's, as the profile's) when the profile has none
	check    bool // a check of the program: assumed to pass, whatever the profile says
	// exitOf is the position of the loop whose exit test this is, when
	// the default (def) leaves that loop.
	exitOf string
	used   bool
	// fromTrips: its outcomes are its loop's recorded trips (outcomesOfTrips).
	fromTrips bool
	// wrapped: a rank replayed past the outcomes recorded for it, and the
	// sequence started again; tailed: past the runs a truncated record
	// kept, the rest replayed in their counted proportion.
	wrapped, tailed bool
	// taken counts the outcomes the run took from the record, all ranks.
	taken int64
}

func (d *decision) outcomes(r int) *profile.RankOutcomes {
	d.used = true
	return d.byRank[r]
}

func (d *decision) source(w *World) string {
	switch {
	case d.check:
		return "a check of the program on data the model does not compute: assumed to pass (the real run ends there when it fails)"
	case d.stats == nil && d.exitOf != "":
		return fmt.Sprintf("not in the profile (the timing pass times the code around it whole): the exit test of the loop at %s, taken as leaving it at its first test", d.exitOf)
	case d.stats == nil:
		return fmt.Sprintf("not in the profile: taken as %v", d.def)
	case d.fromTrips:
		return "outcomes made of its loop's trip counts (the timing pass timed the loop whole) " + w.recSource(d.from) + d.trendNote()
	case d.wrapped:
		return "outcomes " + w.recSource(d.from) + d.trendNote() + ", replayed past those recorded: the recorded sequence starts again"
	case d.tailed:
		return "outcomes " + w.recSource(d.from) + d.trendNote() + "; past the first runs the profile kept, the rest in the proportion it counted"
	}
	return "outcomes " + w.recSource(d.from) + d.trendNote()
}

// divergedLimits are the run's decisions that it took more often than the
// program did, at the np they were recorded at, by more than
// divergedSlack: the model's path left the program's there (a structure
// built by replayed decisions, past what the profile keeps, that came out
// otherwise), and what it charges from there on is not what the program
// ran. A few more are not said: a record of one process's reading of a
// file replayed by every rank. Sorted by position.
func (w *World) divergedLimits() []string {
	var out []string
	for _, d := range w.decisions {
		if !d.used || !d.wrapped || !d.from.exact || d.fromTrips {
			continue
		}
		var recorded int64
		for _, ro := range d.byRank {
			if ro != nil {
				recorded += ro.True + ro.False
			}
		}
		if float64(d.taken) > (1+divergedSlack)*float64(recorded)+divergedMin {
			out = append(out, fmt.Sprintf("%s: the model took this opaque decision %d times where the program took it %d at np=%d: its path left the program's, and the time it charges from there on is not what the program ran", d.pos, d.taken, recorded, d.from.np))
		}
	}
	sort.Strings(out)
	return out
}

// A run that takes a decision more than divergedSlack·recorded +
// divergedMin times at the np it was recorded at says so.
const (
	divergedSlack = 0.10
	divergedMin   = 1000
)

func (w *World) noteDefault(d *decision) {
	d.used = true
}

// exitDefault makes the default of a decision the profile does not have
// leave the loop when the branch b ends is the exit test of a loop (one
// way stays in the innermost loop around b, the other leaves it): taken
// the other way, a loop whose exit depends on data the model does not
// compute ("for { x := rnd(); if ok(x) { break } }") would never end. Its
// time is in the code the timing pass timed around it, so one iteration
// costs what many would. negate says the branch tests the negation of the
// decision's condition.
func (d *decision) exitDefault(plan *reduce.Plan, b *ssa.BasicBlock, negate bool, loopAt func(*ssa.BasicBlock) string) {
	leave, ok := exitOutcome(plan, b, negate)
	if !ok {
		return
	}
	loop, header := plan.InnermostLoop(b)
	if communicates(b.Parent(), loop) {
		// A loop that communicates is not in code timed whole: leaving it
		// at once would drop its messages (a silent −100 %), so the
		// decision keeps its default and the runaway check stops a run
		// that never ends.
		return
	}
	d.def = leave
	d.exitOf = loopAt(header)
}

// exitOutcome returns the outcome of the decision that leaves the
// innermost loop around b, when b's branch is that loop's exit test (one
// way stays in it, the other leaves it). negate says the branch tests the
// negation of the decision's condition.
func exitOutcome(plan *reduce.Plan, b *ssa.BasicBlock, negate bool) (leave, ok bool) {
	loop, _ := plan.InnermostLoop(b)
	if loop == nil || len(b.Succs) != 2 {
		return false, false
	}
	out0, out1 := !loop[b.Succs[0].Index], !loop[b.Succs[1].Index]
	if out0 == out1 {
		return false, false
	}
	// The branch goes to Succs[0] when its condition holds, and its
	// condition is the decision's outcome, negated when negate.
	return out0 != negate, true
}

// communicates reports a commlib call in the blocks of loop.
func communicates(fn *ssa.Function, loop map[int]bool) bool {
	for _, b := range fn.Blocks {
		if !loop[b.Index] {
			continue
		}
		for _, in := range b.Instrs {
			if call, ok := in.(ssa.CallInstruction); ok {
				if f := call.Common().StaticCallee(); f != nil && modelgen.IsCommlib(f) {
					return true
				}
			}
		}
	}
	return false
}

// blockPos is the position of the first instruction of b but its φs
// that has one (of its function when none has).
func blockPos(b *ssa.BasicBlock, pos func(token.Pos) string) string {
	for _, in := range b.Instrs {
		if _, phi := in.(*ssa.Phi); !phi && in.Pos().IsValid() {
			return pos(in.Pos())
		}
	}
	return pos(b.Parent().Pos())
}

// decide returns the next outcome of an opaque decision for this rank.
func (p *proc) decide(d *decision) bool {
	if d.stats == nil || d.check {
		p.w.noteDefault(d)
		return d.def
	}
	if p.cursors == nil {
		p.cursors = make([]cursor, len(p.w.decisions))
	}
	c := &p.cursors[d.index]
	ro := d.outcomes(p.w.profRank(p.rank, d.from.np))
	if ro == nil {
		return d.def
	}
	d.taken++
	if len(ro.Runs) == 0 {
		return d.thinned(c, ro.True > ro.False)
	}
	if c.tailN > 0 {
		if c.tailK < c.tailN {
			// Past the runs the profile kept, within the outcomes it
			// counted: the rest in their own proportion, spread evenly
			// (the k-th is true when ⌊(k+1)·T/N⌋ passes ⌊k·T/N⌋), so the
			// run's count of each outcome is the real one.
			k := c.tailK
			c.tailK++
			return d.thinned(c, (k+1)*c.tailT/c.tailN > k*c.tailT/c.tailN)
		}
		c.tailN, c.tailK, c.run, c.used, c.lenSet = 0, 0, 0, 0, false
		d.wrapped = true
	}
	for guard := 0; c.used >= d.runLen(c, ro); guard++ {
		if guard > 2*len(ro.Runs)+2 {
			// Every run stretched to nothing: the record as it is.
			d.stretch = 0
		}
		c.run++
		c.used, c.lenSet = 0, false
		if c.run >= len(ro.Runs) {
			c.run = 0
			if ro.Truncated && !c.tailDone {
				// The profile kept the first runs and counted the rest.
				c.tailDone = true
				var kept, keptTrue int64
				for i, n := range ro.Runs {
					kept += n
					if ro.FirstTrue == (i%2 == 0) {
						keptTrue += n
					}
				}
				if n := ro.True + ro.False - kept; n > 0 {
					c.tailN, c.tailT, c.tailK = n, max(ro.True-keptTrue, 0), 0
					if d.stretch > 0 {
						// An exit test scaled to another np: its staying
						// outcomes in the tail too.
						stay := c.tailT
						if !d.stay {
							stay = n - c.tailT
						}
						more := scaled(stay, d.stretch, &c.carry) - stay
						c.tailN += more
						if d.stay {
							c.tailT += more
						}
					}
					d.tailed = true
					return p.decide(d)
				}
			}
			// Past the recorded sequence: it starts again (a loop's exit
			// test recorded over one entry repeats for the next), from
			// a run of the first run's outcome.
			d.wrapped = true
		}
	}
	c.used++
	return d.thinned(c, ro.FirstTrue == (c.run%2 == 0))
}

// runLen is the length of the cursor's run of the record: stretched, for
// the staying outcome of an exit test scaled to another np (records.go).
func (d *decision) runLen(c *cursor, ro *profile.RankOutcomes) int64 {
	n := ro.Runs[c.run]
	if d.stretch == 0 || (ro.FirstTrue == (c.run%2 == 0)) != d.stay {
		return n
	}
	if !c.lenSet {
		c.len, c.lenSet = scaled(n, d.stretch, &c.carry), true
	}
	return c.len
}

// thinned turns the outcomes of a decision scaled to another np that its
// share there leaves over into the other outcome, evenly (the k-th of
// them stays when ⌊(k+1)·thin⌋ passes ⌊k·thin⌋).
func (d *decision) thinned(c *cursor, o bool) bool {
	if d.thin == 0 || o != d.thinTrue {
		return o
	}
	k := float64(c.thinK)
	c.thinK++
	if math.Floor((k+1)*d.thin) > math.Floor(k*d.thin) {
		return o
	}
	return !o
}

// maxTripOutcomes bounds the runs of outcomes made of a loop's recorded
// trips (outcomesOfTrips): the rest are counted, and replayed in their
// proportion, as those of a truncated record.
const maxTripOutcomes = 1 << 18

// outcomesOfTrips makes a rank's recorded trips of a loop into the
// outcomes of its exit test: per entry, the staying outcome as many times
// as it had trips, then the leaving one.
func outcomesOfTrips(rt profile.RankTrips, stay bool) *profile.RankOutcomes {
	ro := &profile.RankOutcomes{Rank: rt.Rank, Truncated: rt.Truncated}
	add := func(o bool, n int64) {
		if n <= 0 {
			return
		}
		if o {
			ro.True += n
		} else {
			ro.False += n
		}
		switch {
		case len(ro.Runs) == 0:
			ro.FirstTrue = o
			ro.Runs = append(ro.Runs, n)
		case (ro.FirstTrue == ((len(ro.Runs)-1)%2 == 0)) == o:
			ro.Runs[len(ro.Runs)-1] += n // the same outcome as the last run
		case len(ro.Runs) < maxTripOutcomes:
			ro.Runs = append(ro.Runs, n)
		default:
			ro.Truncated = true // counted, not kept
		}
	}
	for _, run := range rt.Runs {
		for range min(run[1], maxTripOutcomes) {
			add(stay, run[0])
			add(!stay, 1)
		}
		if run[1] > maxTripOutcomes {
			ro.Truncated = true
			rest := run[1] - maxTripOutcomes
			if stay {
				ro.True, ro.False = ro.True+rest*run[0], ro.False+rest
			} else {
				ro.False, ro.True = ro.False+rest*run[0], ro.True+rest
			}
		}
	}
	return ro
}

// nextTrips returns the next trip count of a loop whose bound is opaque,
// replayed from the profile.
func (p *proc) nextTrips(lp *loopPlan) int64 {
	if p.loopCursors == nil {
		p.loopCursors = map[*loopPlan]*cursor{}
	}
	c := p.loopCursors[lp]
	if c == nil {
		c = &cursor{}
		p.loopCursors[lp] = c
	}
	rt := lp.rankTrips(p.w.profRank(p.rank, lp.from.np))
	if rt == nil {
		return lp.meanTrips
	}
	if len(rt.Runs) == 0 {
		return lp.meanTrips
	}
	for c.used >= rt.Runs[c.run][1] {
		c.run++
		c.used = 0
		if c.run >= len(rt.Runs) {
			c.run = 0 // the sequence starts again
		}
	}
	c.used++
	return scaled(rt.Runs[c.run][0], lp.scale, &c.carry)
}

// cursor is a position in a replayed sequence of runs.
type cursor struct {
	run  int
	used int64
	// The tail of a truncated record: N outcomes, T of them true, k
	// replayed so far (decide); tailDone once it was entered.
	tailN, tailT, tailK int64
	tailDone            bool
	// A record scaled to another np (records.go): the carried fraction
	// of the scaled lengths, the current run's scaled length (lenSet), and
	// the outcomes thinned so far.
	carry  float64
	len    int64
	lenSet bool
	thinK  int64
}
