// This file defines collective operations: every member's call meets in
// one instance; when the last member enters, the data moves and each
// member's exit time is computed by running the algorithm's schedule of
// point-to-point steps over the members' enter times (binomial trees,
// recursive doubling, ring, Rabenseifner, Bruck, pairwise, linear), with
// the same LogGOPS costs as point-to-point messages.

package interp

import (
	"fmt"
	"sort"
	"strings"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/commlib/catalog"
	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/trace"
)

// collInstance is one call of a collective by the members of a group.
type collInstance struct {
	id      int64
	name    string
	root    int
	enter   []int64
	procs   []*proc
	frames  []*frame
	args    [][]V // per member, in argMem
	argMem  []V
	bytes   []int64
	arrived int
	sites   []string
	dsts    []int             // per member, the slot of its call's result
	alg     machine.Algorithm // the schedule collectiveTimes ran, for the trace
}

// collSpec says, per collective, which arguments are what (from commlib's
// catalog).
type collSpec struct {
	root    int  // index of the root argument, -1 for none
	op      int  // index of the reduction operator, -1 for none
	sendBuf int  // index of the buffer of the member's contribution (its bytes), -1 for none
	split   bool // Split/Dup/CartCreate: returns a communicator
}

// collSpecs holds the collectives and communicator constructors of the
// catalog, by trace name ("Allreduce").
var collSpecs = map[string]collSpec{}

func init() {
	for _, op := range catalog.All() {
		if op.Class == catalog.ClassCollective || op.Class == catalog.ClassCommCreate {
			collSpecs[op.TraceName()] = collSpec{root: op.Arg(catalog.ArgRoot), op: op.Arg(catalog.ArgReduction),
				sendBuf: op.Contribution(), split: op.Class == catalog.ClassCommCreate}
		}
	}
}

func (c *compiler) collectiveOp(name string, args []operand, dst int, site string) op {
	sid := c.siteID(site) // the burst of compute after the operation starts here (noise.go)
	short, ok := strings.CutPrefix(name, "Comm.")
	if !ok {
		return nil
	}
	spec, ok := collSpecs[short]
	if !ok {
		return nil
	}
	return func(p *proc, fr *frame) ctl {
		if p.mustYield(sid) {
			return cYield
		}
		if c := p.commOnly(site); c != cNext {
			return c
		}
		cm := commOf(args[0].get(fr))
		g := cm.g
		seq := cm.collSeq
		cm.collSeq++
		in := g.colls[seq]
		if in == nil {
			in = g.newCollInstance(len(args))
			in.id, in.name = p.w.newID(), short
			if spec.root >= 0 {
				in.root = int(args[spec.root].get(fr).I)
			}
			g.colls[seq] = in
		}
		if in.name != short {
			return p.fail(site, fmt.Sprintf("mismatched collectives: rank %d calls %s while rank %d's call number %d on this communicator is %s (at %s)",
				cm.rank, short, firstArrived(in), seq+1, in.name, in.sites[firstArrived(in)]))
		}
		me := cm.rank
		// The arguments, in the instance's memory (one allocation for
		// all members: the call of a collective with the same name has
		// the same arguments).
		vals := in.argMem[me*len(args) : (me+1)*len(args)]
		for i, a := range args {
			vals[i] = a.get(fr)
		}
		if spec.root >= 0 {
			if r := int(vals[spec.root].I); r != in.root || r < 0 || r >= g.size {
				return p.fail(site, fmt.Sprintf("%s: root %d, other ranks use %d (communicator of %d ranks)", short, r, in.root, g.size))
			}
		}
		in.enter[me] = p.main.clock
		in.procs[me] = p
		in.frames[me] = fr
		in.args[me] = vals
		in.sites[me] = site
		in.dsts[me] = dst
		if spec.sendBuf >= 0 {
			_, _, in.bytes[me] = bufInfo(vals[spec.sendBuf])
		}
		in.arrived++
		p.waitEnter = p.main.clock
		p.waitOp, p.waitSite, p.lastPeer = short, site, noPeer
		p.waitReqs = nil
		if in.arrived < g.size {
			return cBlock
		}
		delete(g.colls, seq)
		if err := p.w.finishCollective(g, in, spec); err != "" {
			return p.fail(site, err)
		}
		return cBlock
	}
}

func firstArrived(in *collInstance) int {
	for i, p := range in.procs {
		if p != nil {
			return i
		}
	}
	return 0
}

// finishCollective runs when the last member enters: data, exit times,
// results, resumption. Every member, the last included, is resumed
// through the ready queue.
func (w *World) finishCollective(g *group, in *collInstance, spec collSpec) string {
	w.events += int64(g.size)
	results, err := w.collectiveData(g, in)
	if err != "" {
		return err
	}
	exits, ovh := w.collectiveTimes(g, in)
	for r, p := range in.procs {
		if results != nil {
			// Each member's own result slot: members may call the
			// collective from different sites.
			if d := in.dsts[r]; d >= 0 {
				in.frames[r].s[d] = results[r]
			}
		}
		p.blockedInColl(in, r, exits[r], g)
		// Its sends and receives are communication overhead, the rest
		// of its time in the collective waiting (the member that
		// completed the instance returned cBlock too).
		w.resume(p, exits[r], min(ovh[r], exits[r]-in.enter[r]))
	}
	g.releaseCollInstance(in)
	return ""
}

// newCollInstance returns an instance for g's members, each with nargs
// arguments: the group's spare one when it has one, else a new one.
func (g *group) newCollInstance(nargs int) *collInstance {
	in := g.spareColl
	if in == nil {
		n := g.size
		in = &collInstance{enter: make([]int64, n), procs: make([]*proc, n), frames: make([]*frame, n), args: make([][]V, n),
			bytes: make([]int64, n), sites: make([]string, n), dsts: make([]int, n)}
	}
	g.spareColl = nil
	if len(in.argMem) != g.size*nargs {
		in.argMem = make([]V, g.size*nargs)
	}
	in.root = -1
	return in
}

// releaseCollInstance keeps a finished instance as g's spare: nothing
// refers to it once its members are resumed (their results are stored,
// their trace events made). Recycling is checked like that of messages
// (recycle.go).
func (g *group) releaseCollInstance(in *collInstance) {
	switch recycling {
	case recycleOff:
		return
	case recyclePoison:
		for i := range in.enter {
			in.enter[i], in.bytes[i], in.procs[i], in.frames[i], in.args[i], in.sites[i], in.dsts[i] = poison, poison, nil, nil, nil, "released", -7
		}
		in.id, in.name, in.root, in.arrived, in.alg = poison, "released", -7, -7, "released"
		return
	}
	clear(in.enter)
	clear(in.procs)
	clear(in.frames)
	clear(in.args)
	clear(in.bytes)
	clear(in.sites)
	clear(in.dsts)
	clear(in.argMem)
	*in = collInstance{enter: in.enter, procs: in.procs, frames: in.frames, args: in.args, bytes: in.bytes, sites: in.sites, dsts: in.dsts, argMem: in.argMem}
	g.spareColl = in
}

// blockedInColl records the trace event of a member's call.
func (p *proc) blockedInColl(in *collInstance, r int, exit int64, g *group) {
	if p.w.cfg.Trace == nil {
		return
	}
	root := trace.NoPeer
	if in.root >= 0 {
		root = g.worldRank(in.root)
	}
	p.emit(trace.Event{Kind: trace.KindOp, Op: in.name, Peer: trace.NoPeer, Root: root, Bytes: in.bytes[r], Comm: g.id,
		Collective: in.id, Algorithm: string(in.alg), Site: in.sites[r], Enter: trace.Time(in.enter[r]), Exit: trace.Time(exit)})
}

// collectiveTimes returns each member's exit time and the part of its
// time in the collective spent sending and receiving (overhead), and sets
// in.alg to the algorithm it ran (trace.CollectiveRounds writes its
// messages out for the GOAL export).
func (w *World) collectiveTimes(g *group, in *collInstance) (exits, ovh []int64) {
	sim := &schedule{w: w, g: g, t: append([]int64(nil), in.enter...), ovh: make([]int64, g.size)}
	in.alg = sim.run(in.name, in.root, in.bytes)
	w.chargeSelf(g, in, sim.t, sim.ovh)
	return sim.t, sim.ovh
}

// collectiveData moves the data of a completed collective and returns
// per-member results (communicators for Split, Dup, CartCreate), or nil.
func (w *World) collectiveData(g *group, in *collInstance) ([]V, string) {
	n := g.size
	buf := func(r, i int) *sliceV { s, _, _ := bufInfo(in.args[r][i]); return s }
	switch in.name {
	case "Bcast":
		src := buf(in.root, 1)
		for r := range n {
			if r != in.root {
				copyInto(buf(r, 1), 0, src, 0, sliceLen(src))
			}
		}
	case "Allreduce", "Reduce", "Scan", "Exscan":
		op := commlib.Op(in.args[0][3].I)
		isF := isFloatBuf(in.args[0][1])
		var acc []V
		for r := range n {
			sb := buf(r, 1)
			if in.name == "Exscan" && acc != nil {
				copyInto(buf(r, 2), 0, &sliceV{a: &array{n: len(acc), elems: acc}, len: len(acc)}, 0, len(acc))
			}
			if sb == nil {
				continue
			}
			if acc == nil {
				acc = make([]V, sb.len)
				for i := range acc {
					acc[i] = sb.a.load(sb.off + i)
				}
			} else {
				for i := range min(len(acc), sb.len) {
					acc[i] = reduceOp(op, acc[i], sb.a.load(sb.off+i), isF)
				}
			}
			if in.name == "Scan" {
				copyInto(buf(r, 2), 0, &sliceV{a: &array{n: len(acc), elems: append([]V(nil), acc...)}, len: len(acc)}, 0, len(acc))
			}
		}
		if acc != nil {
			res := &sliceV{a: &array{n: len(acc), elems: acc}, len: len(acc)}
			switch in.name {
			case "Allreduce":
				for r := range n {
					copyInto(buf(r, 2), 0, res, 0, len(acc))
				}
			case "Reduce":
				copyInto(buf(in.root, 2), 0, res, 0, len(acc))
			}
		}
	case "Gather", "Allgather":
		for r := range n {
			sb := buf(r, 1)
			k := sliceLen(sb)
			if in.name == "Gather" {
				copyInto(buf(in.root, 2), r*k, sb, 0, k)
			} else {
				for d := range n {
					copyInto(buf(d, 2), r*k, sb, 0, k)
				}
			}
		}
	case "Gatherv", "Allgatherv":
		ci, di := 3, 4
		if in.name == "Allgatherv" {
			ci, di = 3, 4
		}
		rootArgs := in.args[0]
		if in.name == "Gatherv" {
			rootArgs = in.args[in.root]
		}
		counts, displs := intsOf(rootArgs[ci]), intsOf(rootArgs[di])
		for r := range n {
			if r >= len(counts) || r >= len(displs) {
				break
			}
			if in.name == "Gatherv" {
				copyInto(buf(in.root, 2), displs[r], buf(r, 1), 0, counts[r])
			} else {
				for d := range n {
					copyInto(buf(d, 2), displs[r], buf(r, 1), 0, counts[r])
				}
			}
		}
	case "Scatter":
		sb := buf(in.root, 1)
		for r := range n {
			k := sliceLen(buf(r, 2))
			copyInto(buf(r, 2), 0, sb, r*k, k)
		}
	case "Scatterv":
		counts, displs := intsOf(in.args[in.root][2]), intsOf(in.args[in.root][3])
		for r := range min(n, len(counts), len(displs)) {
			copyInto(buf(r, 4), 0, buf(in.root, 1), displs[r], counts[r])
		}
	case "Alltoall":
		for r := range n {
			sb := buf(r, 1)
			k := sliceLen(sb) / max(n, 1)
			for d := range n {
				copyInto(buf(d, 2), r*k, sb, d*k, k)
			}
		}
	case "Alltoallv":
		for r := range n {
			sc, sd := intsOf(in.args[r][2]), intsOf(in.args[r][3])
			for d := range min(n, len(sc), len(sd)) {
				rd := intsOf(in.args[d][6])
				if r < len(rd) {
					copyInto(buf(d, 4), rd[r], buf(r, 1), sd[d], sc[d])
				}
			}
		}
	case "Dup":
		ng := w.newGroup(g.world, g.size)
		out := make([]V, n)
		for r := range n {
			out[r] = V{R: &commRef{g: ng, rank: r}}
		}
		return out, ""
	case "CartCreate":
		dims := intsOf(in.args[0][1])
		per := boolsOf(in.args[0][2])
		total := 1
		for _, d := range dims {
			total *= d
		}
		if total > n || len(per) != len(dims) {
			return nil, fmt.Sprintf("CartCreate: dims %v (%d ranks) and periods %v do not fit a communicator of %d ranks", dims, total, per, n)
		}
		world := make([]int, total)
		for r := range total {
			world[r] = g.worldRank(r)
		}
		ng := w.newGroup(world, total)
		ng.dims, ng.period = dims, per
		out := make([]V, n)
		for r := range n {
			if r < total {
				out[r] = V{R: &commRef{g: ng, rank: r}}
			}
		}
		return out, ""
	case "Split":
		type member struct{ color, key, rank int }
		byColor := map[int][]member{}
		for r := range n {
			c := int(in.args[r][1].I)
			byColor[c] = append(byColor[c], member{c, int(in.args[r][2].I), r})
		}
		out := make([]V, n)
		colors := make([]int, 0, len(byColor))
		for c := range byColor {
			colors = append(colors, c)
		}
		sort.Ints(colors)
		for _, c := range colors {
			ms := byColor[c]
			if c < 0 {
				continue // commlib's "undefined" color: no communicator
			}
			sort.SliceStable(ms, func(i, j int) bool {
				if ms[i].key != ms[j].key {
					return ms[i].key < ms[j].key
				}
				return ms[i].rank < ms[j].rank
			})
			world := make([]int, len(ms))
			for i, m := range ms {
				world[i] = g.worldRank(m.rank)
			}
			ng := w.newGroup(world, len(ms))
			for i, m := range ms {
				out[m.rank] = V{R: &commRef{g: ng, rank: i}}
			}
		}
		return out, ""
	}
	return nil, ""
}

func sliceLen(s *sliceV) int {
	if s == nil {
		return 0
	}
	return s.len
}

func isFloatBuf(v V) bool {
	i, _ := v.R.(*iface)
	if i == nil {
		return false
	}
	return isFloat(sliceElem(i.t))
}

func boolsOf(v V) []bool {
	s, _ := v.R.(*sliceV)
	if s == nil {
		return nil
	}
	out := make([]bool, s.len)
	for i := range out {
		out[i] = s.a.load(s.off + i).B()
	}
	return out
}

// copyInto copies k elements of src from so to dst from do (when both
// hold elements).
func copyInto(dst *sliceV, do int, src *sliceV, so, k int) {
	if dst == nil || src == nil || src.a == nil || src.a.elems == nil || dst.a.shape {
		return
	}
	for i := range k {
		if do+i >= dst.len || so+i >= src.len || do+i < 0 || so+i < 0 {
			return
		}
		dst.a.store(dst.off+do+i, src.a.load(src.off+so+i))
	}
}

// reduceOp combines two elements with a commlib operator, as commlib
// does.
func reduceOp(op commlib.Op, a, b V, isF bool) V {
	if isF {
		return floatV(op.CombineFloat64(a.F(), b.F()))
	}
	return intV(op.CombineInt64(a.I, b.I))
}
