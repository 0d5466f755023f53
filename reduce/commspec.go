// This file defines what the arguments of commlib calls are to the
// reduction: which shape communication, which carry message data.

package reduce

import (
	"github.com/predict-tools/predict/modelgen"
	"golang.org/x/tools/go/ssa"
)

// commSpec lists argument positions of a commlib operation. Position 0 is
// the receiver of a method.
type commSpec struct {
	control  []int // values that shape communication: ranks, tags, roots, sizes, operators, handles
	contents []int // slices whose elements shape it: counts, displacements, dims, requests
	shape    []int // buffers whose length is the message size
	sendBufs []int // buffers whose contents are sent
	recvBufs []int // buffers whose contents are received
}

var commSpecs = map[string]commSpec{}

func init() {
	p2pSend := commSpec{control: []int{0, 2, 3}, shape: []int{1}, sendBufs: []int{1}}
	p2pRecv := commSpec{control: []int{0, 2, 3}, shape: []int{1}, recvBufs: []int{1}}
	for _, op := range []string{"Send", "Ssend", "Bsend", "Rsend", "Isend", "Issend", "Ibsend", "Irsend"} {
		commSpecs["Comm."+op] = p2pSend
	}
	commSpecs["Comm.Recv"], commSpecs["Comm.Irecv"] = p2pRecv, p2pRecv
	commSpecs["Comm.Sendrecv"] = commSpec{control: []int{0, 2, 3, 5, 6}, shape: []int{1, 4}, sendBufs: []int{1}, recvBufs: []int{4}}
	commSpecs["Comm.Wait"] = commSpec{control: []int{0, 1}}
	commSpecs["Comm.Test"] = commSpec{control: []int{0, 1}}
	commSpecs["Comm.Waitall"] = commSpec{control: []int{0, 1}, contents: []int{1}}
	commSpecs["Comm.Waitany"] = commSpec{control: []int{0, 1}, contents: []int{1}}
	commSpecs["Comm.Barrier"] = commSpec{control: []int{0}}
	commSpecs["Comm.Bcast"] = commSpec{control: []int{0, 2}, shape: []int{1}, sendBufs: []int{1}, recvBufs: []int{1}}
	rooted := commSpec{control: []int{0, 3}, shape: []int{1, 2}, sendBufs: []int{1}, recvBufs: []int{2}}
	commSpecs["Comm.Gather"], commSpecs["Comm.Scatter"] = rooted, rooted
	commSpecs["Comm.Reduce"] = commSpec{control: []int{0, 3, 4}, shape: []int{1, 2}, sendBufs: []int{1}, recvBufs: []int{2}}
	reduction := commSpec{control: []int{0, 3}, shape: []int{1, 2}, sendBufs: []int{1}, recvBufs: []int{2}}
	commSpecs["Comm.Allreduce"], commSpecs["Comm.Scan"], commSpecs["Comm.Exscan"] = reduction, reduction, reduction
	all := commSpec{control: []int{0}, shape: []int{1, 2}, sendBufs: []int{1}, recvBufs: []int{2}}
	commSpecs["Comm.Allgather"], commSpecs["Comm.Alltoall"] = all, all
	commSpecs["Comm.Gatherv"] = commSpec{control: []int{0, 5}, contents: []int{3, 4}, shape: []int{1, 2}, sendBufs: []int{1}, recvBufs: []int{2}}
	commSpecs["Comm.Allgatherv"] = commSpec{control: []int{0}, contents: []int{3, 4}, shape: []int{1, 2}, sendBufs: []int{1}, recvBufs: []int{2}}
	commSpecs["Comm.Scatterv"] = commSpec{control: []int{0, 5}, contents: []int{2, 3}, shape: []int{1, 4}, sendBufs: []int{1}, recvBufs: []int{4}}
	commSpecs["Comm.Alltoallv"] = commSpec{control: []int{0}, contents: []int{2, 3, 5, 6}, shape: []int{1, 4}, sendBufs: []int{1}, recvBufs: []int{4}}
	commSpecs["Comm.Split"] = commSpec{control: []int{0, 1, 2}}
	commSpecs["Comm.Dup"] = commSpec{control: []int{0}}
	commSpecs["Comm.CartCreate"] = commSpec{control: []int{0}, contents: []int{1, 2}}
	commSpecs["Comm.Coords"] = commSpec{control: []int{0, 1}}
	commSpecs["Comm.CartRank"] = commSpec{control: []int{0}, contents: []int{1}}
	commSpecs["Comm.Shift"] = commSpec{control: []int{0, 1, 2}}
	commSpecs["DimsCreate"] = commSpec{control: []int{0}, contents: []int{1}}
	commSpecs["Comm.BufferAttach"] = commSpec{control: []int{0, 1}}
	commSpecs["Comm.NewPool"] = commSpec{control: []int{0, 1}}
	commSpecs["Comm.Parallel"] = commSpec{control: []int{0, 1, 2}}
	commSpecs["Pool.SetTask"] = commSpec{control: []int{0, 1}}
	commSpecs["Pool.SetReduceOp"] = commSpec{control: []int{0, 1}}
	commSpecs["Pool.WaitForAll"] = commSpec{control: []int{0}}
	commSpecs["Comm.NewSemaphore"] = commSpec{control: []int{0, 1}}
	commSpecs["Comm.NewBarrier"] = commSpec{control: []int{0, 1}}
	for _, op := range []string{"Semaphore.Acquire", "Semaphore.TryAcquire", "Semaphore.Release"} {
		commSpecs[op] = commSpec{control: []int{0, 1}}
	}
	for _, op := range []string{"Mutex.Lock", "Mutex.TryLock", "Mutex.Unlock", "Barrier.Wait", "Pool.Close"} {
		commSpecs[op] = commSpec{control: []int{0}}
	}
	commSpecs["Mutex.Critical"] = commSpec{control: []int{0, 1}}
	// Queries and calls whose only argument is the communicator: the
	// interpreter answers them from it, so it is held even where the
	// result is cut (an opaque branch on c.Rank()).
	for _, op := range []string{"Comm.Rank", "Comm.Size", "Comm.WorldRank"} {
		commSpecs[op] = commSpec{control: []int{0}}
	}
	commSpecs["Main"] = commSpec{control: []int{0}}
	commSpecs["Run"] = commSpec{control: []int{0, 1}}
	commSpecs["RunWith"] = commSpec{control: []int{1}}
}

func isCommlib(fn *ssa.Function) bool { return modelgen.IsCommlib(fn) }

func opName(fn *ssa.Function) string { return modelgen.CommlibOp(fn) }
