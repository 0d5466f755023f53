//go:build mpi

// This file defines collectives and communicator creation under MPI.
//
// Data movement maps onto the MPI collective of the same name with the
// buffers' MPI datatypes. Reductions of integers and bools use MPI's
// operators (exact, in any order). Reductions of floating-point and complex
// numbers gather the contributions and combine them in rank order with
// commlib's own code, as the in-process runtime does: MPI may reassociate
// them (the result would depend on the algorithm and the number of nodes),
// and MPI has no logical operators on them.

package commlib

/*
#include "commlib_mpi.h"
*/
import "C"

import (
	"fmt"
	"slices"
	"unsafe"
)

func (t *mpiTransport) collective(c *Comm, a *collArgs) {
	t.yield()
	if w := t.watch; w != nil {
		w.enter(a.op, waitNoPeer, 0)
		defer w.leave()
	}
	checkCount(c, a.op, a.n*c.Size())
	h := handle(c)
	ty := mpiTypes[a.kind]
	n := C.int(a.n)
	root := C.int(a.root)
	var code C.int
	switch a.op {
	case "Barrier":
		code = C.MPI_Barrier(h)
	case "Bcast":
		code = C.MPI_Bcast(dataOf(a.send), n, ty, root, h)
	case "Reduce", "Allreduce", "Scan", "Exscan":
		if nativeOp(a.kind) {
			code = t.reduceNative(c, a)
		} else {
			t.reduceOrdered(c, a)
		}
	case "Gather":
		code = C.MPI_Gather(dataOf(a.send), n, ty, dataOf(a.recv), n, ty, root, h)
	case "Gatherv":
		counts, displs := cints(a.recvCounts), cints(a.recvDispls)
		code = C.MPI_Gatherv(dataOf(a.send), n, ty, dataOf(a.recv), cintsPtr(counts), cintsPtr(displs), ty, root, h)
	case "Scatter":
		code = C.MPI_Scatter(dataOf(a.send), n, ty, dataOf(a.recv), n, ty, root, h)
	case "Scatterv":
		counts, displs := cints(a.sendCounts), cints(a.sendDispls)
		code = C.MPI_Scatterv(dataOf(a.send), cintsPtr(counts), cintsPtr(displs), ty, dataOf(a.recv), n, ty, root, h)
	case "Allgather":
		code = C.MPI_Allgather(dataOf(a.send), n, ty, dataOf(a.recv), n, ty, h)
	case "Allgatherv":
		counts, displs := cints(a.recvCounts), cints(a.recvDispls)
		code = C.MPI_Allgatherv(dataOf(a.send), n, ty, dataOf(a.recv), cintsPtr(counts), cintsPtr(displs), ty, h)
	case "Alltoall":
		b := C.int(a.n / c.Size())
		code = C.MPI_Alltoall(dataOf(a.send), b, ty, dataOf(a.recv), b, ty, h)
	case "Alltoallv":
		sc, sd := cints(a.sendCounts), cints(a.sendDispls)
		rc, rd := cints(a.recvCounts), cints(a.recvDispls)
		code = C.MPI_Alltoallv(dataOf(a.send), cintsPtr(sc), cintsPtr(sd), ty,
			dataOf(a.recv), cintsPtr(rc), cintsPtr(rd), ty, h)
	case "Split", "Dup", "CartCreate":
		t.create(c, a)
	default:
		panic("commlib: MPI transport: unknown collective " + a.op)
	}
	t.check(c, a.op, code)
}

// inPlace returns MPI_IN_PLACE for a send buffer that is the receive
// buffer (MPI forbids aliased buffers), else the send buffer's address.
func inPlace(send, recv any) unsafe.Pointer {
	s := dataOf(send)
	if s != nil && s == dataOf(recv) {
		return C.cl_in_place()
	}
	return s
}

// nativeOp reports whether reductions of kind use MPI's operators: exact
// in any order, and defined by MPI for every operator commlib accepts.
func nativeOp(kind elemKind) bool {
	switch kind {
	case kindFloat32, kindFloat64, kindComplex64, kindComplex128:
		return false
	}
	return true
}

func (t *mpiTransport) reduceNative(c *Comm, a *collArgs) C.int {
	op := a.rop
	if a.kind == kindBool { // MPI's bitwise operators do not apply to C_BOOL; on bools they are the logical ones
		switch op {
		case Band:
			op = Land
		case Bor:
			op = Lor
		case Bxor:
			op = Lxor
		}
	}
	h, ty, n, mop := handle(c), mpiTypes[a.kind], C.int(a.n), mpiOps[op]
	switch a.op {
	case "Reduce":
		send := dataOf(a.send)
		if c.rank == a.root {
			send = inPlace(a.send, a.recv)
		}
		return C.MPI_Reduce(send, dataOf(a.recv), n, ty, mop, C.int(a.root), h)
	case "Allreduce":
		return C.MPI_Allreduce(inPlace(a.send, a.recv), dataOf(a.recv), n, ty, mop, h)
	case "Scan":
		return C.MPI_Scan(inPlace(a.send, a.recv), dataOf(a.recv), n, ty, mop, h)
	}
	// Exscan: MPI leaves rank 0's receive buffer undefined, commlib unchanged.
	recv := a.recv
	if c.rank == 0 {
		recv = kinds[a.kind].make(a.n)
	}
	return C.MPI_Exscan(dataOf(a.send), dataOf(recv), n, ty, mop, h)
}

// reduceOrdered reduces in rank order: the contributions are gathered (at
// the root for Reduce, everywhere otherwise) and combined as in-process.
func (t *mpiTransport) reduceOrdered(c *Comm, a *collArgs) {
	size, n := c.Size(), a.n
	h, ty := handle(c), mpiTypes[a.kind]
	k := kinds[a.kind]
	all := k.make(size * n)
	var code C.int
	if a.op == "Reduce" {
		code = C.MPI_Gather(dataOf(a.send), C.int(n), ty, dataOf(all), C.int(n), ty, C.int(a.root), h)
	} else {
		code = C.MPI_Allgather(dataOf(a.send), C.int(n), ty, dataOf(all), C.int(n), ty, h)
	}
	t.check(c, a.op, code)
	upto := size // ranks combined
	switch {
	case a.op == "Reduce" && c.rank != a.root:
		return
	case a.op == "Scan":
		upto = c.rank + 1
	case a.op == "Exscan":
		upto = c.rank
		if upto == 0 {
			return
		}
	}
	acc := k.clone(all, 0, n)
	for r := 1; r < upto; r++ {
		k.reduce(a.rop, acc, k.clone(all, r*n, n))
	}
	k.copy(a.recv, 0, acc, 0, n)
}

// create makes the communicators of Split, Dup and CartCreate. Every rank
// of the parent learns every rank's color and key, so that each computes
// the new groups as in-process, and every rank's count of communicators it
// has joined, so that ids agree: a communicator's id is its lowest world
// rank's count, times the number of ranks, plus that rank.
func (t *mpiTransport) create(c *Comm, a *collArgs) {
	size := c.Size()
	mine := []int{a.color, a.key, int(c.w.nextComm.Load())}
	all := make([]int, 3*size)
	t.check(c, a.op, C.MPI_Allgather(dataOf(mine), 3, mpiTypes[kindInt], dataOf(all), 3, mpiTypes[kindInt], handle(c)))
	colorKeys := make([][2]int, size)
	for r := range size {
		colorKeys[r] = [2]int{all[3*r], all[3*r+1]}
	}
	color := C.int(a.color)
	if a.color == Undefined {
		color = C.MPI_UNDEFINED
	}
	var nh C.MPI_Comm
	t.check(c, a.op, C.MPI_Comm_split(handle(c), color, C.int(a.key), &nh))
	if a.color == Undefined {
		return
	}
	c.w.nextComm.Add(1)
	for _, g := range splitGroups(colorKeys) {
		if g.color != a.color {
			continue
		}
		sh := &commShared{native: nh, dims: a.dims, periods: a.periods}
		leader, leaderCount := -1, 0
		for _, r := range g.ranks {
			wr := c.sh.group[r]
			sh.group = append(sh.group, wr)
			if leader < 0 || wr < leader {
				leader, leaderCount = wr, all[3*r+2]
			}
		}
		sh.id = leaderCount*c.w.np + leader
		sh.name = commName(c.sh.name, a.op, g.color, sh.id)
		me := slices.Index(sh.group, c.p.rank)
		var mpiMe C.int
		C.MPI_Comm_rank(nh, &mpiMe)
		if int(mpiMe) != me {
			panic(fmt.Sprintf("commlib: MPI ranks rank %d of %s as %d, commlib as %d", c.p.rank, sh.name, int(mpiMe), me))
		}
		a.created = &Comm{w: c.w, p: c.p, sh: sh, rank: me}
		return
	}
	panic("commlib: MPI transport: no group for the calling rank's color")
}
