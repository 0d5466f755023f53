// This file defines the replay of opaque communication arguments: a peer,
// a count or a buffer's length that depends on data the model does not
// compute, which the timing pass recorded per rank in the order of the
// calls (profile.File.CommArgs).

package interp

import (
	"fmt"
	"go/types"
	"slices"
	"strings"

	"github.com/predict-tools/predict/profile"
	"golang.org/x/tools/go/ssa"
)

// opaqueArgs builds the op of a commlib call (build, given the call's
// operands) when the reduction found arguments of the call opaque (a
// peer, a tag, a count, a buffer's length that depends on data the model
// does not compute): those the timing pass recorded are replayed per rank
// (replayargs.go), the others the model passes as zero; the run says
// which at the call's site.
// opaqueArgNote ends the assumption noted for opaque arguments.
const opaqueArgNote = ", which the model does not compute: taken as zero"

func (c *compiler) opaqueArgs(cf *function, in ssa.CallInstruction, site, name string, args []operand, build func([]operand) op) op {
	if len(c.rep.Plan.OpaqueArgs(in)) == 0 {
		return build(args)
	}
	args = slices.Clone(args)
	reps, rest, received := c.replayedArgs(cf, in, site, name, args)
	run := build(args)
	// The notes: at the profile's np the recorded values are replayed;
	// at another, every opaque argument is taken as zero.
	var replayed []string
	for _, r := range reps {
		replayed = append(replayed, r.what)
	}
	all := append(slices.Clone(replayed), rest...)
	note := func(replayed []string, from string, zero []string, why string) string {
		var parts []string
		if len(received) > 0 {
			parts = append(parts, strings.Join(received, "; ")+": a buffer received into that the model does not compute takes the message that arrives")
		}
		if len(replayed) > 0 {
			parts = append(parts, strings.Join(replayed, "; ")+": replayed per rank as the timing pass recorded them ("+from+")")
		}
		if len(zero) > 0 {
			parts = append(parts, strings.Join(zero, "; ")+opaqueArgNote+why)
		}
		return strings.Join(parts, "; ")
	}
	return func(p *proc, fr *frame) ctl {
		missing := false
		var spread, zero, how []string
		var byCounts []*argReplay
		for _, r := range reps {
			v, ok := r.value(p, fr)
			switch {
			case ok:
			case !p.w.rec.exact:
				if v, ok = r.spreadValue(fr); ok {
					spread, how = append(spread, r.what), append(how, r.spreadNote)
				} else if v = r.orig.get(fr); r.bufCounts != nil {
					byCounts = append(byCounts, r) // once every count is in place
				} else {
					zero = append(zero, r.what)
				}
			default:
				v, missing = r.orig.get(fr), true
			}
			fr.s[r.slot] = v
		}
		for _, r := range byCounts {
			var n int64
			ok := r.bufCounts.counts < len(args)
			if ok {
				n, ok = r.bufCounts.lengthFromCounts(args[r.bufCounts.counts].get(fr))
			}
			if !ok {
				zero = append(zero, r.what)
				continue
			}
			fr.s[r.slot] = r.build([]int64{n}, fr)
			spread, how = append(spread, r.what), append(how, r.bufCounts.note())
		}
		if _, noted := p.w.assumptions[site]; !noted {
			switch {
			case !p.w.rec.exact && len(reps) > 0:
				recorded := fmt.Sprintf(" (the timing pass recorded them at np=%s, for that decomposition only)", p.w.recNPs())
				s := note(nil, "", append(zero, rest...), recorded)
				if len(spread) > 0 {
					s = strings.Join(spread, "; ") + ": not recorded at this np" + recorded + ", " + strings.Join(slices.Compact(how), "; ") + joinNote(s)
				}
				p.w.noteAssumption(site, s)
			case missing:
				p.w.noteAssumption(site, note(nil, "", all, ""))
			default:
				p.w.noteAssumption(site, note(replayed, p.w.recSource(p.w.rec), rest, ""))
			}
		}
		c := run(p, fr)
		if c == cYield {
			// The op runs again when the earlier processes have run:
			// the values it took are taken again then.
			for _, r := range reps {
				r.unread(p)
			}
		}
		return c
	}
}

// joinNote returns s after a separator, or nothing for an empty s.
func joinNote(s string) string {
	if s == "" {
		return ""
	}
	return "; " + s
}

// argReplay is one opaque argument of a call, replayed from the profile.
type argReplay struct {
	peer       *peerArray    // a per-peer array of a collective (spreadargs.go)
	bufCounts  *bufferCounts // a buffer whose length its call's counts give (spreadargs.go)
	total      float64       // its rank's total per call at this run's np; < 0: none
	spreadNote string
	slot       int // the frame slot the call reads it from instead
	orig       operand
	slice      types.Type                  // the slice type, when it is one (else an integer)
	iface      bool                        // the slice is passed as an interface (a commlib buffer)
	byRec      []map[int]*profile.RankArgs // per record (records.go)
	byRank     map[int]*profile.RankArgs   // the run's record's
	cursor     int                         // index into proc.argCursors
	what       string
	site       string
}

// wrappedNote ends the assumption of a call whose replayed arguments ran
// past those recorded.
const wrappedNote = "; the calls went on past the values recorded, which were replayed again from the first"

// argCursor is a position in a rank's replayed argument values.
type argCursor struct {
	run  int
	used int64
	read bool // the last call took a value (unread gives it back)
}

// unread gives back the value the last call took, for a call that runs
// again (its op yielded before communicating).
func (r *argReplay) unread(p *proc) {
	if p.argCursors == nil {
		return
	}
	c := &p.argCursors[r.cursor]
	if !c.read {
		return
	}
	c.read = false
	if c.used > 0 {
		c.used--
		return
	}
	// The value was the first of its run: back to the end of the one
	// before (of the last, when the record had started again).
	ra := r.byRank[p.w.profRank(p.rank, p.w.rec.np)]
	if c.run == 0 {
		c.run = len(ra.Runs)
	}
	c.run--
	c.used = ra.Runs[c.run].N - 1
}

// replayedArgs returns the replays of the opaque arguments of call in (the
// call's operands args, whose slots it redirects) that the profile
// recorded, the arguments it did not record, and the buffers received
// into (never recorded).
func (c *compiler) replayedArgs(cf *function, in ssa.CallInstruction, site, name string, args []operand) (reps []*argReplay, rest, received []string) {
	parts := c.rep.Plan.ReplayParts(in)
	whats := map[int][]string{}
	values := map[int]ssa.Value{}
	var order []int
	for _, a := range c.rep.Plan.OpaqueArgs(in) {
		if a.Received {
			// A buffer received into that the model does not compute:
			// it takes what arrives (the sender's length is the
			// message's).
			received = append(received, a.String())
			continue
		}
		if _, seen := values[a.Index]; !seen {
			order = append(order, a.Index)
		}
		values[a.Index] = a.Value
		whats[a.Index] = append(whats[a.Index], a.String())
	}
	for _, i := range order {
		byRec := c.cp.commArgs[argKey(site, i)]
		slice, iface, ok := replayable(values[i])
		if byRec == nil || !ok || i >= len(args) || parts[i] == "" {
			rest = append(rest, whats[i]...)
			continue
		}
		r := &argReplay{orig: args[i], slice: slice, iface: iface, cursor: c.cp.nArgCursors,
			what: strings.Join(whats[i], "; "), site: site, slot: cf.nslots, total: -1}
		if slice != nil {
			if r.peer = peerArrayOf(name, site, i); r.peer == nil {
				r.bufCounts = bufferCountsOf(name, i)
			}
		}
		c.cp.nArgCursors++
		cf.nslots++
		for _, as := range byRec {
			var m map[int]*profile.RankArgs
			if as != nil {
				m = rankMap(as.Ranks, func(ra *profile.RankArgs) int { return ra.Rank })
			}
			r.byRec = append(r.byRec, m)
		}
		// Compiled when the run first calls it: the run's record is
		// chosen (chooseRecord sets it again for the next run).
		r.byRank = r.byRec[c.cp.rec.index]
		r.setSpread(c.cp, c.cp.runNP)
		c.cp.argReplays = append(c.cp.argReplays, r)
		args[i] = operand{slot: r.slot}
		reps = append(reps, r)
	}
	return reps, rest, received
}

// replayable says how a recorded value stands in for v: an integer, a
// slice (its type), or a slice passed as an interface (a commlib buffer).
func replayable(v ssa.Value) (slice types.Type, iface, ok bool) {
	if v == nil {
		return nil, false, false
	}
	switch u := v.Type().Underlying().(type) {
	case *types.Basic:
		return nil, false, u.Info()&types.IsInteger != 0
	case *types.Slice:
		return v.Type(), false, true
	case *types.Interface:
		if mi, isMI := v.(*ssa.MakeInterface); isMI {
			if _, isSlice := mi.X.Type().Underlying().(*types.Slice); isSlice {
				return mi.X.Type(), true, true
			}
		}
	}
	return nil, false, false
}

func argKey(site string, i int) string { return fmt.Sprintf("%s#%d", site, i) }

// value returns rank p's next value of the argument, or false when the
// profile has none for it here (another np, or no record of its rank).
func (r *argReplay) value(p *proc, fr *frame) (V, bool) {
	if !p.w.rec.exact {
		// The values of another decomposition: a peer, and a length
		// that must match what a peer sends, belong to the np they were
		// recorded at.
		return V{}, false
	}
	ra := r.byRank[p.w.profRank(p.rank, p.w.rec.np)]
	if ra == nil || len(ra.Runs) == 0 {
		return V{}, false
	}
	if p.argCursors == nil {
		p.argCursors = make([]argCursor, p.w.nArgCursors)
	}
	c := &p.argCursors[r.cursor]
	for c.used >= ra.Runs[c.run].N {
		c.run++
		c.used = 0
		if c.run >= len(ra.Runs) {
			c.run = 0 // past the record: it starts again, and the run says so
			if a := p.w.assumptions[r.site]; !strings.Contains(a, wrappedNote) {
				p.w.assumptions[r.site] = a + wrappedNote
			}
		}
	}
	c.used++
	c.read = true
	return r.build(ra.Runs[c.run].Vals, fr), true
}

// spreadValue returns the argument's even per-peer array at an np the
// timing pass did not record (spreadargs.go), as long as the program's
// own array (its length computed by the model), or false.
func (r *argReplay) spreadValue(fr *frame) (V, bool) {
	orig := r.orig.get(fr)
	if r.iface {
		if i, ok := orig.R.(*iface); ok {
			orig = i.v
		}
	}
	s, ok := orig.R.(*sliceV)
	if !ok {
		return V{}, false
	}
	elems, ok := r.spread(s.len)
	if !ok {
		return V{}, false
	}
	return r.build(append([]int64{int64(s.len)}, elems...), fr), true
}

// build makes the argument's value from recorded values: an integer, or
// a slice of length vals[0] and elements vals[1:] (the program's own
// buffer, resliced, where only its length was recorded).
func (r *argReplay) build(vals []int64, fr *frame) V {
	if r.slice == nil {
		return intV(vals[0])
	}
	n := int(max(vals[0], 0))
	s := &sliceV{len: n, cap: n}
	orig := r.orig.get(fr)
	if r.iface {
		if i, ok := orig.R.(*iface); ok {
			orig = i.v
		} else {
			orig = V{}
		}
	}
	if os, ok := orig.R.(*sliceV); ok && os.a != nil && !os.a.shape && os.cap >= n && len(vals) == 1 {
		// The program's own buffer, resliced: what it holds is what it
		// sends.
		s.a, s.off, s.cap = os.a, os.off, os.cap
	} else {
		elem := sliceElem(r.slice)
		s.a = newArray(n, zeroOf(elem), len(vals) == 1)
		for k := 1; k < len(vals) && k-1 < n; k++ {
			s.a.store(k-1, intV(vals[k]))
		}
	}
	v := V{R: s}
	if r.iface {
		v = V{R: &iface{t: r.slice, v: v, esize: elemSize(r.slice)}}
	}
	return v
}
