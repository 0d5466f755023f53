//go:build mpi

// -raw bypasses commlib, to split its overhead from that of cgo and of the
// Go runtime: "cgo" makes one cgo call per MPI_Send or MPI_Recv, "c" runs
// the whole batch of round trips in one C call, as testdata/pingpong.c.
// At -np 1 rank 0 sends to itself: keep -max within the self BTL's eager
// limit (256 bytes is), or its blocking Send waits forever.

package main

/*
#cgo !mpich pkg-config: ompi-c
#cgo mpich pkg-config: mpich
#include <mpi.h>

static int pp_send(void *b, int n, int peer) { return MPI_Send(b, n, MPI_BYTE, peer, 0, MPI_COMM_WORLD); }
static int pp_recv(void *b, int n, int peer) { return MPI_Recv(b, n, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); }
static void pp_loop(void *b, int n, int rank, int peer, int iters) {
	for (int i = 0; i < iters; i++) {
		if (rank == 0) {
			MPI_Send(b, n, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
			MPI_Recv(b, n, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else if (rank == 1) {
			MPI_Recv(b, n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(b, n, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
		}
	}
}
*/
import "C"

import "unsafe"

func init() {
	rawLoops["cgo"] = func(msg []byte, rank, peer, iters int) {
		p, n := unsafe.Pointer(unsafe.SliceData(msg)), C.int(len(msg))
		for range iters {
			switch rank {
			case 0:
				C.pp_send(p, n, C.int(peer))
				C.pp_recv(p, n, C.int(peer))
			case 1:
				C.pp_recv(p, n, 0)
				C.pp_send(p, n, 0)
			}
		}
	}
	rawLoops["c"] = func(msg []byte, rank, peer, iters int) {
		C.pp_loop(unsafe.Pointer(unsafe.SliceData(msg)), C.int(len(msg)), C.int(rank), C.int(peer), C.int(iters))
	}
}
