// This file compiles the calls of commlib: each operation becomes an op
// that reads its arguments and drives the communication, collective and
// thread models.

package interp

import (
	"fmt"
	"go/types"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/commlib/catalog"
	"github.com/predict-tools/predict/trace"
	"golang.org/x/tools/go/ssa"
)

var sizes = types.SizesFor("gc", "amd64")

// elemSize is the size of an element of the slice type t.
func elemSize(t types.Type) int64 {
	if s, ok := t.Underlying().(*types.Slice); ok {
		return sizes.Sizeof(s.Elem())
	}
	return sizes.Sizeof(t)
}

func sliceElem(t types.Type) types.Type {
	if s, ok := t.Underlying().(*types.Slice); ok {
		return s.Elem()
	}
	return t
}

func commOf(v V) *commRef {
	c, _ := v.R.(*commRef)
	return c
}

// commlib compiles a call of the commlib operation name.
func (c *compiler) commlib(cf *function, in *ssa.Call, name string, args []operand, dst int, site string) op {
	sid := c.siteID(site) // the burst of compute after the operation starts here (noise.go)
	arg := func(fr *frame, i int) V { return args[i].get(fr) }
	num := func(fr *frame, i int) int { return int(args[i].get(fr).I) }
	useStatus := in.Referrers() != nil && len(*in.Referrers()) > 0
	switch name {
	case "Main", "Run", "RunWith":
		return func(p *proc, fr *frame) ctl {
			if p.rank >= 0 {
				return p.fail(site, "commlib."+name+" called inside the SPMD body")
			}
			var body V
			switch name {
			case "Main":
				// Main parses the flags if the program has not.
				if err := p.w.flags.parse(); err != nil {
					return p.fail(site, err.Error())
				}
				body = arg(fr, 0)
			default:
				body = arg(fr, 1)
			}
			p.w.body = body
			p.w.bodySite = site
			return cStop
		}
	case "Wtime":
		return func(p *proc, fr *frame) ctl {
			return set(fr, dst, floatV(float64(p.cur.clock)/1e12))
		}
	case "Threads":
		// Threads per rank: --threads, else the program's choice.
		return func(p *proc, fr *frame) ctl {
			n := arg(fr, 0).I
			if t := p.w.cfg.Threads; t > 0 {
				n = int64(t)
			}
			return set(fr, dst, intV(n))
		}
	case "DimsCreate":
		return func(p *proc, fr *frame) ctl {
			s, _ := arg(fr, 1).R.(*sliceV)
			var dims []int
			if s != nil {
				for i := range s.len {
					dims = append(dims, int(s.a.load(s.off+i).I))
				}
			}
			var out []int
			var err any
			func() {
				defer func() { err = recover() }()
				out = commlib.DimsCreate(num(fr, 0), dims)
			}()
			if err != nil {
				return p.fail(site, fmt.Sprint(err))
			}
			return set(fr, dst, intSlice(out))
		}
	case "Comm.Rank":
		return func(p *proc, fr *frame) ctl { return set(fr, dst, intV(int64(commOf(arg(fr, 0)).rank))) }
	case "Comm.Size":
		return func(p *proc, fr *frame) ctl { return set(fr, dst, intV(int64(commOf(arg(fr, 0)).g.size))) }
	case "Comm.WorldRank":
		return func(p *proc, fr *frame) ctl { return set(fr, dst, intV(int64(p.rank))) }
	case "Comm.Abort":
		// The message as commlib's AbortError has it: nil reads "aborted".
		modeled := c.modeled(cf, in.Call.Args[1])
		return func(p *proc, fr *frame) ctl {
			msg := "aborted"
			if e := arg(fr, 1); e.R != nil {
				msg = str(e, types.Universe.Lookup("error").Type())
			}
			return p.abort(site, name, msg, modeled)
		}
	case "Comm.BufferAttach":
		return func(p *proc, fr *frame) ctl { p.buffer = int64(num(fr, 1)); return cNext }
	case "Comm.BufferDetach":
		return func(p *proc, fr *frame) ctl { b := p.buffer; p.buffer = 0; return set(fr, dst, intV(b)) }
	case "Comm.Send", "Comm.Bsend", "Comm.Rsend", "Comm.Ssend", "Comm.Isend", "Comm.Ibsend", "Comm.Irsend", "Comm.Issend":
		send, _ := catalog.Lookup(name)
		op, blocking, proto := send.TraceName(), send.Blocking, string(send.Protocol)
		return func(p *proc, fr *frame) ctl {
			if p.mustYield(sid) {
				return cYield
			}
			if c := p.commOnly(site); c != cNext {
				return c
			}
			cm := commOf(arg(fr, 0))
			buf, dest, tag := arg(fr, 1), num(fr, 2), num(fr, 3)
			enter := p.main.clock
			req, err := p.send(cm.g, cm.rank, buf, dest, tag, proto, op, site, blocking)
			if err != "" {
				return p.fail(site, err)
			}
			_, _, bytes := bufInfo(buf)
			peer := peerOf(cm, dest)
			ovh := p.w.link(p.rank, peer).sendOvh(bytes)
			if blocking {
				p.traceOp(op, enter, site, peer, tag, bytes, cm.g.id, req)
				return p.waitFor(p.reqs1(req), false, ovh, op, site)
			}
			if !p.advance(ovh, site, op) {
				return cStop
			}
			p.overhead += ovh
			p.traceOp(op, enter, site, peer, tag, bytes, cm.g.id, req)
			return set(fr, dst, V{R: req})
		}
	case "Comm.Recv":
		return func(p *proc, fr *frame) ctl {
			if p.mustYield(sid) {
				return cYield
			}
			if c := p.commOnly(site); c != cNext {
				return c
			}
			cm := commOf(arg(fr, 0))
			buf := arg(fr, 1)
			enter := p.main.clock
			req, err := p.recv(cm.g, cm.rank, buf, num(fr, 2), num(fr, 3), "Recv", site, true)
			if err != "" {
				return p.fail(site, err)
			}
			_, _, bytes := bufInfo(buf)
			if useStatus || p.w.cfg.Trace != nil {
				p.onDone = func(p *proc) {
					fr.s[dst] = req.statusV()
					p.traceRecv("Recv", enter, site, cm, req)
				}
			}
			return p.waitFor(p.reqs1(req), false, p.w.link(p.rank, p.rank).recvOvh(bytes), "Recv", site)
		}
	case "Comm.Irecv":
		return func(p *proc, fr *frame) ctl {
			if p.mustYield(sid) {
				return cYield
			}
			if c := p.commOnly(site); c != cNext {
				return c
			}
			cm := commOf(arg(fr, 0))
			enter := p.main.clock
			req, err := p.recv(cm.g, cm.rank, arg(fr, 1), num(fr, 2), num(fr, 3), "Irecv", site, false)
			if err != "" {
				return p.fail(site, err)
			}
			_, _, bytes := bufInfo(arg(fr, 1))
			p.traceOp("Irecv", enter, site, peerOf(cm, num(fr, 2)), num(fr, 3), bytes, cm.g.id, req)
			return set(fr, dst, V{R: req})
		}
	case "Comm.Sendrecv":
		return func(p *proc, fr *frame) ctl {
			if p.mustYield(sid) {
				return cYield
			}
			if c := p.commOnly(site); c != cNext {
				return c
			}
			cm := commOf(arg(fr, 0))
			sbuf, dest, rbuf := arg(fr, 1), num(fr, 2), arg(fr, 4)
			enter := p.main.clock
			rreq, err := p.recv(cm.g, cm.rank, rbuf, num(fr, 5), num(fr, 6), "Sendrecv", site, true)
			if err != "" {
				return p.fail(site, err)
			}
			sreq, err := p.send(cm.g, cm.rank, sbuf, dest, num(fr, 3), "eager", "Sendrecv", site, true)
			if err != "" {
				return p.fail(site, err)
			}
			_, _, sb := bufInfo(sbuf)
			_, _, rb := bufInfo(rbuf)
			ovh := addTime(p.w.link(p.rank, peerOf(cm, dest)).sendOvh(sb), p.w.link(p.rank, p.rank).recvOvh(rb))
			if useStatus || p.w.cfg.Trace != nil {
				p.onDone = func(p *proc) {
					fr.s[dst] = rreq.statusV()
					p.traceSendrecv(enter, site, cm, num(fr, 2), num(fr, 3), sb, sreq, rreq)
				}
			}
			p.waitBuf[0], p.waitBuf[1] = sreq, rreq
			return p.waitFor(p.waitBuf[:2], false, ovh, "Sendrecv", site)
		}
	case "Comm.Wait":
		return func(p *proc, fr *frame) ctl {
			if p.mustYield(sid) {
				return cYield
			}
			req, _ := arg(fr, 1).R.(*request)
			if req == nil {
				return p.fail(site, "Wait: nil request")
			}
			enter := p.main.clock
			if useStatus || p.w.cfg.Trace != nil {
				p.onDone = func(p *proc) {
					fr.s[dst] = req.statusV()
					p.traceWait("Wait", enter, site, []*request{req})
				}
			}
			return p.waitFor(p.reqs1(req), false, 0, "Wait", site)
		}
	case "Comm.Waitall", "Comm.Waitany":
		anyOne := name == "Comm.Waitany"
		return func(p *proc, fr *frame) ctl {
			if p.mustYield(sid) {
				return cYield
			}
			s, _ := arg(fr, 1).R.(*sliceV)
			// The list lives in p's buffer until the wait ends (the next
			// wait reuses it).
			reqs := p.waitList[:0]
			if s != nil {
				for i := range s.len {
					r, _ := s.a.load(s.off + i).R.(*request)
					if r != nil {
						reqs = append(reqs, r)
					}
				}
			}
			p.waitList = reqs
			enter := p.main.clock
			if !anyOne && !useStatus && p.w.cfg.Trace == nil {
				return p.waitFor(reqs, false, 0, name[5:], site)
			}
			p.onDone = func(p *proc) {
				p.traceWait(name[5:], enter, site, reqs)
				if anyOne {
					for i := range s.len {
						if r, _ := s.a.load(s.off + i).R.(*request); r != nil && r.done && !r.waited {
							r.waited = true
							fr.s[dst] = V{R: tuple{intV(int64(i)), r.statusV()}}
							return
						}
					}
					return
				}
				out := make([]V, len(reqs))
				for i, r := range reqs {
					out[i] = r.statusV()
				}
				fr.s[dst] = V{R: &sliceV{a: &array{n: len(out), elems: out}, len: len(out), cap: len(out)}}
			}
			return p.waitFor(reqs, anyOne, 0, name[5:], site)
		}
	case "Comm.Test":
		return func(p *proc, fr *frame) ctl {
			if p.mustYield(sid) {
				return cYield
			}
			req, _ := arg(fr, 1).R.(*request)
			ok := req != nil && req.done && req.doneAt <= p.main.clock
			var st V
			if ok {
				st = req.statusV()
			}
			return set(fr, dst, V{R: tuple{boolV(ok), st}})
		}
	case "Comm.Coords":
		return func(p *proc, fr *frame) ctl {
			cm := commOf(arg(fr, 0))
			return set(fr, dst, intSlice(coords(cm.g.dims, num(fr, 1))))
		}
	case "Comm.Dims":
		return func(p *proc, fr *frame) ctl { return set(fr, dst, intSlice(commOf(arg(fr, 0)).g.dims)) }
	case "Comm.CartRank":
		return func(p *proc, fr *frame) ctl {
			cm := commOf(arg(fr, 0))
			return set(fr, dst, intV(int64(cartRank(cm.g, intsOf(arg(fr, 1))))))
		}
	case "Comm.Shift":
		return func(p *proc, fr *frame) ctl {
			cm := commOf(arg(fr, 0))
			src, dest := shift(cm.g, cm.rank, num(fr, 1), num(fr, 2))
			return set(fr, dst, V{R: tuple{intV(int64(src)), intV(int64(dest))}})
		}
	}
	if f := c.collectiveOp(name, args, dst, site); f != nil {
		return f
	}
	if f := c.threadOp(name, args, dst, site); f != nil {
		return f
	}
	return c.failOp(in, "commlib.%s is not modeled by the interpreter", name)
}

// commOnly reports an error when a pool thread communicates.
func (p *proc) commOnly(site string) ctl {
	if p.cur != &p.main {
		return p.fail(site, "communication from a pool thread is not modeled: the interpreter models the main thread's communication only")
	}
	return cNext
}

func peerOf(cm *commRef, r int) int {
	if r < 0 || r >= cm.g.size {
		return trace.NoPeer
	}
	return cm.g.worldRank(r)
}

func intSlice(xs []int) V {
	vals := make([]V, len(xs))
	for i, x := range xs {
		vals[i] = intV(int64(x))
	}
	return V{R: &sliceV{a: &array{n: len(vals), elems: vals}, len: len(vals), cap: len(vals)}}
}

func intsOf(v V) []int {
	s, _ := v.R.(*sliceV)
	if s == nil {
		return nil
	}
	out := make([]int, s.len)
	for i := range out {
		out[i] = int(s.a.load(s.off + i).I)
	}
	return out
}

// coords returns the Cartesian coordinates of rank (row-major).
func coords(dims []int, rank int) []int {
	out := make([]int, len(dims))
	for i := len(dims) - 1; i >= 0; i-- {
		if dims[i] > 0 {
			out[i] = rank % dims[i]
			rank /= dims[i]
		}
	}
	return out
}

func cartRank(g *group, c []int) int {
	r := 0
	for i, d := range g.dims {
		x := 0
		if i < len(c) {
			x = c[i]
		}
		if g.period[i] {
			x = ((x % d) + d) % d
		}
		r = r*d + x
	}
	return r
}

// shift is Comm.Shift: the neighbours at displacement disp along dim.
func shift(g *group, rank, dim, disp int) (int, int) {
	if dim < 0 || dim >= len(g.dims) {
		return commlib.ProcNull, commlib.ProcNull
	}
	c := coords(g.dims, rank)
	at := func(d int) int {
		x := c[dim] + d
		if g.period[dim] {
			x = ((x % g.dims[dim]) + g.dims[dim]) % g.dims[dim]
		} else if x < 0 || x >= g.dims[dim] {
			return commlib.ProcNull
		}
		cc := append([]int(nil), c...)
		cc[dim] = x
		return cartRank(g, cc)
	}
	return at(-disp), at(disp)
}

// Tracing of communication calls.

func (p *proc) traceOp(op string, enter int64, site string, peer, tag int, bytes int64, comm int, req *request) {
	if p.w.cfg.Trace == nil {
		return
	}
	e := trace.Event{Kind: trace.KindOp, Op: op, Peer: peer, Root: trace.NoPeer, Tag: tag, Bytes: bytes, Comm: comm,
		Site: site, Enter: trace.Time(enter), Exit: trace.Time(enter)}
	if req != nil {
		if req.sendMsg != nil {
			e.Message = req.sendMsg.id
			e.Protocol = req.sendMsg.protocol
		}
		if op[0] == 'I' {
			e.Request = req.id
		}
	}
	if op[0] != 'I' {
		// A blocking send: its exit is known when it completes.
		p.onDone = func(p *proc) {
			e.Exit = trace.Time(p.main.clock)
			p.emit(e)
		}
		return
	}
	e.Exit = trace.Time(p.main.clock)
	p.emit(e)
}

func (p *proc) traceRecv(op string, enter int64, site string, cm *commRef, req *request) {
	if p.w.cfg.Trace == nil {
		return
	}
	e := trace.Event{Kind: trace.KindOp, Op: op, Peer: trace.NoPeer, Root: trace.NoPeer, Comm: cm.g.id, Site: site,
		Enter: trace.Time(enter), Exit: trace.Time(p.main.clock)}
	if m := req.msg; m != nil {
		e.Peer, e.Tag, e.Bytes, e.Message = m.srcWorld, m.tag, m.bytes, m.id
	}
	p.emit(e)
}

func (p *proc) traceSendrecv(enter int64, site string, cm *commRef, dest, tag int, bytes int64, sreq, rreq *request) {
	if p.w.cfg.Trace == nil {
		return
	}
	// Recorded as its two halves, as the runtime's trace does.
	e := trace.Event{Kind: trace.KindOp, Op: "Sendrecv", Peer: peerOf(cm, dest), Root: trace.NoPeer, Tag: tag, Bytes: bytes,
		Comm: cm.g.id, Site: site, Enter: trace.Time(enter), Exit: trace.Time(p.main.clock)}
	if sreq.sendMsg != nil {
		e.Message, e.Protocol = sreq.sendMsg.id, sreq.sendMsg.protocol
	}
	p.emit(e)
	p.traceRecv("Sendrecv", enter, site, cm, rreq)
}

func (p *proc) traceWait(op string, enter int64, site string, reqs []*request) {
	if p.w.cfg.Trace == nil {
		return
	}
	e := trace.Event{Kind: trace.KindOp, Op: op, Peer: trace.NoPeer, Root: trace.NoPeer, Site: site,
		Enter: trace.Time(enter), Exit: trace.Time(p.main.clock)}
	for _, r := range reqs {
		e.Requests = append(e.Requests, r.id)
	}
	if len(reqs) == 1 {
		e.Request = reqs[0].id
	}
	p.emit(e)
	for _, r := range reqs {
		c := trace.Event{Kind: trace.KindComplete, Op: r.op, Peer: trace.NoPeer, Root: trace.NoPeer, Request: r.id, Site: r.site,
			Enter: trace.Time(p.main.clock), Exit: trace.Time(p.main.clock)}
		if m := r.msg; m != nil {
			c.Peer, c.Tag, c.Bytes, c.Message = m.srcWorld, m.tag, m.bytes, m.id
		} else if m := r.sendMsg; m != nil {
			c.Peer, c.Tag, c.Bytes, c.Message, c.Protocol = m.g.worldRank(m.dst), m.tag, m.bytes, m.id, m.protocol
		}
		p.emit(c)
	}
}
