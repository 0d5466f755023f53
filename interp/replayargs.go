// This file defines the replay of opaque communication arguments: a peer,
// a count or a buffer's length that depends on data the model does not
// compute, which the timing pass recorded per rank in the order of the
// calls (profile.File.CommArgs).

package interp

import (
	"fmt"
	"go/types"
	"strings"

	"github.com/predict-tools/predict/profile"
	"github.com/predict-tools/predict/reduce"
	"golang.org/x/tools/go/ssa"
)

// argReplay is one opaque argument of a call, replayed from the profile.
type argReplay struct {
	index  int // among the call's operands (0: a method's receiver)
	slot   int // the frame slot the call reads it from instead
	orig   operand
	t      types.Type // the argument's type: an integer, a slice, or a slice made an interface
	slice  types.Type // the slice type, when it is one
	iface  bool       // the slice is passed as an interface (a commlib buffer)
	byRank map[int]*profile.RankArgs
	cursor int // index into proc.argCursors
	what   string
	site   string
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
	ra := r.byRank[p.w.profRank(p.rank)]
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
func (c *compiler) replayedArgs(cf *function, in ssa.CallInstruction, site string, args []operand) (reps []*argReplay, rest, received []string) {
	parts := map[int]reduce.ArgPart{}
	whats := map[int][]string{}
	var order []int
	for _, a := range c.rep.Plan.OpaqueArgs(in) {
		if a.Received {
			// A buffer received into that the model does not compute:
			// it takes what arrives (the sender's length is the
			// message's).
			received = append(received, a.String())
			continue
		}
		if _, seen := parts[a.Index]; !seen {
			order = append(order, a.Index)
		}
		if partRank[a.Of] > partRank[parts[a.Index]] {
			parts[a.Index] = a.Of
		}
		whats[a.Index] = append(whats[a.Index], a.String())
	}
	for _, i := range order {
		as := c.cp.commArgs[argKey(site, i)]
		t := argType(in, i)
		if as == nil || t == nil || i >= len(args) {
			rest = append(rest, whats[i]...)
			continue
		}
		r := &argReplay{index: i, orig: args[i], t: t, byRank: map[int]*profile.RankArgs{}, cursor: c.cp.nArgCursors,
			what: strings.Join(whats[i], "; "), site: site}
		c.cp.nArgCursors++
		for k := range as.Ranks {
			r.byRank[as.Ranks[k].Rank] = &as.Ranks[k]
		}
		switch u := t.Underlying().(type) {
		case *types.Basic:
			if u.Info()&types.IsInteger == 0 {
				rest = append(rest, whats[i]...)
				continue
			}
		case *types.Slice:
			r.slice = t
		case *types.Interface:
			mi, ok := argValue(in, i).(*ssa.MakeInterface)
			if !ok {
				rest = append(rest, whats[i]...)
				continue
			}
			if _, isSlice := mi.X.Type().Underlying().(*types.Slice); !isSlice {
				rest = append(rest, whats[i]...)
				continue
			}
			r.slice, r.iface = mi.X.Type(), true
		default:
			rest = append(rest, whats[i]...)
			continue
		}
		r.slot = cf.nslots
		cf.nslots++
		args[i] = operand{slot: r.slot}
		reps = append(reps, r)
	}
	return reps, rest, received
}

// partRank orders what a record holds of an argument: the elements (with
// the length) hold most.
var partRank = map[reduce.ArgPart]int{reduce.ArgValue: 1, reduce.ArgLength: 2, reduce.ArgElements: 3}

func argKey(site string, i int) string { return fmt.Sprintf("%s#%d", site, i) }

// argValue is operand i of a call as the reduction counts them (a
// method's receiver first, also through an interface).
func argValue(in ssa.CallInstruction, i int) ssa.Value {
	cc := in.Common()
	if cc.IsInvoke() {
		if i == 0 {
			return cc.Value
		}
		i--
	}
	if i < 0 || i >= len(cc.Args) {
		return nil
	}
	return cc.Args[i]
}

func argType(in ssa.CallInstruction, i int) types.Type {
	if v := argValue(in, i); v != nil {
		return v.Type()
	}
	return nil
}

// value returns rank p's next value of the argument, or false when the
// profile has none for it here (another np, or no record of its rank).
func (r *argReplay) value(p *proc, fr *frame) (V, bool) {
	if len(p.w.procs) != p.w.profNP {
		// The values of another decomposition: a peer, and a length
		// that must match what a peer sends, belong to the np they were
		// recorded at.
		return V{}, false
	}
	ra := r.byRank[p.w.profRank(p.rank)]
	if ra == nil || len(ra.Runs) == 0 {
		return V{}, false
	}
	if p.argCursors == nil {
		p.argCursors = make([]argCursor, p.w.comp.cp.nArgCursors)
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
	vals := ra.Runs[c.run].Vals
	if r.slice == nil {
		return intV(vals[0]), true
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
		// The program's own buffer, resliced: what it receives lands
		// where the program reads it.
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
	return v, true
}
