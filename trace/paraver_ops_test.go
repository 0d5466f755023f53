// This file pins the fixed values of Paraver's Operation and protocol
// events: traces written earlier and Paraver configurations rely on them.

package trace

import (
	"slices"
	"testing"
)

func TestParaverFixedValues(t *testing.T) {
	want := []string{"Send", "Ssend", "Bsend", "Rsend", "Recv", "Sendrecv", "Isend", "Issend", "Ibsend",
		"Irsend", "Irecv", "Wait", "Waitall", "Waitany", "Test", "Barrier", "Bcast", "Reduce", "Allreduce",
		"Gather", "Gatherv", "Scatter", "Scatterv", "Allgather", "Allgatherv", "Alltoall", "Alltoallv", "Scan",
		"Exscan", "Split", "Dup", "CartCreate", "NewPool", "Pool.SetTask", "Pool.WaitForAll", "Pool.Close",
		"Parallel", "NewMutex", "Mutex.Lock", "Mutex.TryLock", "Mutex.Unlock", "NewSemaphore",
		"Semaphore.Acquire", "Semaphore.TryAcquire", "Semaphore.Release", "NewBarrier", "Barrier.Wait",
		"BufferAttach", "BufferDetach", "compute"}
	if !slices.Equal(prvOps, want) {
		t.Errorf("Paraver operation values (1, 2, ...) changed:\n got %q\nwant %q", prvOps, want)
	}
	if want := []string{"eager", "rendezvous", "sync", "buffered", "ready"}; !slices.Equal(prvProtocols, want) {
		t.Errorf("Paraver protocol values changed: got %q, want %q", prvProtocols, want)
	}
}

// TestParaverStates pins the state of calls the catalog classes.
func TestParaverStates(t *testing.T) {
	for op, want := range map[string]int{"Send": prvBlockingSend, "Isend": prvImmediateSend, "Recv": prvWaitMessage,
		"Irecv": prvImmediateRecv, "Sendrecv": prvSendRecv, "Wait": prvWaitAll, "Waitany": prvWaitAll, "Test": prvTestProbe,
		"Barrier": prvSync, "Allreduce": prvGroupComm, "Split": prvGroupComm, "NewPool": prvForkJoin,
		"Pool.WaitForAll": prvForkJoin, "Parallel": prvForkJoin, "Mutex.Lock": prvSync, "Barrier.Wait": prvSync,
		"NewSemaphore": prvSync, "BufferAttach": prvOthers, "Rank": prvOthers} {
		if got := paraverState(&Event{Kind: KindOp, Op: op}); got != want {
			t.Errorf("%s: state %d, want %d", op, got, want)
		}
	}
}
