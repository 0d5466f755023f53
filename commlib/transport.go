// This file defines the seam between commlib's calls and the runtime that
// carries their messages when the ranks are not goroutines of this process.

package commlib

// A transport carries the messages and collectives of a run whose ranks are
// separate processes: the MPI runtime (build tag mpi, files mpi*.go). The
// in-process runtime has none (world.tr is nil) and every call takes its
// own path; with a transport, the calls check their arguments as always
// (rank, tag, buffer type, root, operator, counts), then hand the checked
// call to the transport, and record trace events as always. A transport
// raises errors with Comm.fail, so they are commlib's *Error.
type transport interface {
	// send sends n elements of buf to dest in mode and returns when buf
	// may be reused, with the protocol to record in the trace.
	send(c *Comm, op string, mode protocol, buf any, kind elemKind, n, dest, tag int) protocol
	// recv receives into buf and returns the status, or a problem
	// (truncation, type mismatch) to raise at the caller.
	recv(c *Comm, op string, buf any, kind elemKind, n, source, tag int) (Status, string)
	// sendrecv sends sendbuf and receives into recvbuf as if both started at once.
	sendrecv(c *Comm, s, r *Request, sendbuf any) protocol
	// start starts the nonblocking send or receive r.
	start(c *Comm, r *Request, mode protocol, buf any)
	// wait completes every active request of reqs (one of them with any).
	wait(c *Comm, op string, reqs []*Request, any bool)
	// test completes r if it is done, without blocking.
	test(c *Comm, r *Request)
	// attach and detach manage the buffer of buffered sends.
	attach(c *Comm, size int)
	detach(c *Comm)
	// collective runs a checked collective call.
	collective(c *Comm, a *collArgs)
	// abort ends every rank's process after err was reported.
	abort(err error)
}

// collArgs is a collective call as its rank makes it, checked.
type collArgs struct {
	op                     string
	root                   int // -1 for unrooted collectives
	rop                    Op
	kind                   elemKind
	n                      int // elements of the send buffer (of the buffer for Bcast, of the receive buffer for Scatter(v))
	send, recv             any
	sendCounts, sendDispls []int
	recvCounts, recvDispls []int
	inclusive              bool // Scan rather than Exscan

	// Split, Dup and CartCreate: the calling rank's color and key as
	// Split's, the new communicator's topology, and the rank's new
	// communicator (nil with color Undefined), set by the transport.
	color, key int
	dims       []int
	periods    []bool
	created    *Comm
}
