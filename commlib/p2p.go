// This file defines point-to-point messaging: matching, protocols and the
// send and receive calls.

package commlib

import (
	"fmt"

	"github.com/predict-tools/predict/trace"
)

// protocol is how a send hands over its message.
type protocol uint8

const (
	protoEager      protocol = iota // copied at the send; completes at once
	protoRendezvous                 // completes when the receive is matched
	protoSync                       // Ssend/Issend: completes when the receive is matched
	protoBuffered                   // Bsend: copied into the attached buffer
	protoReady                      // Rsend: the receive must already be posted
)

var protocolNames = [...]string{"eager", "rendezvous", "sync", "buffered", "ready"}

// BsendOverhead is the bytes of attached buffer each buffered message uses
// beyond its payload.
const BsendOverhead = 64

// message is a send waiting at the destination to be matched.
type message struct {
	comm   int // communicator id
	src    int // sender's rank in the communicator
	tag    int
	kind   elemKind
	n      int
	data   any // a copy (eager, buffered) or the sender's buffer (rendezvous, sync)
	id     int64
	sender *process

	sendReq    *Request // completed when matched (rendezvous, sync)
	bsendBytes int      // attached-buffer bytes to release when delivered
}

// matches reports whether receive r accepts message m.
func (r *Request) matches(m *message) bool {
	return r.comm == m.comm && (r.source == AnySource || r.source == m.src) && (r.tag == AnyTag || r.tag == m.tag)
}

// takePosted removes and returns the first posted receive matching m.
// p.mu must be held.
func (p *process) takePosted(m *message) *Request {
	for i, r := range p.posted {
		if r.matches(m) {
			copy(p.posted[i:], p.posted[i+1:])
			p.posted[len(p.posted)-1] = nil
			p.posted = p.posted[:len(p.posted)-1]
			return r
		}
	}
	return nil
}

// takeUnexpected removes and returns the first arrived message matching r.
// p.mu must be held.
func (p *process) takeUnexpected(r *Request) *message {
	for i, m := range p.unexpected {
		if r.matches(m) {
			copy(p.unexpected[i:], p.unexpected[i+1:])
			p.unexpected[len(p.unexpected)-1] = nil
			p.unexpected = p.unexpected[:len(p.unexpected)-1]
			return m
		}
	}
	return nil
}

// deliver copies m into receive r and completes both sides. A type
// mismatch or truncation is left in r, to be raised at the receiver.
func deliver(m *message, r *Request) {
	var problem string
	switch {
	case m.kind != r.kind:
		problem = fmt.Sprintf("type mismatch: the message from rank %d (tag %d) carries []%s, the receive buffer is []%s",
			m.src, m.tag, kinds[m.kind].name, kinds[r.kind].name)
	case m.n > r.n:
		problem = fmt.Sprintf("message truncated: the message from rank %d (tag %d) has %d elements, the receive buffer holds %d",
			m.src, m.tag, m.n, r.n)
	case m.n > 0:
		kinds[m.kind].copy(r.buf, 0, m.data, 0, m.n)
	}
	if m.sendReq != nil {
		m.sendReq.complete(Status{Source: r.owner.rank, Tag: m.tag, Count: m.n}, 0, "")
	}
	if m.bsendBytes > 0 {
		m.sender.bsendRelease(m.bsendBytes)
	}
	r.complete(Status{Source: m.src, Tag: m.tag, Count: m.n}, m.id, problem)
}

// startSend starts a send of buf to dest and returns its request, already
// complete unless the protocol waits for the receiver.
func (c *Comm) startSend(op string, mode protocol, buf any, dest, tag int) *Request {
	kind, n := c.checkSend(op, buf, dest, tag)
	w := c.w
	req := &Request{id: w.nextReq.Add(1), owner: c, send: true, comm: c.sh.id, source: dest, tag: tag, kind: kind, n: n}
	if dest == ProcNull {
		req.done = true
		req.status = Status{Source: ProcNull, Tag: AnyTag}
		return req
	}
	if w.tr != nil {
		w.tr.start(c, req, mode, buf)
		return req
	}
	bytes := n * kinds[kind].size
	if mode == protoEager && (w.eagerLimit < 0 || bytes > w.eagerLimit) {
		mode = protoRendezvous
	}
	req.proto = mode
	m := &message{comm: c.sh.id, src: c.rank, tag: tag, kind: kind, n: n, id: w.nextMsg.Add(1), sender: c.p}
	req.msgID = m.id
	if mode == protoBuffered {
		m.bsendBytes = c.bsendReserve(op, bytes)
	}
	q := w.procs[c.sh.group[dest]]
	q.mu.Lock()
	if r := q.takePosted(m); r != nil {
		q.mu.Unlock()
		m.data = buf
		deliver(m, r)
		req.done = true
		req.status = Status{Source: dest, Tag: tag, Count: n}
		return req
	}
	switch mode {
	case protoReady:
		q.mu.Unlock()
		c.fail(op, "no matching receive is posted at rank %d (tag %d, comm %s): ready mode requires the receive to be posted before the send",
			dest, tag, c.sh.name)
	case protoEager, protoBuffered:
		m.data = kinds[kind].clone(buf, 0, n)
		q.unexpected = append(q.unexpected, m)
		q.mu.Unlock()
		req.done = true
		req.status = Status{Source: dest, Tag: tag, Count: n}
	default: // rendezvous, sync: the receiver copies from buf
		m.data = buf
		m.sendReq = req
		q.unexpected = append(q.unexpected, m)
		q.mu.Unlock()
	}
	return req
}

// startRecv posts a receive into buf and returns its request, already
// complete if a matching message had arrived.
func (c *Comm) startRecv(op string, buf any, source, tag int) *Request {
	kind, n := c.checkRecvArgs(op, buf, source, tag)
	req := &Request{id: c.w.nextReq.Add(1), owner: c, comm: c.sh.id, source: source, tag: tag, buf: buf, kind: kind, n: n}
	if source == ProcNull {
		req.done = true
		req.status = Status{Source: ProcNull, Tag: AnyTag}
		return req
	}
	if c.w.tr != nil {
		c.w.tr.start(c, req, 0, buf)
		return req
	}
	p := c.p
	p.mu.Lock()
	if m := p.takeUnexpected(req); m != nil {
		p.mu.Unlock()
		deliver(m, req)
		return req
	}
	p.posted = append(p.posted, req)
	p.mu.Unlock()
	return req
}

// checkSend validates a send's arguments and returns the buffer's kind and length.
func (c *Comm) checkSend(op string, buf any, dest, tag int) (elemKind, int) {
	kind, n := c.checkBuf(op, "send buffer", buf)
	c.checkRank(op, "destination", dest, false)
	c.checkTag(op, tag, false)
	return kind, n
}

// checkRecvArgs validates a receive's arguments and returns the buffer's
// kind and length.
func (c *Comm) checkRecvArgs(op string, buf any, source, tag int) (elemKind, int) {
	kind, n := c.checkBuf(op, "receive buffer", buf)
	c.checkRank(op, "source", source, true)
	c.checkTag(op, tag, true)
	return kind, n
}

// Send sends buf to rank dest with tag (standard mode): it returns once buf
// may be reused, which for messages above the eager limit is when the
// matching receive has been posted.
func (c *Comm) Send(buf any, dest, tag int) { c.blockingSend("Send", protoEager, buf, dest, tag) }

// Ssend sends in synchronous mode: it returns once the matching receive has
// started.
func (c *Comm) Ssend(buf any, dest, tag int) { c.blockingSend("Ssend", protoSync, buf, dest, tag) }

// Bsend sends in buffered mode: the message is copied into the buffer given
// to BufferAttach and Bsend returns at once. Running out of buffer space is
// an error.
func (c *Comm) Bsend(buf any, dest, tag int) { c.blockingSend("Bsend", protoBuffered, buf, dest, tag) }

// Rsend sends in ready mode: the matching receive must already be posted,
// otherwise the run fails.
func (c *Comm) Rsend(buf any, dest, tag int) { c.blockingSend("Rsend", protoReady, buf, dest, tag) }

func (c *Comm) blockingSend(op string, mode protocol, buf any, dest, tag int) {
	t0 := c.traceStart()
	if t := c.w.tr; t != nil {
		kind, n := c.checkSend(op, buf, dest, tag)
		proto := mode
		if dest != ProcNull {
			proto = t.send(c, op, mode, buf, kind, n, dest, tag)
		}
		if c.w.tracer != nil {
			c.emit(t0, &trace.Event{Op: op, Peer: c.worldRankOf(dest), Root: trace.NoPeer, Tag: tag,
				Bytes: int64(n * kinds[kind].size), Protocol: protocolNames[proto]})
		}
		return
	}
	req := c.startSend(op, mode, buf, dest, tag)
	if !req.isDone() {
		c.awaitRequests(op, []*Request{req}, false)
	}
	if c.w.tracer != nil {
		c.emit(t0, &trace.Event{Op: op, Peer: c.worldRankOf(dest), Root: trace.NoPeer, Tag: tag,
			Bytes: req.bytes(), Message: req.msgID, Protocol: req.protocolName()})
	}
}

// Recv receives into buf a message from source (or AnySource) with tag (or
// AnyTag) and returns its status.
func (c *Comm) Recv(buf any, source, tag int) Status {
	t0 := c.traceStart()
	if t := c.w.tr; t != nil {
		kind, n := c.checkRecvArgs("Recv", buf, source, tag)
		st := Status{Source: ProcNull, Tag: AnyTag}
		if source != ProcNull {
			var problem string
			if st, problem = t.recv(c, "Recv", buf, kind, n, source, tag); problem != "" {
				c.fail("Recv", "%s", problem)
			}
		}
		if c.w.tracer != nil {
			c.emit(t0, &trace.Event{Op: "Recv", Peer: c.worldRankOf(st.Source), Root: trace.NoPeer, Tag: max(st.Tag, 0),
				Bytes: int64(st.Count * kinds[kind].size)})
		}
		return st
	}
	req := c.startRecv("Recv", buf, source, tag)
	if !req.isDone() {
		c.awaitRequests("Recv", []*Request{req}, false)
	}
	st := c.finish("Recv", req)
	if c.w.tracer != nil {
		c.emit(t0, &trace.Event{Op: "Recv", Peer: c.worldRankOf(st.Source), Root: trace.NoPeer, Tag: max(st.Tag, 0),
			Bytes: int64(st.Count * kinds[req.kind].size), Message: req.msgID})
	}
	return st
}

// Isend starts a standard-mode send; the request completes when buf may be reused.
func (c *Comm) Isend(buf any, dest, tag int) *Request {
	return c.nonblockingSend("Isend", protoEager, buf, dest, tag)
}

// Issend starts a synchronous-mode send.
func (c *Comm) Issend(buf any, dest, tag int) *Request {
	return c.nonblockingSend("Issend", protoSync, buf, dest, tag)
}

// Ibsend starts a buffered-mode send.
func (c *Comm) Ibsend(buf any, dest, tag int) *Request {
	return c.nonblockingSend("Ibsend", protoBuffered, buf, dest, tag)
}

// Irsend starts a ready-mode send.
func (c *Comm) Irsend(buf any, dest, tag int) *Request {
	return c.nonblockingSend("Irsend", protoReady, buf, dest, tag)
}

func (c *Comm) nonblockingSend(op string, mode protocol, buf any, dest, tag int) *Request {
	t0 := c.traceStart()
	req := c.startSend(op, mode, buf, dest, tag)
	req.op = op
	if c.w.tracer != nil {
		c.emit(t0, &trace.Event{Op: op, Peer: c.worldRankOf(dest), Root: trace.NoPeer, Tag: tag,
			Bytes: req.bytes(), Request: req.id, Message: req.msgID, Protocol: req.protocolName()})
	}
	return req
}

// Irecv starts a receive; Wait or Test on the request gives its status.
func (c *Comm) Irecv(buf any, source, tag int) *Request {
	t0 := c.traceStart()
	req := c.startRecv("Irecv", buf, source, tag)
	req.op = "Irecv"
	if c.w.tracer != nil {
		c.emit(t0, &trace.Event{Op: "Irecv", Peer: c.worldRankOf(source), Root: trace.NoPeer, Tag: max(tag, 0),
			Request: req.id})
	}
	return req
}

// Sendrecv sends sendbuf to dest and receives into recvbuf from source, as
// if both were started at once and then waited for.
func (c *Comm) Sendrecv(sendbuf any, dest, sendtag int, recvbuf any, source, recvtag int) Status {
	t0 := c.traceStart()
	var rreq, sreq *Request
	if t := c.w.tr; t != nil {
		// Checked and described as in-process; the transport runs both
		// directions in one call.
		kind, n := c.checkRecvArgs("Sendrecv", recvbuf, source, recvtag)
		rreq = &Request{owner: c, comm: c.sh.id, source: source, tag: recvtag, buf: recvbuf, kind: kind, n: n}
		kind, n = c.checkSend("Sendrecv", sendbuf, dest, sendtag)
		sreq = &Request{owner: c, send: true, comm: c.sh.id, source: dest, tag: sendtag, kind: kind, n: n}
		sreq.proto = t.sendrecv(c, sreq, rreq, sendbuf)
	} else {
		rreq = c.startRecv("Sendrecv", recvbuf, source, recvtag)
		sreq = c.startSend("Sendrecv", protoEager, sendbuf, dest, sendtag)
		if !rreq.isDone() || !sreq.isDone() {
			c.awaitRequests("Sendrecv", []*Request{rreq, sreq}, false)
		}
	}
	st := c.finish("Sendrecv", rreq)
	if c.w.tracer != nil {
		// One event per direction, sharing the call's times, so that both
		// messages are matched in the trace.
		sent := c.emit(t0, &trace.Event{Op: "Sendrecv", Peer: c.worldRankOf(dest), Root: trace.NoPeer, Tag: sendtag,
			Bytes: sreq.bytes(), Message: sreq.msgID, Protocol: sreq.protocolName()})
		c.emitLike(sent, &trace.Event{Op: "Sendrecv", Peer: c.worldRankOf(st.Source), Root: trace.NoPeer, Tag: max(st.Tag, 0),
			Bytes: int64(st.Count * kinds[rreq.kind].size), Message: rreq.msgID})
	}
	return st
}

// BufferAttach gives the rank a buffer of size bytes for buffered sends
// (Bsend, Ibsend). Each buffered message uses its size plus BsendOverhead.
func (c *Comm) BufferAttach(size int) {
	if size <= 0 {
		c.fail("BufferAttach", "buffer size %d: want a positive number of bytes", size)
	}
	p := c.p
	p.bsendMu.Lock()
	defer p.bsendMu.Unlock()
	if p.bsendSize > 0 {
		c.fail("BufferAttach", "a buffer of %d bytes is already attached; call BufferDetach first", p.bsendSize)
	}
	if c.w.tr != nil {
		c.w.tr.attach(c, size)
	}
	p.bsendSize = size
}

// BufferDetach waits until every buffered message has been delivered,
// detaches the buffer and returns its size.
func (c *Comm) BufferDetach() int {
	p := c.p
	p.bsendMu.Lock()
	attached := p.bsendSize
	p.bsendMu.Unlock()
	if attached == 0 {
		c.fail("BufferDetach", "no buffer is attached")
	}
	if c.w.tr != nil {
		c.w.tr.detach(c)
		p.bsendMu.Lock()
		p.bsendSize = 0
		p.bsendMu.Unlock()
		return attached
	}
	wt := c.w.newWaiter(p.rank, "BufferDetach")
	wt.comm = c.sh
	c.w.await(wt, &p.bsendMu, func(wt *waiter) bool {
		if p.bsendUsed == 0 {
			return true
		}
		p.bsendQueue.add(wt)
		return false
	})
	wt.release()
	p.bsendMu.Lock()
	p.bsendSize = 0
	p.bsendMu.Unlock()
	return attached
}

// bsendReserve takes space for a buffered message of bytes from the
// attached buffer and returns the amount taken.
func (c *Comm) bsendReserve(op string, bytes int) int {
	p := c.p
	need := bytes + BsendOverhead
	p.bsendMu.Lock()
	defer p.bsendMu.Unlock()
	switch {
	case p.bsendSize == 0:
		c.fail(op, "no buffer is attached: call BufferAttach before buffered sends")
	case p.bsendUsed+need > p.bsendSize:
		c.fail(op, "attached buffer exhausted: the message needs %d bytes (%d + overhead %d), %d of %d are in use",
			need, bytes, BsendOverhead, p.bsendUsed, p.bsendSize)
	}
	p.bsendUsed += need
	return need
}

// bsendRelease gives back attached-buffer space of a delivered message.
func (p *process) bsendRelease(bytes int) {
	p.bsendMu.Lock()
	p.bsendUsed -= bytes
	if p.bsendUsed == 0 {
		p.bsendQueue.wakeAll()
	}
	p.bsendMu.Unlock()
}
