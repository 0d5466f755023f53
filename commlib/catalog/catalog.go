// This file defines the vocabulary of the catalog (operations, classes,
// argument roles, protocols, collective shapes) and its lookups.

package catalog

import "strings"

// Path is the import path of commlib, the package the catalog describes.
const Path = "github.com/predict-tools/predict/commlib"

// Op describes one commlib operation.
type Op struct {
	// Name is the operation as NameOf spells it: "Comm.Send", "Wtime".
	Name string
	// Args are the roles of the arguments, by position; position 0 is a
	// method's receiver. There is one per parameter of the commlib
	// function (and its receiver).
	Args []Role
	// Class is the operation's family.
	Class Class
	// Blocking operations may wait for another rank or thread before they
	// return: blocking sends and receives, waits, collectives, locks.
	Blocking bool
	// Protocol is the protocol a send asks for (Eager for a standard
	// send, which turns rendezvous above the eager limit); "" for
	// operations that send nothing of their own.
	Protocol Protocol
	// Shape is how a collective's data flows; 0 for other operations.
	Shape Shape
	// Paraver is the operation's fixed value of the Paraver Operation
	// event (1, 2, ...: the same in every trace); 0 for operations that
	// get a value after the fixed ones, in the order of their names.
	Paraver int
}

// TraceName is the name trace events carry for the operation: Name less
// "Comm." ("Send", "Barrier", "NewPool", "Pool.SetTask", "Wtime").
func (o *Op) TraceName() string { return strings.TrimPrefix(o.Name, "Comm.") }

// Arg returns the position of the first argument of role r, -1 for none.
func (o *Op) Arg(r Role) int {
	for i, a := range o.Args {
		if a == r {
			return i
		}
	}
	return -1
}

// Contribution returns the position of the buffer whose size is one
// member's share of a collective (the bytes its trace event records): the
// receive buffer of a scatter, the send buffer (or Bcast's buffer)
// otherwise; -1 for collectives without data and other operations.
func (o *Op) Contribution() int {
	if o.Class != ClassCollective {
		return -1
	}
	if o.Shape == OneToAll {
		if i := o.Arg(ArgRecvBuf); i >= 0 {
			return i
		}
	}
	if i := o.Arg(ArgSendBuf); i >= 0 {
		return i
	}
	return o.Arg(ArgBuf)
}

// Class is the family of an operation.
type Class uint8

const (
	ClassStartup    Class = iota + 1 // Main, Run, RunWith: start the ranks
	ClassQuery                       // the rank, the size, the clock, the thread count: answers with no effect
	ClassTopology                    // Cartesian helpers: DimsCreate, Dims, Coords, CartRank, Shift
	ClassSend                        // point-to-point sends, blocking or not
	ClassRecv                        // point-to-point receives, blocking or not
	ClassSendrecv                    // a send and a receive in one call
	ClassCompletion                  // Wait, Waitall, Waitany, Test: completion of requests
	ClassCollective                  // collectives that move data or synchronize the ranks
	ClassCommCreate                  // Split, Dup, CartCreate: collectives that make a communicator
	ClassBuffer                      // BufferAttach, BufferDetach: the buffer of buffered sends
	ClassAbort                       // Comm.Abort: ends the run
	ClassPool                        // thread pools and fork/join: NewPool, Pool.*, Parallel
	ClassSync                        // thread synchronization: mutexes, semaphores, thread barriers
	ClassAtomic                      // atomic integers and floats
	ClassTooling                     // AddHooks: the tracing hooks, outside the model
	ClassValue                       // methods of commlib's values (errors, Op.String): no operation
)

var classNames = [...]string{ClassStartup: "startup", ClassQuery: "query", ClassTopology: "topology",
	ClassSend: "send", ClassRecv: "receive", ClassSendrecv: "sendrecv", ClassCompletion: "completion",
	ClassCollective: "collective", ClassCommCreate: "communicator", ClassBuffer: "buffer", ClassAbort: "abort",
	ClassPool: "pool", ClassSync: "sync", ClassAtomic: "atomic", ClassTooling: "tooling", ClassValue: "value"}

func (c Class) String() string {
	if int(c) < len(classNames) && classNames[c] != "" {
		return classNames[c]
	}
	return "class?"
}

// Thread reports whether c is a class of thread primitives (pools,
// synchronization, atomics).
func (c Class) Thread() bool { return c == ClassPool || c == ClassSync || c == ClassAtomic }

// Role is what an argument is to its operation.
type Role uint8

const (
	ArgComm      Role = iota + 1 // the communicator the operation acts on (a Comm method's receiver)
	ArgCaller                    // a Comm receiver the operation does not depend on: Abort ends the whole run, NewMutex and BufferDetach act on the calling process
	ArgSendBuf                   // a buffer whose contents are sent; its length is the message size
	ArgRecvBuf                   // a buffer whose contents are received
	ArgBuf                       // a buffer sent by the root and received by the others (Bcast)
	ArgPeer                      // the rank of the other side: destination or source
	ArgTag                       // a message tag
	ArgRoot                      // the root rank of a collective
	ArgReduction                 // a reduction operator (commlib.Op)
	ArgRequest                   // a request handle
	ArgRequests                  // a slice of request handles
	ArgCounts                    // per-rank element counts
	ArgDispls                    // per-rank displacements
	ArgColor                     // Split's color
	ArgKey                       // Split's key
	ArgDims                      // the dimensions of a Cartesian grid
	ArgPeriods                   // which dimensions of a grid are periodic
	ArgCoords                    // Cartesian coordinates
	ArgRank                      // a rank of the communicator
	ArgDim                       // a dimension of a grid
	ArgDisp                      // a displacement along a dimension
	ArgCount                     // a number of processes, threads, permits or buffer bytes
	ArgFunc                      // a function the operation runs: the SPMD body, a task, a thread's body, a critical section
	ArgObject                    // the pool, mutex, semaphore or barrier a method acts on
	ArgCell                      // the atomic a method acts on: memory, like a variable
	ArgValue                     // a value the operation reads as data: an atomic's operand, Op.String's receiver
	ArgDefault                   // Threads' default: its result unless --threads
	ArgError                     // an error: Abort's cause, an error method's receiver
	ArgConfig                    // RunWith's configuration
	ArgHooks                     // AddHooks' hooks
	numRoles
)

var roleNames = [...]string{ArgComm: "comm", ArgCaller: "caller", ArgSendBuf: "send buffer", ArgRecvBuf: "receive buffer",
	ArgBuf: "buffer", ArgPeer: "peer", ArgTag: "tag", ArgRoot: "root", ArgReduction: "reduction operator",
	ArgRequest: "request", ArgRequests: "requests", ArgCounts: "counts", ArgDispls: "displacements", ArgColor: "color",
	ArgKey: "key", ArgDims: "dims", ArgPeriods: "periods", ArgCoords: "coords", ArgRank: "rank", ArgDim: "dim",
	ArgDisp: "disp", ArgCount: "count", ArgFunc: "func", ArgObject: "object", ArgCell: "cell", ArgValue: "value",
	ArgDefault: "default", ArgError: "error", ArgConfig: "config", ArgHooks: "hooks"}

func (r Role) String() string {
	if r < numRoles && roleNames[r] != "" {
		return roleNames[r]
	}
	return "role?"
}

// Protocol is how a send hands over its message. The values are the
// names trace events carry, and their order is that of commlib's
// protocols (and of Paraver's protocol values, 1 to 5).
type Protocol string

const (
	Eager      Protocol = "eager"      // copied at the send; a standard send asks for it
	Rendezvous Protocol = "rendezvous" // completes when the receive is matched (a standard send above the eager limit)
	Sync       Protocol = "sync"       // Ssend, Issend: completes when the receive is matched
	Buffered   Protocol = "buffered"   // Bsend, Ibsend: copied into the attached buffer
	Ready      Protocol = "ready"      // Rsend, Irsend: the receive must already be posted
)

// Protocols lists the protocols in their order.
var Protocols = []Protocol{Eager, Rendezvous, Sync, Buffered, Ready}

// Shape is how the data of a collective flows between its members.
type Shape uint8

const (
	Barrier  Shape = iota + 1 // no data: every member waits for all
	OneToAll                  // from the root to every member: Bcast, Scatter(v)
	AllToOne                  // from every member to the root: Reduce, Gather(v)
	AllToAll                  // from every member to every member: Allreduce, Allgather(v), Alltoall(v)
	Prefix                    // from every member to those of higher rank: Scan, Exscan
)

var (
	byName  = map[string]*Op{}
	byTrace = map[string]*Op{}
)

func init() {
	for i := range ops {
		o := &ops[i]
		byName[o.Name] = o
		byTrace[o.TraceName()] = o
	}
}

// Lookup returns the operation called name (as NameOf spells it).
func Lookup(name string) (*Op, bool) {
	o, ok := byName[name]
	return o, ok
}

// ByTraceName returns the operation whose trace events carry name ("Send",
// "Pool.SetTask").
func ByTraceName(name string) (*Op, bool) {
	o, ok := byTrace[name]
	return o, ok
}

// All returns every operation, in the catalog's order.
func All() []*Op {
	out := make([]*Op, len(ops))
	for i := range ops {
		out[i] = &ops[i]
	}
	return out
}

// NameOf names a commlib function: recv is the name of its receiver's type
// (without pointer), "" for a package-level function.
func NameOf(recv, fn string) string {
	if recv == "" {
		return fn
	}
	return recv + "." + fn
}
