// This file defines the collective operations on data.

package commlib

import "fmt"

// sendRecv is a rank's deposit for collectives whose last arriver writes
// every rank's receive buffer.
type sendRecv struct {
	send, recv           any
	sendCounts, sendDisp []int
	recvCounts, recvDisp []int
}

// Barrier blocks until every rank of the communicator has called it.
func (c *Comm) Barrier() {
	t0 := c.traceStart()
	if c.w.tr != nil {
		c.collNative(t0, &collArgs{op: "Barrier", root: -1}, 0)
		return
	}
	inst := c.arrive(collSig{op: "Barrier", root: -1}, nil, nil)
	c.collAwait(inst, waitNoPeer, allArrived)
	c.depart(inst)
	if c.w.tracer != nil {
		c.emitColl(t0, inst, 0)
	}
}

// Bcast copies buf of rank root into buf of every rank. The root returns
// without waiting for the others.
func (c *Comm) Bcast(buf any, root int) {
	const op = "Bcast"
	t0 := c.traceStart()
	c.checkRoot(op, root)
	kind, n := c.checkBuf(op, "buffer", buf)
	if c.w.tr != nil {
		c.collNative(t0, &collArgs{op: op, root: root, kind: kind, n: n, send: buf}, n*kinds[kind].size)
		return
	}
	var deposit any
	if c.rank == root && c.Size() > 1 {
		deposit = kinds[kind].clone(buf, 0, n)
	}
	inst := c.arrive(collSig{op: op, root: root, kind: kind, count: n}, deposit, nil)
	if c.rank != root {
		c.collAwait(inst, root, rootArrived(root))
		kinds[kind].copy(buf, 0, inst.deposits[root], 0, n)
	}
	c.depart(inst)
	if c.w.tracer != nil {
		c.emitColl(t0, inst, n*kinds[kind].size)
	}
}

// Reduce combines sendbuf of every rank with op, in rank order, into
// recvbuf of rank root (recvbuf is ignored elsewhere). Ranks other than the
// root return without waiting.
func (c *Comm) Reduce(sendbuf, recvbuf any, op Op, root int) {
	const name = "Reduce"
	t0 := c.traceStart()
	c.checkRoot(name, root)
	kind, n := c.checkBuf(name, "send buffer", sendbuf)
	c.checkOp(name, op, kind)
	deposit := sendbuf
	if c.rank == root {
		c.checkRecv(name, recvbuf, kind, n)
	} else {
		deposit = kinds[kind].clone(sendbuf, 0, n)
	}
	if c.w.tr != nil {
		a := &collArgs{op: name, root: root, rop: op, kind: kind, n: n, send: sendbuf}
		if c.rank == root {
			a.recv = recvbuf
		}
		c.collNative(t0, a, n*kinds[kind].size)
		return
	}
	inst := c.arrive(collSig{op: name, root: root, rop: op, kind: kind, count: n}, deposit, nil)
	if c.rank == root {
		c.collAwait(inst, waitNoPeer, allArrived)
		acc := kinds[kind].clone(inst.deposits[0], 0, n)
		for _, d := range inst.deposits[1:] {
			kinds[kind].reduce(op, acc, d)
		}
		kinds[kind].copy(recvbuf, 0, acc, 0, n)
	}
	c.depart(inst)
	if c.w.tracer != nil {
		c.emitColl(t0, inst, n*kinds[kind].size)
	}
}

// Allreduce combines sendbuf of every rank with op, in rank order, into
// recvbuf of every rank.
func (c *Comm) Allreduce(sendbuf, recvbuf any, op Op) {
	const name = "Allreduce"
	t0 := c.traceStart()
	kind, n := c.checkBuf(name, "send buffer", sendbuf)
	c.checkOp(name, op, kind)
	c.checkRecv(name, recvbuf, kind, n)
	if c.w.tr != nil {
		c.collNative(t0, &collArgs{op: name, root: -1, rop: op, kind: kind, n: n, send: sendbuf, recv: recvbuf}, n*kinds[kind].size)
		return
	}
	inst := c.arrive(collSig{op: name, root: -1, rop: op, kind: kind, count: n}, sendRecv{send: sendbuf, recv: recvbuf},
		func(inst *collInstance) string {
			acc := kinds[kind].clone(inst.deposits[0].(sendRecv).send, 0, n)
			for _, d := range inst.deposits[1:] {
				kinds[kind].reduce(op, acc, d.(sendRecv).send)
			}
			for _, d := range inst.deposits {
				kinds[kind].copy(d.(sendRecv).recv, 0, acc, 0, n)
			}
			return ""
		})
	c.collAwait(inst, waitNoPeer, completed)
	c.depart(inst)
	if c.w.tracer != nil {
		c.emitColl(t0, inst, n*kinds[kind].size)
	}
}

// Gather concatenates sendbuf of every rank, in rank order, into recvbuf of
// rank root, which must hold Size()×len(sendbuf) elements.
func (c *Comm) Gather(sendbuf, recvbuf any, root int) {
	const name = "Gather"
	t0 := c.traceStart()
	c.checkRoot(name, root)
	kind, n := c.checkBuf(name, "send buffer", sendbuf)
	deposit := sendbuf
	if c.rank == root {
		c.checkRecv(name, recvbuf, kind, n*c.Size())
	} else {
		deposit = kinds[kind].clone(sendbuf, 0, n)
	}
	if c.w.tr != nil {
		c.collNative(t0, &collArgs{op: name, root: root, kind: kind, n: n, send: sendbuf, recv: recvbuf}, n*kinds[kind].size)
		return
	}
	inst := c.arrive(collSig{op: name, root: root, kind: kind, count: n}, deposit, nil)
	if c.rank == root {
		c.collAwait(inst, waitNoPeer, allArrived)
		for i, d := range inst.deposits {
			kinds[kind].copy(recvbuf, i*n, d, 0, n)
		}
	}
	c.depart(inst)
	if c.w.tracer != nil {
		c.emitColl(t0, inst, n*kinds[kind].size)
	}
}

// Gatherv gathers sendbuf of every rank into recvbuf of rank root: rank i
// sends recvcounts[i] elements, placed at displs[i].
func (c *Comm) Gatherv(sendbuf, recvbuf any, recvcounts, displs []int, root int) {
	const name = "Gatherv"
	t0 := c.traceStart()
	c.checkRoot(name, root)
	kind, n := c.checkBuf(name, "send buffer", sendbuf)
	deposit := sendbuf
	if c.rank == root {
		_, rn := c.checkBuf(name, "receive buffer", recvbuf)
		c.checkRecv(name, recvbuf, kind, 0)
		c.checkCounts(name, "recvcounts", "displs", recvcounts, displs, rn)
	} else {
		deposit = kinds[kind].clone(sendbuf, 0, n)
	}
	if c.w.tr != nil {
		c.collNative(t0, &collArgs{op: name, root: root, kind: kind, n: n, send: sendbuf, recv: recvbuf,
			recvCounts: recvcounts, recvDispls: displs}, n*kinds[kind].size)
		return
	}
	inst := c.arrive(collSig{op: name, root: root, kind: kind, count: -1}, deposit, nil)
	if c.rank == root {
		c.collAwait(inst, waitNoPeer, allArrived)
		for i, d := range inst.deposits {
			_, dn := inspect(d)
			if dn != recvcounts[i] {
				c.fail(name, "rank %d sends %d elements, recvcounts[%d] at the root is %d", i, dn, i, recvcounts[i])
			}
			kinds[kind].copy(recvbuf, displs[i], d, 0, dn)
		}
	}
	c.depart(inst)
	if c.w.tracer != nil {
		c.emitColl(t0, inst, n*kinds[kind].size)
	}
}

// Scatter sends block i of sendbuf at rank root (len(recvbuf) elements
// each) to rank i. The root returns without waiting.
func (c *Comm) Scatter(sendbuf, recvbuf any, root int) {
	const name = "Scatter"
	t0 := c.traceStart()
	c.checkRoot(name, root)
	kind, n := c.checkBuf(name, "receive buffer", recvbuf)
	var deposit any
	if c.rank == root {
		sk, sn := c.checkBuf(name, "send buffer", sendbuf)
		if sk != kind {
			c.fail(name, "type mismatch: the send buffer is []%s, the receive buffer is []%s", kinds[sk].name, kinds[kind].name)
		}
		if sn < n*c.Size() {
			c.fail(name, "send buffer too small: it holds %d elements, %d ranks × %d are needed", sn, c.Size(), n)
		}
		if c.w.tr != nil {
			deposit = sendbuf
		} else if c.Size() > 1 {
			deposit = kinds[kind].clone(sendbuf, 0, n*c.Size())
		} else {
			deposit = sendbuf
		}
	}
	if c.w.tr != nil {
		c.collNative(t0, &collArgs{op: name, root: root, kind: kind, n: n, send: deposit, recv: recvbuf}, n*kinds[kind].size)
		return
	}
	inst := c.arrive(collSig{op: name, root: root, kind: kind, count: n}, deposit, nil)
	if c.rank != root {
		c.collAwait(inst, root, rootArrived(root))
	}
	kinds[kind].copy(recvbuf, 0, inst.deposits[root], c.rank*n, n)
	c.depart(inst)
	if c.w.tracer != nil {
		c.emitColl(t0, inst, n*kinds[kind].size)
	}
}

// Scatterv sends sendcounts[i] elements of sendbuf at rank root, starting at
// displs[i], to rank i.
func (c *Comm) Scatterv(sendbuf any, sendcounts, displs []int, recvbuf any, root int) {
	const name = "Scatterv"
	t0 := c.traceStart()
	c.checkRoot(name, root)
	kind, n := c.checkBuf(name, "receive buffer", recvbuf)
	var deposit any
	if c.rank == root {
		sk, sn := c.checkBuf(name, "send buffer", sendbuf)
		if sk != kind {
			c.fail(name, "type mismatch: the send buffer is []%s, the receive buffer is []%s", kinds[sk].name, kinds[kind].name)
		}
		c.checkCounts(name, "sendcounts", "displs", sendcounts, displs, sn)
		if c.w.tr != nil {
			c.collNative(t0, &collArgs{op: name, root: root, kind: kind, n: n, send: sendbuf, recv: recvbuf,
				sendCounts: sendcounts, sendDispls: displs}, min(n, sendcounts[c.rank])*kinds[kind].size)
			return
		}
		data := sendbuf
		if c.Size() > 1 {
			data = kinds[kind].clone(sendbuf, 0, sn)
		}
		deposit = sendRecv{send: data, sendCounts: append([]int(nil), sendcounts...), sendDisp: append([]int(nil), displs...)}
	}
	if c.w.tr != nil {
		c.collNative(t0, &collArgs{op: name, root: root, kind: kind, n: n, recv: recvbuf}, n*kinds[kind].size)
		return
	}
	inst := c.arrive(collSig{op: name, root: root, kind: kind, count: -1}, deposit, nil)
	if c.rank != root {
		c.collAwait(inst, root, rootArrived(root))
	}
	d := inst.deposits[root].(sendRecv)
	cnt := d.sendCounts[c.rank]
	if cnt > n {
		c.fail(name, "message truncated: the root sends %d elements, the receive buffer holds %d", cnt, n)
	}
	kinds[kind].copy(recvbuf, 0, d.send, d.sendDisp[c.rank], cnt)
	c.depart(inst)
	if c.w.tracer != nil {
		c.emitColl(t0, inst, cnt*kinds[kind].size)
	}
}

// Allgather concatenates sendbuf of every rank, in rank order, into recvbuf
// of every rank, which must hold Size()×len(sendbuf) elements.
func (c *Comm) Allgather(sendbuf, recvbuf any) {
	const name = "Allgather"
	t0 := c.traceStart()
	kind, n := c.checkBuf(name, "send buffer", sendbuf)
	c.checkRecv(name, recvbuf, kind, n*c.Size())
	if c.w.tr != nil {
		c.collNative(t0, &collArgs{op: name, root: -1, kind: kind, n: n, send: sendbuf, recv: recvbuf}, n*kinds[kind].size)
		return
	}
	inst := c.arrive(collSig{op: name, root: -1, kind: kind, count: n}, sendRecv{send: sendbuf, recv: recvbuf},
		func(inst *collInstance) string {
			for i, s := range inst.deposits {
				for _, r := range inst.deposits {
					kinds[kind].copy(r.(sendRecv).recv, i*n, s.(sendRecv).send, 0, n)
				}
			}
			return ""
		})
	c.collAwait(inst, waitNoPeer, completed)
	c.depart(inst)
	if c.w.tracer != nil {
		c.emitColl(t0, inst, n*kinds[kind].size)
	}
}

// Allgatherv gathers sendbuf of every rank into recvbuf of every rank: rank
// i contributes recvcounts[i] elements, placed at displs[i].
func (c *Comm) Allgatherv(sendbuf, recvbuf any, recvcounts, displs []int) {
	const name = "Allgatherv"
	t0 := c.traceStart()
	kind, n := c.checkBuf(name, "send buffer", sendbuf)
	_, rn := c.checkBuf(name, "receive buffer", recvbuf)
	c.checkRecv(name, recvbuf, kind, 0)
	c.checkCounts(name, "recvcounts", "displs", recvcounts, displs, rn)
	if recvcounts[c.rank] != n {
		c.fail(name, "this rank sends %d elements but recvcounts[%d] is %d", n, c.rank, recvcounts[c.rank])
	}
	if c.w.tr != nil {
		c.collNative(t0, &collArgs{op: name, root: -1, kind: kind, n: n, send: sendbuf, recv: recvbuf,
			recvCounts: recvcounts, recvDispls: displs}, n*kinds[kind].size)
		return
	}
	inst := c.arrive(collSig{op: name, root: -1, kind: kind, count: -1},
		sendRecv{send: sendbuf, recv: recvbuf, recvCounts: recvcounts, recvDisp: displs},
		func(inst *collInstance) string {
			for j, r := range inst.deposits {
				rd := r.(sendRecv)
				for i, s := range inst.deposits {
					_, sn := inspect(s.(sendRecv).send)
					if rd.recvCounts[i] != sn {
						return fmt.Sprintf("rank %d sends %d elements, rank %d's recvcounts[%d] is %d", i, sn, j, i, rd.recvCounts[i])
					}
				}
			}
			for _, r := range inst.deposits {
				rd := r.(sendRecv)
				for i, s := range inst.deposits {
					kinds[kind].copy(rd.recv, rd.recvDisp[i], s.(sendRecv).send, 0, rd.recvCounts[i])
				}
			}
			return ""
		})
	c.collAwait(inst, waitNoPeer, completed)
	c.depart(inst)
	if c.w.tracer != nil {
		c.emitColl(t0, inst, n*kinds[kind].size)
	}
}

// Alltoall sends block j of sendbuf (len(sendbuf)/Size() elements) to rank
// j, which stores it as block i (the sender's rank) of recvbuf.
func (c *Comm) Alltoall(sendbuf, recvbuf any) {
	const name = "Alltoall"
	t0 := c.traceStart()
	kind, n := c.checkBuf(name, "send buffer", sendbuf)
	size := c.Size()
	if n%size != 0 {
		c.fail(name, "send buffer of %d elements does not split into %d equal blocks", n, size)
	}
	c.checkRecv(name, recvbuf, kind, n)
	b := n / size
	if c.w.tr != nil {
		c.collNative(t0, &collArgs{op: name, root: -1, kind: kind, n: n, send: sendbuf, recv: recvbuf}, n*kinds[kind].size)
		return
	}
	inst := c.arrive(collSig{op: name, root: -1, kind: kind, count: n}, sendRecv{send: sendbuf, recv: recvbuf},
		func(inst *collInstance) string {
			for i, s := range inst.deposits {
				for j, r := range inst.deposits {
					kinds[kind].copy(r.(sendRecv).recv, i*b, s.(sendRecv).send, j*b, b)
				}
			}
			return ""
		})
	c.collAwait(inst, waitNoPeer, completed)
	c.depart(inst)
	if c.w.tracer != nil {
		c.emitColl(t0, inst, n*kinds[kind].size)
	}
}

// Alltoallv sends sendcounts[j] elements of sendbuf at sdispls[j] to rank j,
// which stores recvcounts[i] elements from rank i at rdispls[i]; the counts
// of each pair must agree.
func (c *Comm) Alltoallv(sendbuf any, sendcounts, sdispls []int, recvbuf any, recvcounts, rdispls []int) {
	const name = "Alltoallv"
	t0 := c.traceStart()
	kind, n := c.checkBuf(name, "send buffer", sendbuf)
	_, rn := c.checkBuf(name, "receive buffer", recvbuf)
	c.checkRecv(name, recvbuf, kind, 0)
	c.checkCounts(name, "sendcounts", "sdispls", sendcounts, sdispls, n)
	c.checkCounts(name, "recvcounts", "rdispls", recvcounts, rdispls, rn)
	if c.w.tr != nil {
		total := 0
		for _, k := range sendcounts {
			total += k
		}
		c.collNative(t0, &collArgs{op: name, root: -1, kind: kind, n: n, send: sendbuf, recv: recvbuf,
			sendCounts: sendcounts, sendDispls: sdispls, recvCounts: recvcounts, recvDispls: rdispls}, total*kinds[kind].size)
		return
	}
	inst := c.arrive(collSig{op: name, root: -1, kind: kind, count: -1},
		sendRecv{send: sendbuf, recv: recvbuf, sendCounts: sendcounts, sendDisp: sdispls, recvCounts: recvcounts, recvDisp: rdispls},
		func(inst *collInstance) string {
			for i, s := range inst.deposits {
				for j, r := range inst.deposits {
					if sc, rc := s.(sendRecv).sendCounts[j], r.(sendRecv).recvCounts[i]; sc != rc {
						return fmt.Sprintf("rank %d sends %d elements to rank %d, which expects %d (recvcounts[%d])", i, sc, j, rc, i)
					}
				}
			}
			for i, s := range inst.deposits {
				sd := s.(sendRecv)
				for j, r := range inst.deposits {
					rd := r.(sendRecv)
					kinds[kind].copy(rd.recv, rd.recvDisp[i], sd.send, sd.sendDisp[j], sd.sendCounts[j])
				}
			}
			return ""
		})
	c.collAwait(inst, waitNoPeer, completed)
	c.depart(inst)
	if c.w.tracer != nil {
		total := 0
		for _, k := range sendcounts {
			total += k
		}
		c.emitColl(t0, inst, total*kinds[kind].size)
	}
}

// Scan stores in recvbuf of rank i the combination with op of sendbuf of
// ranks 0..i, in rank order.
func (c *Comm) Scan(sendbuf, recvbuf any, op Op) { c.scan("Scan", sendbuf, recvbuf, op, true) }

// Exscan stores in recvbuf of rank i > 0 the combination with op of sendbuf
// of ranks 0..i-1; recvbuf of rank 0 is left unchanged.
func (c *Comm) Exscan(sendbuf, recvbuf any, op Op) { c.scan("Exscan", sendbuf, recvbuf, op, false) }

func (c *Comm) scan(name string, sendbuf, recvbuf any, op Op, inclusive bool) {
	t0 := c.traceStart()
	kind, n := c.checkBuf(name, "send buffer", sendbuf)
	c.checkOp(name, op, kind)
	c.checkRecv(name, recvbuf, kind, n)
	if c.w.tr != nil {
		c.collNative(t0, &collArgs{op: name, root: -1, rop: op, kind: kind, n: n, send: sendbuf, recv: recvbuf,
			inclusive: inclusive}, n*kinds[kind].size)
		return
	}
	// Ranks after this one read the deposit after this one has left.
	inst := c.arrive(collSig{op: name, root: -1, rop: op, kind: kind, count: n}, kinds[kind].clone(sendbuf, 0, n), nil)
	upto := c.rank // exclusive bound of the ranks combined
	if inclusive {
		upto++
	}
	if upto > 0 {
		c.collAwait(inst, upto-1, prefixArrived(upto))
		acc := kinds[kind].clone(inst.deposits[0], 0, n)
		for _, d := range inst.deposits[1:upto] {
			kinds[kind].reduce(op, acc, d)
		}
		kinds[kind].copy(recvbuf, 0, acc, 0, n)
	}
	c.depart(inst)
	if c.w.tracer != nil {
		c.emitColl(t0, inst, n*kinds[kind].size)
	}
}

// checkCounts validates per-rank counts and displacements against a buffer
// of n elements.
func (c *Comm) checkCounts(op, countsName, displsName string, counts, displs []int, n int) {
	size := c.Size()
	if len(counts) != size || len(displs) != size {
		c.fail(op, "%s has %d entries and %s %d: want %d (one per rank)", countsName, len(counts), displsName, len(displs), size)
	}
	for i := range size {
		if counts[i] < 0 || displs[i] < 0 || displs[i]+counts[i] > n {
			c.fail(op, "%s[%d]=%d at %s[%d]=%d does not fit the buffer of %d elements",
				countsName, i, counts[i], displsName, i, displs[i], n)
		}
	}
}
