//go:build mpi

// This file defines the MPI transport: commlib's checked calls mapped onto
// MPI calls, one C call each where MPI has the operation.

package commlib

/*
#include "commlib_mpi.h"
*/
import "C"

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"
)

// mpiTransport is the transport of a run under MPI: one per process.
type mpiTransport struct {
	rank, size int
	tagUB      int
	bsend      unsafe.Pointer // C memory attached for buffered sends, nil when none
	watch      *watchdog      // nil unless COMMLIB_TIMEOUT is set
	// calls counts the calls into MPI that may block; yielded is when
	// the rank's goroutine last went through the scheduler (yield).
	calls   uint32
	yielded time.Time
}

// yield is called before each MPI call that may block. A rank that
// communicates without pause spends nearly all its time inside cgo calls,
// where the Go scheduler does not preempt it, so its scheduling tick never
// advances: once it has run for 10 ms (the runtime's forcePreemptNS),
// sysmon takes its P at every tick (20 µs) that finds it in a call, and
// wakes a thread to run the P, which finds nothing to do. Those threads
// share the rank's core (mpirun binds a rank to one), and the rank's polling
// in MPI stalls behind them: 9,000-11,000 context switches a second
// against C's 1,500, and ping-pong bandwidth 20-30 % below C's from 8 KiB up.
// Going through the scheduler every yieldEvery (runtime.Gosched: a few
// µs on a locked thread) keeps the tick moving. The clock is read every
// yieldCheck calls only.
func (t *mpiTransport) yield() {
	t.calls++
	if t.calls%yieldCheck != 0 {
		return
	}
	if now := time.Now(); now.Sub(t.yielded) >= yieldEvery {
		runtime.Gosched()
		t.yielded = now
	}
}

const (
	yieldEvery = 5 * time.Millisecond // half of the runtime's forcePreemptNS
	yieldCheck = 8
)

// mpiRequest is the MPI state of a nonblocking request.
type mpiRequest struct {
	h   C.MPI_Request
	pin runtime.Pinner // the buffer, until the request completes
}

func handle(c *Comm) C.MPI_Comm { return c.sh.native.(C.MPI_Comm) }

// check raises an MPI error code as commlib's error.
func (t *mpiTransport) check(c *Comm, op string, code C.int) {
	if code != C.MPI_SUCCESS {
		c.fail(op, "MPI error: %s", mpiErrorString(code))
	}
}

func (t *mpiTransport) checkTag(c *Comm, op string, tag int) {
	if tag > t.tagUB {
		c.fail(op, "invalid tag %d: this MPI library's MPI_TAG_UB is %d", tag, t.tagUB)
	}
}

func checkCount(c *Comm, op string, n int) {
	if n > 1<<31-1 {
		c.fail(op, "%d elements: MPI counts are C ints, at most %d", n, 1<<31-1)
	}
}

// standard returns the protocol a standard send of bytes is recorded with.
func (c *Comm) standard(bytes int) protocol {
	if c.w.eagerLimit < 0 || bytes > c.w.eagerLimit {
		return protoRendezvous
	}
	return protoEager
}

func (t *mpiTransport) send(c *Comm, op string, mode protocol, buf any, kind elemKind, n, dest, tag int) protocol {
	t.yield()
	t.checkTag(c, op, tag)
	checkCount(c, op, n)
	if mode == protoBuffered {
		t.needBuffer(c, op)
	}
	if w := t.watch; w != nil {
		w.enter(op, dest, tag)
		defer w.leave()
	}
	code := C.cl_send_addr(C.int(mode), addrOf(buf), C.int(n), mpiTypes[kind], C.int(dest), C.int(tag), handle(c))
	runtime.KeepAlive(buf)
	if code != C.MPI_SUCCESS {
		t.sendError(c, op, mode, n*kinds[kind].size, code)
	}
	if mode == protoEager {
		return c.standard(n * kinds[kind].size)
	}
	return mode
}

// needBuffer raises a buffered send without an attached buffer, as in-process.
func (t *mpiTransport) needBuffer(c *Comm, op string) {
	if c.p.bsendSize == 0 {
		c.fail(op, "no buffer is attached: call BufferAttach before buffered sends")
	}
}

func (t *mpiTransport) sendError(c *Comm, op string, mode protocol, bytes int, code C.int) {
	if mode == protoBuffered && C.cl_error_class(code) == C.MPI_ERR_BUFFER {
		c.fail(op, "attached buffer exhausted: the message of %d bytes does not fit the %d bytes attached (MPI: %s)",
			bytes, c.p.bsendSize, mpiErrorString(code))
	}
	t.check(c, op, code)
}

// problem describes a completed receive's status as commlib's problems:
// truncation, or a message that is not a whole number of elements.
func problem(st *C.cl_status, kind elemKind, n int) string {
	if st.error != C.MPI_SUCCESS && C.cl_error_class(st.error) == C.MPI_ERR_TRUNCATE {
		return fmt.Sprintf("message truncated: the message from rank %d (tag %d) has more than %d elements, the receive buffer holds %d",
			int(st.source), int(st.tag), n, n)
	}
	if st.count == C.MPI_UNDEFINED {
		return fmt.Sprintf("type mismatch: the message from rank %d (tag %d) is not a whole number of %s (%d bytes each)",
			int(st.source), int(st.tag), kinds[kind].name, kinds[kind].size)
	}
	return ""
}

func (t *mpiTransport) recv(c *Comm, op string, buf any, kind elemKind, n, source, tag int) (Status, string) {
	t.yield()
	checkCount(c, op, n)
	if w := t.watch; w != nil {
		w.enter(op, source, tag)
		defer w.leave()
	}
	st := C.cl_recv_addr(addrOf(buf), C.int(n), mpiTypes[kind], mpiRank(source), mpiTag(tag), handle(c))
	runtime.KeepAlive(buf)
	if p := problem(&st, kind, n); p != "" {
		return statusOf(&st), p
	}
	t.check(c, op, st.error)
	return statusOf(&st), ""
}

// addrOf is the address of buf's first element as an integer, for the
// blocking calls: cgo checks every pointer argument (about 10 ns a call),
// an integer not. The caller keeps buf alive across the call.
func addrOf(buf any) C.uintptr_t { return C.uintptr_t(uintptr(dataOf(buf))) }

func (t *mpiTransport) sendrecv(c *Comm, s, r *Request, sendbuf any) protocol {
	t.yield()
	const op = "Sendrecv"
	t.checkTag(c, op, s.tag)
	checkCount(c, op, s.n)
	checkCount(c, op, r.n)
	if w := t.watch; w != nil {
		w.enter(op, r.source, r.tag)
		defer w.leave()
	}
	var st C.cl_status
	code := C.cl_sendrecv(dataOf(sendbuf), C.int(s.n), mpiTypes[s.kind], mpiRank(s.source), C.int(s.tag),
		dataOf(r.buf), C.int(r.n), mpiTypes[r.kind], mpiRank(r.source), mpiTag(r.tag), handle(c), &st)
	r.done, r.status, r.problem = true, statusOf(&st), problem(&st, r.kind, r.n)
	if r.problem == "" {
		t.check(c, op, code)
	}
	s.done = true
	return c.standard(s.n * kinds[s.kind].size)
}

func (t *mpiTransport) start(c *Comm, r *Request, mode protocol, buf any) {
	op := "Irecv"
	if r.send {
		op = map[protocol]string{protoEager: "Isend", protoSync: "Issend", protoBuffered: "Ibsend", protoReady: "Irsend"}[mode]
		t.checkTag(c, op, r.tag)
		if mode == protoBuffered {
			t.needBuffer(c, op)
		}
	}
	checkCount(c, op, r.n)
	mr := &mpiRequest{}
	ptr := dataOf(buf)
	if r.n > 0 {
		mr.pin.Pin(ptr)
	}
	var code C.int
	if r.send {
		r.proto = mode
		if mode == protoEager {
			r.proto = c.standard(r.n * kinds[r.kind].size)
		}
		code = C.cl_isend(C.int(mode), ptr, C.int(r.n), mpiTypes[r.kind], C.int(r.source), C.int(r.tag), handle(c), &mr.h)
	} else {
		code = C.MPI_Irecv(ptr, C.int(r.n), mpiTypes[r.kind], mpiRank(r.source), mpiTag(r.tag), handle(c), &mr.h)
	}
	if code != C.MPI_SUCCESS {
		mr.pin.Unpin()
		if r.send {
			t.sendError(c, op, mode, r.n*kinds[r.kind].size, code)
		}
		t.check(c, op, code)
	}
	r.native = mr
}

// completeMPI records the completion of r with status st.
func completeMPI(r *Request, st *C.cl_status) {
	mr := r.native.(*mpiRequest)
	mr.pin.Unpin()
	r.native = nil
	r.done = true
	if r.send {
		r.status = Status{Source: r.source, Tag: r.tag, Count: r.n}
		if st.error != C.MPI_SUCCESS {
			r.problem = "MPI error: " + mpiErrorString(st.error)
		}
		return
	}
	r.status = statusOf(st)
	r.problem = problem(st, r.kind, r.n)
	if r.problem == "" && st.error != C.MPI_SUCCESS {
		r.problem = "MPI error: " + mpiErrorString(st.error)
	}
}

func (t *mpiTransport) wait(c *Comm, op string, reqs []*Request, any bool) {
	var live []*Request
	for _, r := range reqs {
		if r != nil && !r.consumed && !r.done && r.native != nil {
			live = append(live, r)
		}
	}
	if len(live) == 0 {
		return
	}
	if any {
		for _, r := range reqs {
			if r != nil && !r.consumed && r.done {
				return // already complete (ProcNull)
			}
		}
	}
	t.yield()
	if w := t.watch; w != nil {
		w.enter(op, live[0].source, live[0].tag)
		defer w.leave()
	}
	hs := make([]C.MPI_Request, len(live))
	ts := make([]C.MPI_Datatype, len(live))
	sts := make([]C.cl_status, len(live))
	for i, r := range live {
		hs[i] = r.native.(*mpiRequest).h
		ts[i] = mpiTypes[r.kind]
	}
	if any {
		var index C.int
		code := C.cl_waitany(C.int(len(live)), &hs[0], &ts[0], &index, &sts[0])
		if index == C.MPI_UNDEFINED || index < 0 {
			t.check(c, op, code)
			return
		}
		completeMPI(live[index], &sts[0])
		return
	}
	code := C.cl_waitall(C.int(len(live)), &hs[0], &ts[0], &sts[0])
	if code != C.MPI_SUCCESS && C.cl_error_class(code) != C.MPI_ERR_IN_STATUS {
		t.check(c, op, code)
	}
	for i, r := range live {
		if code == C.MPI_SUCCESS {
			sts[i].error = C.MPI_SUCCESS
		}
		completeMPI(r, &sts[i])
	}
}

func (t *mpiTransport) test(c *Comm, r *Request) {
	t.yield()
	mr, ok := r.native.(*mpiRequest)
	if !ok {
		return
	}
	var flag C.int
	var st C.cl_status
	code := C.cl_test(&mr.h, mpiTypes[r.kind], &flag, &st)
	if flag != 0 {
		completeMPI(r, &st)
		return
	}
	t.check(c, "Test", code)
}

// attach gives MPI a buffer for buffered sends, large enough for every set
// of messages that fits commlib's accounting (BsendOverhead per message)
// with MPI's own overhead per message instead.
func (t *mpiTransport) attach(c *Comm, size int) {
	msgs := size/BsendOverhead + 1
	total := size + msgs*int(C.MPI_BSEND_OVERHEAD)
	if total > 1<<31-1 {
		c.fail("BufferAttach", "buffer of %d bytes: MPI buffers hold at most %d bytes", size, 1<<31-1)
	}
	t.bsend = C.malloc(C.size_t(total))
	t.check(c, "BufferAttach", C.MPI_Buffer_attach(t.bsend, C.int(total)))
}

func (t *mpiTransport) detach(c *Comm) {
	if w := t.watch; w != nil {
		w.enter("BufferDetach", waitNoPeer, 0)
		defer w.leave()
	}
	var addr unsafe.Pointer
	var size C.int
	t.check(c, "BufferDetach", C.MPI_Buffer_detach(unsafe.Pointer(&addr), &size))
	C.free(t.bsend)
	t.bsend = nil
}

func (t *mpiTransport) abort(err error) {
	C.cl_abort(1)
}

// mpiNow is MPI_Wtime.
func mpiNow() float64 { return float64(C.MPI_Wtime()) }

// watchdog reports a rank blocked in one call for longer than a timeout,
// and ends the run (COMMLIB_TIMEOUT).
type watchdog struct {
	rank    int
	timeout time.Duration
	cur     atomic.Pointer[blockedCall]
}

type blockedCall struct {
	op       string
	peer     int
	tag      int
	since    time.Time
	pcs      [16]uintptr
	npcs     int
	reported bool
}

func (w *watchdog) enter(op string, peer, tag int) {
	b := &blockedCall{op: op, peer: peer, tag: tag, since: time.Now()}
	b.npcs = runtime.Callers(3, b.pcs[:])
	w.cur.Store(b)
}

func (w *watchdog) leave() { w.cur.Store(nil) }
