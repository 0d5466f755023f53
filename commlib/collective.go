// This file defines the machinery shared by collective operations: every
// rank's call of the same collective meets in one instance, where its
// arguments are checked against the others' and its contribution deposited.

package commlib

import (
	"fmt"
	"runtime"

	"github.com/predict-tools/predict/trace"
)

// collSig is what every rank's call of one collective must agree on.
type collSig struct {
	op    string
	root  int // -1 for unrooted collectives
	rop   Op  // reduction operator, 0 when none
	kind  elemKind
	count int    // elements per rank, -1 when ranks may differ
	extra string // anything else that must match (Cartesian dims)
}

func (s collSig) String() string {
	str := s.op
	if s.root >= 0 {
		str += fmt.Sprintf(" root=%d", s.root)
	}
	if s.rop != 0 {
		str += " op=" + s.rop.String()
	}
	if s.kind != kindInvalid {
		if s.count >= 0 {
			str += fmt.Sprintf(" %d×%s", s.count, kinds[s.kind].name)
		} else {
			str += " []" + kinds[s.kind].name
		}
	}
	if s.extra != "" {
		str += " " + s.extra
	}
	return str
}

// collInstance is one call of a collective by all ranks of a communicator.
// Its fields are guarded by the communicator's mutex, except deposits that
// are immutable once made.
type collInstance struct {
	id        int64 // trace instance id
	seq       int64 // sequence number on the communicator
	sig       collSig
	firstRank int
	firstPCs  [8]uintptr

	arrived  []bool
	narrived int
	prefix   int   // ranks 0..prefix-1 have all arrived (Scan)
	deposits []any // per rank

	complete bool   // the finisher has run
	problem  string // an inconsistency the finisher found
	result   any

	queue    waitQueue
	departed int
}

// arrive registers the calling rank's call of the collective described by
// sig, with its contribution. The last rank to arrive runs finish (if not
// nil) under the communicator's lock: it may read every deposit and write
// every rank's result, since no other rank has left.
func (c *Comm) arrive(sig collSig, deposit any, finish func(inst *collInstance) string) *collInstance {
	sh := c.sh
	seq := c.collSeq
	c.collSeq++
	size := len(sh.group)
	sh.mu.Lock()
	inst := sh.colls[seq]
	if inst == nil {
		inst = &collInstance{id: c.w.nextColl.Add(1), seq: seq, sig: sig, firstRank: c.rank,
			arrived: make([]bool, size), deposits: make([]any, size)}
		runtime.Callers(3, inst.firstPCs[:])
		if sh.colls == nil {
			sh.colls = make(map[int64]*collInstance)
		}
		sh.colls[seq] = inst
	} else if inst.sig != sig {
		first, firstSite := inst.sig, siteOf(inst.firstPCs[:])
		firstRank := inst.firstRank
		sh.mu.Unlock()
		c.fail(sig.op, "collective call #%d on communicator %s does not match: this rank calls %v, rank %d called %v at %s",
			seq, sh.name, sig, firstRank, first, shortSite(firstSite))
	}
	inst.deposits[c.rank] = deposit
	inst.arrived[c.rank] = true
	inst.narrived++
	for inst.prefix < size && inst.arrived[inst.prefix] {
		inst.prefix++
	}
	var problem string
	if inst.narrived == size && finish != nil {
		problem = finish(inst)
		inst.problem = problem
		inst.complete = true
	}
	inst.queue.wakeAll()
	sh.mu.Unlock()
	if problem != "" {
		c.fail(sig.op, "%s", problem)
	}
	return inst
}

// await blocks until ready holds for inst (evaluated under the
// communicator's lock). peer is the rank waited for, or waitNoPeer.
func (c *Comm) collAwait(inst *collInstance, peer int, ready func(inst *collInstance) bool) {
	if size := len(c.sh.group); size == 1 {
		return
	}
	wt := c.w.newWaiter(c.p.rank, inst.sig.op)
	wt.comm, wt.coll, wt.peer = c.sh, inst, peer
	c.w.await(wt, &c.sh.mu, func(wt *waiter) bool {
		if ready(inst) {
			return true
		}
		inst.queue.add(wt)
		return false
	})
	wt.release()
	if inst.problem != "" {
		c.fail(inst.sig.op, "%s", inst.problem)
	}
}

// depart records that the calling rank is done with inst; the last to
// leave forgets it.
func (c *Comm) depart(inst *collInstance) {
	sh := c.sh
	sh.mu.Lock()
	inst.departed++
	if inst.departed == len(sh.group) {
		delete(sh.colls, inst.seq)
	}
	sh.mu.Unlock()
}

// Readiness conditions.
func allArrived(inst *collInstance) bool { return inst.narrived == len(inst.arrived) }
func completed(inst *collInstance) bool  { return inst.complete }

func rootArrived(root int) func(*collInstance) bool {
	return func(inst *collInstance) bool { return inst.arrived[root] }
}

func prefixArrived(n int) func(*collInstance) bool {
	return func(inst *collInstance) bool { return inst.prefix >= n }
}

// checkRoot validates the root of a rooted collective.
func (c *Comm) checkRoot(op string, root int) {
	if root < 0 || root >= len(c.sh.group) {
		c.fail(op, "invalid root %d: communicator %s has ranks 0..%d", root, c.sh.name, len(c.sh.group)-1)
	}
}

// checkOp validates a reduction operator for a buffer kind.
func (c *Comm) checkOp(op string, rop Op, kind elemKind) {
	if !rop.known() {
		c.fail(op, "unknown reduction operator %v", rop)
	}
	if !kinds[kind].valid(rop) {
		c.fail(op, "operator %v does not apply to []%s", rop, kinds[kind].name)
	}
}

// checkRecv validates a receive buffer against the kind and the number of
// elements it must hold.
func (c *Comm) checkRecv(op string, recvbuf any, kind elemKind, need int) {
	rk, rn := c.checkBuf(op, "receive buffer", recvbuf)
	if rk != kind {
		c.fail(op, "type mismatch: the send buffer is []%s, the receive buffer is []%s", kinds[kind].name, kinds[rk].name)
	}
	if rn < need {
		c.fail(op, "receive buffer too small: it holds %d elements, %d are needed", rn, need)
	}
}

// emitColl records the trace event of a collective call.
func (c *Comm) emitColl(t0 trace.Time, inst *collInstance, bytes int) {
	root := trace.NoPeer
	if inst.sig.root >= 0 {
		root = c.sh.group[inst.sig.root]
	}
	c.emit(t0, &trace.Event{Op: inst.sig.op, Peer: trace.NoPeer, Root: root, Bytes: int64(bytes), Collective: inst.id})
}

// collNative runs a checked collective call on the transport and records
// its trace event. The instance id is the communicator's id and the call's
// sequence number on it, which every rank computes alike.
func (c *Comm) collNative(t0 trace.Time, a *collArgs, bytes int) {
	seq := c.collSeq
	c.collSeq++
	c.w.tr.collective(c, a)
	if c.w.tracer != nil {
		root := trace.NoPeer
		if a.root >= 0 {
			root = c.sh.group[a.root]
		}
		c.emit(t0, &trace.Event{Op: a.op, Peer: trace.NoPeer, Root: root, Bytes: int64(bytes),
			Collective: int64(c.sh.id)<<32 | (seq + 1)})
	}
}
