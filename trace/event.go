// This file defines the event schema.

package trace

import "fmt"

// Time is a point or span of time in integer picoseconds.
type Time int64

// Common durations.
const (
	Nanosecond  Time = 1000
	Microsecond      = 1000 * Nanosecond
	Millisecond      = 1000 * Microsecond
	Second           = 1000 * Millisecond
)

// Seconds converts t to seconds.
func (t Time) Seconds() float64 { return float64(t) / float64(Second) }

// String prints t with a unit chosen for readability.
func (t Time) String() string {
	switch a := max(t, -t); {
	case a >= Second:
		return fmt.Sprintf("%.6gs", t.Seconds())
	case a >= Millisecond:
		return fmt.Sprintf("%.6gms", float64(t)/float64(Millisecond))
	case a >= Microsecond:
		return fmt.Sprintf("%.6gus", float64(t)/float64(Microsecond))
	default:
		return fmt.Sprintf("%.6gns", float64(t)/float64(Nanosecond))
	}
}

// Kind says what an event records.
type Kind string

const (
	// KindOp is one call of an operation (communication, collective,
	// thread primitive) from its enter to its exit.
	KindOp Kind = "op"
	// KindComplete is the completion of a nonblocking request, observed by
	// a Wait, Waitall, Waitany or Test call at time Exit (Enter == Exit).
	KindComplete Kind = "complete"
	// KindCompute is a compute fragment (modeled traces).
	KindCompute Kind = "compute"
	// KindCoreWait is a rank ready to run while other ranks held every
	// core of its node (modeled traces of nodes with more ranks than
	// cores); Op is empty.
	KindCoreWait Kind = "core_wait"
)

// NoPeer marks an event without a peer (collectives, thread primitives) or a
// wildcard that matched nothing.
const NoPeer = -1

// Event is one record of a trace. Fields that do not apply are zero, except
// Peer and Root which are NoPeer.
type Event struct {
	Rank   int    `json:"rank"`   // world rank of the caller
	Thread int    `json:"thread"` // 0 for the rank's main thread, 1+tid for pool threads
	Kind   Kind   `json:"kind"`
	Op     string `json:"op"` // operation name as in commlib: "Send", "Irecv", "Allreduce", "Mutex.Lock", ...

	Peer  int   `json:"peer"`            // world rank of the other side (actual source for receives), or NoPeer
	Root  int   `json:"root"`            // world rank of a rooted collective's root, or NoPeer
	Tag   int   `json:"tag,omitempty"`   // message tag (actual tag for receives)
	Bytes int64 `json:"bytes,omitempty"` // payload bytes of the message or of this rank's collective contribution
	Comm  int   `json:"comm"`            // communicator id: 0 is the world

	Request    int64   `json:"request,omitempty"`    // request id of a nonblocking call, or of the request completed
	Requests   []int64 `json:"requests,omitempty"`   // requests a Waitall/Waitany/Test call waited on
	Message    int64   `json:"message,omitempty"`    // message instance id shared by a send and its receive
	Collective int64   `json:"collective,omitempty"` // collective instance id shared by all ranks of one call
	Object     int64   `json:"object,omitempty"`     // id of the lock, semaphore, barrier or pool a thread primitive used

	Protocol  string `json:"protocol,omitempty"`  // "eager", "rendezvous", "sync", "buffered", "ready" for sends
	Algorithm string `json:"algorithm,omitempty"` // collectives of modeled traces: the algorithm the interpreter ran ("ring", "rabenseifner", ...)

	Site  string `json:"site,omitempty"` // call site file:line in the program
	Enter Time   `json:"enter"`
	Exit  Time   `json:"exit"`

	Seq int64 `json:"seq"` // per-rank sequence number: orders events of one rank that share a time
}

// Duration is Exit - Enter.
func (e *Event) Duration() Time { return e.Exit - e.Enter }

// Header is the first line of a native trace file.
type Header struct {
	Format     string   `json:"format"`            // always FormatName
	Version    int      `json:"version"`           // FormatVersion
	Source     string   `json:"source"`            // "commlib" for real runs, "interp" for predictions
	Program    string   `json:"program,omitempty"` // program path or package
	Package    string   `json:"package,omitempty"` // import path of the main package ("example.com/app"), however Program names it
	NP         int      `json:"np"`                // number of ranks
	Args       []string `json:"args,omitempty"`    // program arguments
	Clock      string   `json:"clock"`             // "monotonic" or "virtual"
	Start      string   `json:"start,omitempty"`   // wall-clock start of a real run (RFC 3339)
	EagerLimit int      `json:"eager_limit,omitempty"`
}

// FormatName and FormatVersion identify native trace files.
const (
	FormatName    = "predict-trace"
	FormatVersion = 1
)
