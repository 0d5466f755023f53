//go:build mpi

// This file defines traces under MPI: each rank's clock offset to rank 0
// (the fastest round trip, seed 001's method), one trace file per rank,
// and the merged trace that rank 0 writes.

package commlib

/*
#include "commlib_mpi.h"
*/
import "C"

import (
	"bytes"
	"cmp"
	"fmt"
	"os"
	"slices"

	"github.com/predict-tools/predict/trace"
)

// Clock synchronisation: a rank stops when its fastest round trip has not
// improved for syncPatience exchanges (MPIPerf's d), or after syncMax.
const (
	syncPatience = 100
	syncMax      = 2000
)

// clockOffset returns the offset o of this rank's trace clock to rank 0's
// (rank 0's time = local time + o). Ranks 1..np-1 synchronise with rank 0
// one after another: the rank sends its time T', rank 0 answers with its
// time T0, the rank reads T”; on the exchange with the smallest T”-T',
// o = T0 - (T'+T”)/2.
func (t *mpiTransport) clockOffset(w *world) trace.Time {
	var h C.MPI_Comm
	C.MPI_Comm_dup(C.cl_comm_world(), &h)
	defer C.MPI_Comm_free(&h)
	ty := mpiTypes[kindInt64]
	msg := make([]int64, 1)
	var st C.cl_status
	if t.rank == 0 {
		for peer := 1; peer < t.size; peer++ {
			for {
				C.cl_recv(dataOf(msg), 1, ty, C.int(peer), 0, h, &st)
				if msg[0] < 0 {
					break
				}
				msg[0] = int64(w.now())
				C.cl_send(0, dataOf(msg), 1, ty, C.int(peer), 0, h)
			}
		}
		return 0
	}
	best, offset := int64(-1), int64(0)
	for i, since := 0, 0; i < syncMax && since < syncPatience; i, since = i+1, since+1 {
		start := int64(w.now())
		msg[0] = start
		C.cl_send(0, dataOf(msg), 1, ty, 0, 0, h)
		C.cl_recv(dataOf(msg), 1, ty, 0, 0, h, &st)
		stop := int64(w.now())
		if rtt := stop - start; best < 0 || rtt < best {
			best, offset, since = rtt, msg[0]-(start+stop)/2, 0
		}
	}
	msg[0] = -1
	C.cl_send(0, dataOf(msg), 1, ty, 0, 0, h)
	return trace.Time(offset)
}

// finishTrace writes this rank's events, on rank 0's clock, to FILE.rankN,
// and has rank 0 gather every rank's events and write the merged trace to
// FILE, with message ids that match each receive with its send.
func (t *mpiTransport) finishTrace(c *Comm, offset trace.Time) error {
	w := c.w
	tr := w.tracer
	if tr.file == "" {
		return nil
	}
	p := c.p
	p.traceMu.Lock()
	events := slices.Clone(p.events)
	p.traceMu.Unlock()
	for i := range events {
		events[i].Enter += offset
		events[i].Exit += offset
	}
	h := tr.header
	h.EagerLimit = w.eagerLimit
	h.Clock = "monotonic, aligned to rank 0 by the fastest round trip"
	var buf bytes.Buffer
	if err := trace.WriteJSONL(&buf, h, events); err != nil {
		return fmt.Errorf("commlib: trace: %v", err)
	}
	rankFile := fmt.Sprintf("%s.rank%d", tr.file, t.rank)
	if err := os.WriteFile(rankFile, buf.Bytes(), 0o666); err != nil {
		return fmt.Errorf("commlib: trace: %v", err)
	}

	// Gather every rank's file at rank 0: no shared file system needed.
	world := C.cl_comm_world()
	sizes := make([]int, t.size)
	t.check(c, "trace", C.MPI_Gather(dataOf([]int{buf.Len()}), 1, mpiTypes[kindInt], dataOf(sizes), 1, mpiTypes[kindInt], 0, world))
	counts, displs := make([]C.int, t.size), make([]C.int, t.size)
	total := 0
	for r, n := range sizes {
		counts[r], displs[r] = C.int(n), C.int(total)
		total += n
	}
	var all []byte
	if t.rank == 0 {
		all = make([]byte, max(total, 1))
	}
	t.check(c, "trace", C.MPI_Gatherv(dataOf(buf.Bytes()), C.int(buf.Len()), mpiTypes[kindUint8],
		dataOf(all), cintsPtr(counts), cintsPtr(displs), mpiTypes[kindUint8], 0, world))
	if t.rank != 0 {
		return nil
	}
	var merged []trace.Event
	for r := range t.size {
		part := all[displs[r] : int(displs[r])+sizes[r]]
		_, evs, err := trace.ReadJSONL(bytes.NewReader(part), fmt.Sprintf("%s.rank%d", tr.file, r))
		if err != nil {
			return fmt.Errorf("commlib: trace: %v", err)
		}
		merged = append(merged, evs...)
	}
	matchMessages(merged)
	trace.Sort(merged)
	return writeTrace(tr.file, h, merged)
}

// matchMessages gives each send and its receive one message id, as the
// in-process runtime does. MPI delivers the messages from one rank to
// another on one communicator and tag in send order, so the k-th send
// matches the k-th receive that got such a message; receives of
// nonblocking calls are ordered by their Irecv.
func matchMessages(events []trace.Event) {
	type key struct{ comm, src, dst, tag int }
	type occurrence struct {
		order int64 // the rank's sequence number of the call that started it
		ev    *trace.Event
	}
	type reqKey struct {
		rank int
		id   int64
	}
	started := map[reqKey]int64{} // Irecv's sequence number, by rank and request
	for i := range events {
		if ev := &events[i]; ev.Kind == trace.KindOp && ev.Op == "Irecv" {
			started[reqKey{ev.Rank, ev.Request}] = ev.Seq
		}
	}
	sends := map[key][]occurrence{}
	recvs := map[key][]occurrence{}
	for i := range events {
		ev := &events[i]
		if ev.Peer < 0 {
			continue
		}
		switch {
		case ev.Protocol != "" && ev.Kind == trace.KindOp: // a send call (completions get its id below)
			k := key{ev.Comm, ev.Rank, ev.Peer, ev.Tag}
			sends[k] = append(sends[k], occurrence{ev.Seq, ev})
		case ev.Kind == trace.KindOp && (ev.Op == "Recv" || ev.Op == "Sendrecv"):
			k := key{ev.Comm, ev.Peer, ev.Rank, ev.Tag}
			recvs[k] = append(recvs[k], occurrence{ev.Seq, ev})
		case ev.Kind == trace.KindComplete && ev.Op == "Irecv":
			k := key{ev.Comm, ev.Peer, ev.Rank, ev.Tag}
			recvs[k] = append(recvs[k], occurrence{started[reqKey{ev.Rank, ev.Request}], ev})
		}
	}
	keys := make([]key, 0, len(sends))
	for k := range sends {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b key) int {
		return cmp.Or(cmp.Compare(a.comm, b.comm), cmp.Compare(a.src, b.src), cmp.Compare(a.dst, b.dst), cmp.Compare(a.tag, b.tag))
	})
	byOrder := func(a, b occurrence) int { return cmp.Compare(a.order, b.order) }
	sendIDs := map[reqKey]int64{} // nonblocking sends' ids, for their completions
	var next int64
	for _, k := range keys {
		ss, rs := sends[k], recvs[k]
		slices.SortFunc(ss, byOrder)
		slices.SortFunc(rs, byOrder)
		for i, s := range ss {
			next++
			s.ev.Message = next
			if s.ev.Request != 0 {
				sendIDs[reqKey{s.ev.Rank, s.ev.Request}] = next
			}
			if i < len(rs) {
				rs[i].ev.Message = next
			}
		}
	}
	for i := range events {
		ev := &events[i]
		if ev.Kind == trace.KindComplete && ev.Protocol != "" {
			ev.Message = sendIDs[reqKey{ev.Rank, ev.Request}]
		}
	}
}
