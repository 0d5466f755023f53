// This file defines collective operations: every member's call meets in
// one instance; when the last member enters, the data moves and each
// member's exit time is computed by running the algorithm's schedule of
// point-to-point steps over the members' enter times (binomial trees,
// recursive doubling, ring, Rabenseifner, Bruck, pairwise, linear), with
// the same LogGOPS costs as point-to-point messages.

package interp

import (
	"fmt"
	"math/bits"
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
	short, ok := strings.CutPrefix(name, "Comm.")
	if !ok {
		return nil
	}
	spec, ok := collSpecs[short]
	if !ok {
		return nil
	}
	return func(p *proc, fr *frame) ctl {
		if p.mustYield() {
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
			p.w.collID++
			in = g.newCollInstance(len(args))
			in.id, in.name = p.w.collID, short
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
	return sim.t, sim.ovh
}

// run runs the schedule of collective name and returns its algorithm.
func (sim *schedule) run(name string, root int, bytes []int64) machine.Algorithm {
	w, n := sim.w, sim.g.size
	var s int64
	for _, b := range bytes {
		s = max(s, b)
	}
	alg := machine.Linear
	if _, ok := collSpecs[name]; ok && !collSpecs[name].split {
		if a, err := w.mach.CollectiveAlgorithm(strings.ToLower(name), s, n); err == nil {
			alg = a
		}
	}
	switch name {
	case "Split", "Dup", "CartCreate":
		sim.allgatherRD(8) // the members exchange their (color, key)
		alg = machine.RecursiveDoubling
	case "Barrier":
		sim.barrier(alg)
	case "Bcast":
		sim.bcast(alg, root, s)
	case "Reduce":
		sim.reduce(alg, root, s)
	case "Allreduce":
		sim.allreduce(alg, s)
	case "Gather", "Gatherv":
		sim.gather(alg, root, bytes)
	case "Scatter", "Scatterv":
		sim.scatter(alg, root, s)
	case "Allgather", "Allgatherv":
		sim.allgather(alg, s)
	case "Alltoall", "Alltoallv":
		sim.alltoall(alg, s)
	case "Scan", "Exscan":
		sim.scan(s)
	}
	return alg
}

// schedule simulates point-to-point steps over the members' clocks.
type schedule struct {
	w     *World
	g     *group
	t     []int64
	spare []int64
	ovh   []int64 // each member's send and receive overheads (o + (s−1)·O per message)
	// record, when set (tests), sees every message each member sends
	// (send) or receives, in round order: rounds count the exchanges,
	// and each message of linear is a round of its own.
	record func(round, member int, send bool, peer int, bytes int64)
	round  int
}

func (s *schedule) link(a, b int) *linkCost { return s.w.link(s.g.worldRank(a), s.g.worldRank(b)) }

// stepCost is the cost of one message of a round at one level.
type stepCost struct{ send, transfer, recv int64 }

// exchange is one round in which each rank r sends bytes to to(r) and
// receives from from(r) (−1: none), all at once.
func (s *schedule) exchange(to, from func(r int) int, bytes int64) {
	n := len(s.t)
	old := s.t
	if s.spare == nil {
		s.spare = make([]int64, n)
	}
	nt := s.spare
	w := s.w
	var cost [2]stepCost // intra, inter
	for i, lk := range []*linkCost{&w.intra, &w.inter} {
		cost[i] = stepCost{lk.sendOvh(bytes), lk.transfer(bytes), lk.recvOvh(bytes)}
	}
	level := func(a, b int) int {
		if w.sameNode(s.g.worldRank(a), s.g.worldRank(b)) {
			return 0
		}
		return 1
	}
	if s.record != nil {
		s.recordExchange(to, from, bytes)
	}
	var sent int64
	for r := range n {
		t := old[r]
		if d := to(r); d >= 0 {
			t = addTime(t, cost[level(r, d)].send)
			s.ovh[r] = addTime(s.ovh[r], cost[level(r, d)].send)
			sent++
		}
		if f := from(r); f >= 0 {
			c := &cost[level(f, r)]
			t = addTime(max(t, addTime(old[f], c.transfer)), c.recv)
			s.ovh[r] = addTime(s.ovh[r], c.recv)
		}
		nt[r] = t
	}
	s.t, s.spare = nt, old
	s.w.messages += sent
}

func (s *schedule) recordExchange(to, from func(r int) int, bytes int64) {
	for r := range len(s.t) {
		if d := to(r); d >= 0 {
			s.record(s.round, r, true, d, bytes)
		}
		if f := from(r); f >= 0 {
			s.record(s.round, r, false, f, bytes)
		}
	}
	s.round++
}

// tree runs a binomial tree rooted at root: down (bcast, scatter) or up
// (reduce, gather; size(v) gives the bytes a subtree sends).
func (s *schedule) tree(root int, down bool, size func(vrank, span int) int64) {
	n := len(s.t)
	rounds := bits.Len(uint(n - 1))
	abs := func(v int) int { return (v + root) % n }
	if down {
		for k := rounds - 1; k >= 0; k-- {
			step := 1 << k
			s.exchange(func(r int) int {
				v := (r - root + n) % n
				if v%(2*step) == 0 && v+step < n {
					return abs(v + step)
				}
				return -1
			}, func(r int) int {
				v := (r - root + n) % n
				if v%(2*step) == step {
					return abs(v - step)
				}
				return -1
			}, size(0, step))
		}
		return
	}
	for k := 0; k < rounds; k++ {
		step := 1 << k
		s.exchange(func(r int) int {
			v := (r - root + n) % n
			if v%(2*step) == step {
				return abs(v - step)
			}
			return -1
		}, func(r int) int {
			v := (r - root + n) % n
			if v%(2*step) == 0 && v+step < n {
				return abs(v + step)
			}
			return -1
		}, size(0, step))
	}
}

// linear: the root exchanges with every other member in rank order.
func (s *schedule) linear(root int, toRoot bool, bytes func(r int) int64) {
	n := len(s.t)
	t := s.t
	if s.record != nil {
		for r := range n {
			if r != root {
				s.record(s.round, r, toRoot, root, bytes(r))
				s.record(s.round, root, !toRoot, r, bytes(r))
				s.round++
			}
		}
	}
	if toRoot {
		at := t[root]
		for r := range n {
			if r == root {
				continue
			}
			lk := s.link(r, root)
			sent := t[r]
			t[r] = addTime(t[r], lk.sendOvh(bytes(r)))
			at = addTime(max(at, addTime(sent, lk.transfer(bytes(r)))), lk.recvOvh(bytes(r)))
			s.ovh[r] = addTime(s.ovh[r], lk.sendOvh(bytes(r)))
			s.ovh[root] = addTime(s.ovh[root], lk.recvOvh(bytes(r)))
		}
		t[root] = at
	} else {
		at := t[root]
		for r := range n {
			if r == root {
				continue
			}
			lk := s.link(root, r)
			sent := at
			at = addTime(at, lk.sendOvh(bytes(r)))
			t[r] = addTime(max(t[r], addTime(sent, lk.transfer(bytes(r)))), lk.recvOvh(bytes(r)))
			s.ovh[root] = addTime(s.ovh[root], lk.sendOvh(bytes(r)))
			s.ovh[r] = addTime(s.ovh[r], lk.recvOvh(bytes(r)))
		}
		t[root] = at
	}
	s.w.messages += int64(n - 1)
}

func (s *schedule) barrier(alg machine.Algorithm) {
	n := len(s.t)
	if n == 1 {
		return
	}
	if alg == machine.Linear {
		s.linear(0, true, func(int) int64 { return 0 })
		s.linear(0, false, func(int) int64 { return 0 })
		return
	}
	// Dissemination (Bruck's barrier; recursive doubling for powers of two
	// takes the same rounds).
	for k := 1; k < n; k <<= 1 {
		s.exchange(func(r int) int { return (r + k) % n }, func(r int) int { return (r - k + n) % n }, 0)
	}
}

func (s *schedule) bcast(alg machine.Algorithm, root int, bytes int64) {
	n := len(s.t)
	switch {
	case n == 1:
	case alg == machine.Linear:
		s.linear(root, false, func(int) int64 { return bytes })
	case alg == machine.ScatterAllgather || alg == machine.Ring:
		chunk := (bytes + int64(n) - 1) / int64(n)
		s.tree(root, true, func(_, span int) int64 { return chunk * int64(span) })
		s.ring(chunk)
	default:
		s.tree(root, true, func(int, int) int64 { return bytes })
	}
}

func (s *schedule) reduce(alg machine.Algorithm, root int, bytes int64) {
	n := len(s.t)
	switch {
	case n == 1:
	case alg == machine.Linear:
		s.linear(root, true, func(int) int64 { return bytes })
	case alg == machine.Rabenseifner:
		s.halving(bytes)
		s.tree(root, false, func(_, span int) int64 { return max(bytes/int64(n)*int64(span), 1) })
	default:
		s.tree(root, false, func(int, int) int64 { return bytes })
	}
}

func (s *schedule) allreduce(alg machine.Algorithm, bytes int64) {
	n := len(s.t)
	switch {
	case n == 1:
	case alg == machine.Linear:
		s.linear(0, true, func(int) int64 { return bytes })
		s.linear(0, false, func(int) int64 { return bytes })
	case alg == machine.Binomial:
		s.tree(0, false, func(int, int) int64 { return bytes })
		s.tree(0, true, func(int, int) int64 { return bytes })
	case alg == machine.Ring:
		chunk := (bytes + int64(n) - 1) / int64(n)
		s.ring(chunk)
		s.ring(chunk)
	case alg == machine.Rabenseifner:
		s.halving(bytes)
		s.doubling(func(k int) int64 { return max(bytes>>uint(bits.Len(uint(n))-1-k), 1) })
	default:
		s.doubling(func(int) int64 { return bytes })
	}
}

// doubling runs recursive doubling with MPICH's handling of a count that
// is not a power of two: the extra ranks fold into partners first and get
// the result back last.
func (s *schedule) doubling(size func(k int) int64) {
	n := len(s.t)
	pof2 := 1 << (bits.Len(uint(n)) - 1)
	rem := n - pof2
	full := size(bits.Len(uint(pof2)) - 1)
	if rem > 0 {
		// ranks 2i+1 (i < rem) send to 2i
		s.exchange(func(r int) int {
			if r < 2*rem && r%2 == 1 {
				return r - 1
			}
			return -1
		}, func(r int) int {
			if r < 2*rem && r%2 == 0 {
				return r + 1
			}
			return -1
		}, full)
	}
	vrank := func(r int) int {
		switch {
		case r < 2*rem && r%2 == 1:
			return -1
		case r < 2*rem:
			return r / 2
		}
		return r - rem
	}
	real := func(v int) int {
		if v < rem {
			return 2 * v
		}
		return v + rem
	}
	for k, mask := 0, 1; mask < pof2; k, mask = k+1, mask<<1 {
		partner := func(r int) int {
			v := vrank(r)
			if v < 0 {
				return -1
			}
			return real(v ^ mask)
		}
		s.exchange(partner, partner, size(k))
	}
	if rem > 0 {
		s.exchange(func(r int) int {
			if r < 2*rem && r%2 == 0 {
				return r + 1
			}
			return -1
		}, func(r int) int {
			if r < 2*rem && r%2 == 1 {
				return r - 1
			}
			return -1
		}, full)
	}
}

// halving is the reduce-scatter of Rabenseifner: recursive halving.
func (s *schedule) halving(bytes int64) {
	n := len(s.t)
	pof2 := 1 << (bits.Len(uint(n)) - 1)
	k := 0
	for mask := pof2 >> 1; mask > 0; mask >>= 1 {
		k++
		size := max(bytes>>uint(k), 1)
		partner := func(r int) int {
			if r >= pof2 {
				return -1
			}
			return r ^ mask
		}
		s.exchange(partner, partner, size)
	}
}

// ring runs n−1 steps of a ring, chunk bytes each.
func (s *schedule) ring(chunk int64) {
	n := len(s.t)
	if s.huge(n - 1) {
		s.uniform(n-1, chunk)
		return
	}
	for range n - 1 {
		s.exchange(func(r int) int { return (r + 1) % n }, func(r int) int { return (r - 1 + n) % n }, chunk)
	}
}

// huge reports a schedule of rounds × members too long to simulate step
// by step (more than 2·10⁸ steps): it is then costed uniformly.
func (s *schedule) huge(rounds int) bool { return int64(rounds)*int64(len(s.t)) > 2e8 }

// uniform costs rounds identical steps from the latest enter time: the
// approximation for huge schedules.
func (s *schedule) uniform(rounds int, bytes int64) {
	var latest int64
	for _, t := range s.t {
		latest = max(latest, t)
	}
	lk := s.link(0, len(s.t)-1)
	step := addTime(max(lk.sendOvh(bytes), lk.transfer(bytes)), lk.recvOvh(bytes))
	ovh := mulTime(addTime(lk.sendOvh(bytes), lk.recvOvh(bytes)), int64(rounds))
	for i := range s.t {
		s.t[i] = addTime(latest, mulTime(step, int64(rounds)))
		s.ovh[i] = addTime(s.ovh[i], ovh)
	}
	s.w.noteAssumption("collective", fmt.Sprintf("a schedule of %d rounds × %d ranks was costed uniformly from the latest rank's entry", rounds, len(s.t)))
}

func (s *schedule) gather(alg machine.Algorithm, root int, bytes []int64) {
	n := len(s.t)
	if n == 1 {
		return
	}
	if alg == machine.Binomial {
		b := bytes[(root+1)%n]
		s.tree(root, false, func(_, span int) int64 { return b * int64(span) })
		return
	}
	s.linear(root, true, func(r int) int64 { return bytes[r] })
}

func (s *schedule) scatter(alg machine.Algorithm, root int, bytes int64) {
	n := len(s.t)
	if n == 1 {
		return
	}
	per := max(bytes/int64(n), 1)
	if alg == machine.Binomial {
		s.tree(root, true, func(_, span int) int64 { return per * int64(span) })
		return
	}
	s.linear(root, false, func(int) int64 { return per })
}

func (s *schedule) allgather(alg machine.Algorithm, bytes int64) {
	n := len(s.t)
	switch {
	case n == 1:
	case alg == machine.Ring || alg == machine.Linear:
		s.ring(bytes)
	case alg == machine.Bruck:
		for k := 1; k < n; k <<= 1 {
			b := bytes * int64(min(k, n-k))
			s.exchange(func(r int) int { return (r - k + n) % n }, func(r int) int { return (r + k) % n }, b)
		}
	default:
		s.doubling(func(k int) int64 { return bytes << uint(k) })
	}
}

// allgatherRD is the exchange a communicator constructor needs.
func (s *schedule) allgatherRD(bytes int64) { s.allgather(machine.RecursiveDoubling, bytes) }

func (s *schedule) alltoall(alg machine.Algorithm, bytes int64) {
	n := len(s.t)
	if n == 1 {
		return
	}
	block := max(bytes/int64(n), 1)
	switch alg {
	case machine.Bruck:
		for k := 1; k < n; k <<= 1 {
			s.exchange(func(r int) int { return (r + k) % n }, func(r int) int { return (r - k + n) % n }, block*int64((n+1)/2))
		}
	default: // pairwise and linear: n−1 exchanges
		if s.huge(n - 1) {
			s.uniform(n-1, block)
			return
		}
		for k := 1; k < n; k++ {
			s.exchange(func(r int) int { return (r + k) % n }, func(r int) int { return (r - k + n) % n }, block)
		}
	}
}

func (s *schedule) scan(bytes int64) {
	n := len(s.t)
	for k := 1; k < n; k <<= 1 {
		s.exchange(func(r int) int {
			if r+k < n {
				return r + k
			}
			return -1
		}, func(r int) int {
			if r-k >= 0 {
				return r - k
			}
			return -1
		}, bytes)
	}
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
