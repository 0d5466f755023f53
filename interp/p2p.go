// This file defines point-to-point communication: communicators, MPI
// matching (posted and unexpected queues, wildcards, non-overtaking) and
// the LogGOPS costs of the eager and rendezvous protocols.
//
// Costs, with o_s = SendOverhead(s), o_r = RecvOverhead(s), T = Transfer(s)
// = o + L + (s−1)G of the link between the ranks, g_s = Gap(s):
//
//   - eager (s ≤ S, Bsend, Rsend): the send starts at t_s = max(clock,
//     NIC free) and returns at t_s + o_s; the NIC is free again at t_s +
//     g_s; the data arrives at t_s + T; the receive, posted at t_r,
//     completes at max(t_r, t_s + T) + o_r.
//   - rendezvous (s > S, Ssend, Issend): the request to send arrives at
//     t_s + o + L; the receiver answers when both are there, at t_m =
//     max(t_s + o + L, t_r); the data leaves at t_d = t_m + L and arrives
//     at t_d + T; the receive completes at t_d + T + o_r and the send at
//     t_d + T − L (its last byte has left). With a ping-pong table the two
//     legs (o + L, L) are machine.Link.Rendezvous's: at most what the
//     table leaves beyond the overheads, so that a ping-pong costs the
//     table's time.
//   - nonblocking calls cost o_s to start a send and nothing to post a
//     receive; Wait returns at the request's completion.

package interp

import (
	"fmt"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/trace"
)

// group is a communicator: its ranks as world ranks.
type group struct {
	id     int
	world  []int // comm rank → world rank; nil: the world (identity)
	size   int
	dims   []int
	period []bool
	colls  map[int64]*collInstance
	// spareColl is a finished instance, to reuse (coll.go).
	spareColl *collInstance
	// posted and unexpected queues per member (comm rank).
	posted     [][]*request
	unexpected [][]*message
}

func (g *group) worldRank(r int) int {
	if g.world == nil {
		return r
	}
	return g.world[r]
}

// commRef is a *commlib.Comm of one process: its group and its rank in
// it (one per member of a group), and the number of collectives it called
// on the group.
type commRef struct {
	g       *group
	rank    int
	collSeq int64
}

// request is a nonblocking operation (or the receive side of a blocking
// one).
type request struct {
	id     int64
	owner  *proc
	recv   bool
	done   bool
	doneAt int64
	// receive side
	g         *group
	src, tag  int
	buf       V
	elemBytes int64
	null      bool // a receive from ProcNull
	msg       *message
	// send side
	sendMsg *message
	site    string
	op      string
	waited  bool
	// blocking: the request of a blocking call (Send, Recv, Sendrecv),
	// never seen by the program: the world takes it back when the call's
	// wait ends (recycle.go).
	blocking bool
}

// message is a send in flight.
type message struct {
	id         int64
	g          *group
	src, dst   int // comm ranks
	tag        int
	bytes      int64
	data       []V
	count      int
	start      int64 // when the sender started injecting (eager) or asked (rendezvous)
	arrive     int64 // eager: arrival of the data; rendezvous: of the request to send
	rendezvous bool
	sreq       *request // the sender's request: completes with the transfer (rendezvous)
	sender     *proc
	srcWorld   int
	protocol   string
	site       string
	sreqMem    request // sreq's memory: one allocation for both
	// holds counts the ends that may still read the message: its
	// sender's request and the receive it matches; each end lets go when
	// its blocking call returns, and the message is recycled at zero
	// (recycle.go).
	holds int8
	spare []V // the capacity of a recycled message's data
}

// bufInfo returns the elements, the count and the bytes of a buffer
// argument (a slice in an interface).
func bufInfo(v V) (s *sliceV, count int, bytes int64) {
	i, _ := v.R.(*iface)
	if i == nil {
		return nil, 0, 0
	}
	s, _ = i.v.R.(*sliceV)
	if s == nil {
		return nil, 0, 0
	}
	return s, s.len, int64(s.len) * i.esize
}

// link returns the cost model between two world ranks.
func (w *World) link(a, b int) *linkCost {
	if a < 0 || b < 0 || w.sameNode(a, b) { // no peer (ProcNull): costs of the node
		return &w.intra
	}
	return &w.inter
}

// sameNode reports whether two world ranks share a node (the machine's
// mapping, computed once per rank).
func (w *World) sameNode(a, b int) bool {
	if w.nodeOf == nil {
		np := len(w.procs)
		w.nodeOf = make([]int32, np)
		for r := range np {
			w.nodeOf[r] = int32(w.mach.NodeOf(r, np))
		}
	}
	return w.nodeOf[a] == w.nodeOf[b]
}

func matches(r *request, m *message) bool {
	return (r.src == commlib.AnySource || r.src == m.src) && (r.tag == commlib.AnyTag || r.tag == m.tag)
}

// send starts a send of buf from p (comm rank me in g) to dest. It returns
// the sender's request (completing when the send would return); blocking
// says that it is a blocking call's, which the program never sees.
func (p *proc) send(g *group, me int, buf V, dest, tag int, proto, op, site string, blocking bool) (*request, string) {
	w := p.w
	if dest == commlib.ProcNull {
		return &request{owner: p, done: true, doneAt: p.main.clock, op: op}, ""
	}
	if dest < 0 || dest >= g.size {
		return nil, fmt.Sprintf("%s: invalid destination rank %d (communicator of %d ranks)", op, dest, g.size)
	}
	if tag < 0 {
		return nil, fmt.Sprintf("%s: invalid tag %d", op, tag)
	}
	s, count, bytes := bufInfo(buf)
	srcW, dstW := g.worldRank(me), g.worldRank(dest)
	lk := w.link(srcW, dstW)
	w.msgID++
	w.messages++
	w.events++
	m := w.newMessage()
	m.id, m.g, m.src, m.dst, m.tag, m.bytes, m.count = w.msgID, g, me, dest, tag, bytes, count
	m.sender, m.srcWorld, m.protocol, m.site = p, srcW, proto, site
	if s != nil && s.a != nil && s.a.elems != nil {
		m.data = append(m.spare[:0], window(s)...)
	}
	t := p.main.clock
	m.sreqMem = request{id: w.nextReq(), owner: p, sendMsg: m, op: op, site: site, blocking: blocking}
	sreq := &m.sreqMem
	m.sreq = sreq
	switch proto {
	case "sync":
		m.rendezvous = true
	case "eager":
		m.rendezvous = bytes > lk.eager
		if m.rendezvous {
			proto = "rendezvous"
			m.protocol = proto
		}
	}
	if m.rendezvous {
		m.start = t
		m.arrive = addTime(t, lk.request(bytes))
	} else {
		start := max(t, p.nicFree)
		p.nicFree = addTime(start, lk.gap(bytes))
		m.start = start
		m.arrive = addTime(start, lk.transfer(bytes))
		sreq.done, sreq.doneAt = true, addTime(start, lk.sendOvh(bytes))
	}
	if proto == "ready" && !w.hasPosted(g, dest, m) {
		return nil, fmt.Sprintf("Rsend to rank %d tag %d: no matching receive is posted", dest, tag)
	}
	// Match a posted receive, in posting order.
	q := g.posted[dest]
	for i, r := range q {
		if r.g == g && matches(r, m) {
			g.posted[dest] = removeAt(q, i)
			w.match(r, m, max(r.postedAt(), 0))
			return sreq, ""
		}
	}
	g.unexpected[dest] = append(g.unexpected[dest], m)
	return sreq, ""
}

func (r *request) postedAt() int64 { return r.doneAt }

// removeAt removes q[i] in place, keeping the order (posting order matters
// for matching) and the backing array (the queues are reused all run).
func removeAt[T any](q []*T, i int) []*T {
	copy(q[i:], q[i+1:])
	q[len(q)-1] = nil
	return q[:len(q)-1]
}

func (w *World) hasPosted(g *group, dest int, m *message) bool {
	for _, r := range g.posted[dest] {
		if matches(r, m) {
			return true
		}
	}
	return false
}

func (w *World) nextReq() int64 { w.reqID++; return w.reqID }

// recv posts a receive of p into buf from src. It returns the request;
// blocking says that it is a blocking call's, which the program never
// sees.
func (p *proc) recv(g *group, me int, buf V, src, tag int, op, site string, blocking bool) (*request, string) {
	w := p.w
	r := w.newRequest()
	*r = request{id: w.nextReq(), owner: p, recv: true, g: g, src: src, tag: tag, buf: buf, op: op, site: site, blocking: blocking}
	if src == commlib.ProcNull {
		r.done, r.doneAt = true, p.main.clock
		r.null = true
		return r, ""
	}
	if src != commlib.AnySource && (src < 0 || src >= g.size) {
		return nil, fmt.Sprintf("%s: invalid source rank %d (communicator of %d ranks)", op, src, g.size)
	}
	posted := p.main.clock
	q := g.unexpected[me]
	for i, m := range q {
		if matches(r, m) {
			g.unexpected[me] = removeAt(q, i)
			w.match(r, m, posted)
			return r, ""
		}
	}
	r.doneAt = posted // the posting time, until it completes
	g.posted[me] = append(g.posted[me], r)
	return r, ""
}

// match pairs a receive posted at tr with a message: it moves the data
// and fixes both completion times.
func (w *World) match(r *request, m *message, tr int64) {
	w.events++
	_, rcount, _ := bufInfo(r.buf)
	if m.count > rcount && r.buf.R != nil {
		r.owner.err = &Error{Rank: r.owner.rank, Pos: r.site, Msg: fmt.Sprintf("%s: message of %d elements from rank %d truncated to %d", r.op, m.count, m.src, rcount)}
	}
	if s, _, _ := bufInfo(r.buf); s != nil && m.data != nil {
		for i := range min(len(m.data), s.len) {
			s.a.store(s.off+i, m.data[i])
		}
	}
	lk := w.link(m.srcWorld, r.g.worldRank(m.dst))
	var recvDone int64
	if m.rendezvous {
		tm := max(m.arrive, tr)
		td := addTime(tm, lk.answer(m.bytes))
		arrive := addTime(td, lk.transfer(m.bytes))
		recvDone = addTime(arrive, lk.recvOvh(m.bytes))
		m.sreq.doneAt = subTime(arrive, lk.latency)
		w.complete(m.sreq)
	} else {
		recvDone = addTime(max(tr, m.arrive), lk.recvOvh(m.bytes))
	}
	r.msg = m
	r.doneAt = recvDone
	w.complete(r)
}

// complete marks a request done and resumes its owner if it waits for it.
func (w *World) complete(r *request) {
	r.done = true
	p := r.owner
	if p == nil || p.waitReqs == nil {
		return
	}
	w.checkWait(p)
}

// checkWait resumes p if the requests it waits for are done.
func (w *World) checkWait(p *proc) {
	if p.waitAny {
		for _, r := range p.waitReqs {
			if r.done {
				w.resume(p, max(r.doneAt, p.waitEnter), p.waitOvh)
				return
			}
		}
		return
	}
	t := p.waitEnter
	for _, r := range p.waitReqs {
		if !r.done {
			return
		}
		t = max(t, r.doneAt)
	}
	w.resume(p, t, p.waitOvh)
}

// waitFor blocks p until every request (or, with any, one of them) is
// done; ovh is the overhead part of the time. It returns cNext when no
// blocking is needed (the clock moves to the completion).
func (p *proc) waitFor(reqs []*request, any bool, ovh int64, op, site string) ctl {
	p.waitEnter = p.main.clock
	p.waitReqs = reqs
	p.waitAny = any
	p.waitOvh = ovh
	p.waitOp, p.waitSite = op, site
	p.lastPeer = noPeer
	for _, r := range reqs {
		if !r.done && r.recv && r.src >= 0 {
			p.lastPeer = r.g.worldRank(r.src)
		} else if !r.done && r.sendMsg != nil {
			p.lastPeer = r.sendMsg.g.worldRank(r.sendMsg.dst)
		}
	}
	// Already complete?
	t, ready := p.waitEnter, !any
	for _, r := range reqs {
		switch {
		case any && r.done:
			t, ready = max(r.doneAt, p.waitEnter), true
		case !any && !r.done:
			ready = false
		case !any:
			t = max(t, r.doneAt)
		}
		if any && ready {
			break
		}
	}
	if len(reqs) == 0 {
		ready = true
	}
	if ready {
		p.waitReqs = nil
		t = p.w.woken(max(t, addTime(p.waitEnter, ovh)), p.waitEnter, ovh)
		if p.overflowed(t, site, op) {
			return cStop
		}
		p.overhead += ovh
		p.wait += t - p.waitEnter - ovh
		p.main.clock = t
		if f := p.onDone; f != nil {
			p.onDone = nil
			f(p)
		}
		p.w.endWait(reqs)
		if p.cores != nil && p.cur == &p.main && t > addTime(p.waitEnter, ovh) {
			return cPark
		}
		return cNext
	}
	return cBlock
}

// statusV is the Status of a completed receive (zero for others).
func (r *request) statusV() V {
	switch {
	case r.null:
		return statusV(commlib.ProcNull, commlib.AnyTag, 0)
	case r.msg != nil:
		return statusV(r.msg.src, r.msg.tag, r.msg.count)
	}
	return statusV(0, 0, 0)
}

func statusV(src, tag, count int) V {
	st := &statusMem{}
	st.fields = [3]V{intV(int64(src)), intV(int64(tag)), intV(int64(count))}
	st.f = st.fields[:]
	return V{R: &st.structV}
}

// statusMem holds a Status and its fields in one allocation.
type statusMem struct {
	structV
	fields [3]V
}

// linkCost is a link's LogGOPS costs with the eager limit. It keeps the
// costs of the last size it was asked for: the messages of a loop have
// one size, and the costs (a division each) are then computed once.
type linkCost struct {
	latency     int64
	eager       int64
	rendezvousF func(int64) (request, answer trace.Time)
	transferF   func(int64) trace.Time
	sendOvhF    func(int64) trace.Time
	recvOvhF    func(int64) trace.Time
	gapF        func(int64) trace.Time
	size        int64 // the size of costs; -1: none yet
	costs       sizeCosts
}

// sizeCosts are a link's costs for one message size: with the
// rendezvous handshake's two legs (machine.Link.Rendezvous).
type sizeCosts struct{ transfer, sendOvh, recvOvh, gap, request, answer int64 }

func (l *linkCost) of(s int64) *sizeCosts {
	if s != l.size {
		l.size = s
		req, ans := l.rendezvousF(s)
		l.costs = sizeCosts{int64(l.transferF(s)), int64(l.sendOvhF(s)), int64(l.recvOvhF(s)), int64(l.gapF(s)), int64(req), int64(ans)}
	}
	return &l.costs
}

func (l *linkCost) request(s int64) int64 { return l.of(s).request }
func (l *linkCost) answer(s int64) int64  { return l.of(s).answer }

func (l *linkCost) transfer(s int64) int64 { return l.of(s).transfer }
func (l *linkCost) sendOvh(s int64) int64  { return l.of(s).sendOvh }
func (l *linkCost) recvOvh(s int64) int64  { return l.of(s).recvOvh }
func (l *linkCost) gap(s int64) int64      { return l.of(s).gap }
