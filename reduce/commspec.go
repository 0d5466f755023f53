// This file defines what the arguments of commlib calls are to the
// reduction: which shape communication, which carry message data. The
// arguments' roles come from commlib's catalog.

package reduce

import (
	"fmt"

	"github.com/predict-tools/predict/commlib/catalog"
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
	// collective: what its members receive is what they sent to this
	// operation (a reduction of it), never another operation's message
	collective bool
}

// commSpecs holds the spec of every operation of the catalog; an operation
// missing from it (none, while the catalog's test passes) has no spec.
var commSpecs = map[string]commSpec{}

// smallQueries are the commlib calls a sealed loop may make: they neither
// communicate nor have effects the interpreter keeps (the catalog's
// queries: Wtime, Threads, Comm.Rank, Comm.Size, Comm.WorldRank).
var smallQueries = map[string]bool{}

func init() {
	for _, op := range catalog.All() {
		commSpecs[op.Name] = specOf(op)
		if op.Class == catalog.ClassQuery {
			smallQueries[op.Name] = true
		}
	}
}

// specOf derives an operation's spec from its argument roles. The
// communicator is held even where an operation's result is cut (an opaque
// branch on c.Rank()): the interpreter answers from it.
func specOf(op *catalog.Op) commSpec {
	s := commSpec{collective: op.Class == catalog.ClassCollective}
	for i, r := range op.Args {
		switch r {
		case catalog.ArgComm, catalog.ArgPeer, catalog.ArgTag, catalog.ArgRoot, catalog.ArgReduction, catalog.ArgRequest,
			catalog.ArgColor, catalog.ArgKey, catalog.ArgRank, catalog.ArgDim, catalog.ArgDisp, catalog.ArgCount,
			catalog.ArgFunc, catalog.ArgObject:
			s.control = append(s.control, i)
		case catalog.ArgRequests:
			s.control = append(s.control, i)
			s.contents = append(s.contents, i)
		case catalog.ArgCounts, catalog.ArgDispls, catalog.ArgDims, catalog.ArgPeriods, catalog.ArgCoords:
			s.contents = append(s.contents, i)
		case catalog.ArgSendBuf:
			s.shape = append(s.shape, i)
			s.sendBufs = append(s.sendBufs, i)
		case catalog.ArgRecvBuf:
			s.shape = append(s.shape, i)
			s.recvBufs = append(s.recvBufs, i)
		case catalog.ArgBuf:
			s.shape = append(s.shape, i)
			s.sendBufs = append(s.sendBufs, i)
			s.recvBufs = append(s.recvBufs, i)
		case catalog.ArgCaller, catalog.ArgCell, catalog.ArgValue, catalog.ArgDefault, catalog.ArgError,
			catalog.ArgConfig, catalog.ArgHooks:
			// Data, or not read: an atomic is memory, Threads' default
			// and an abort's cause are held only where their use is.
		default:
			panic(fmt.Sprintf("reduce: %s: argument %d has role %d, which the reduction does not know", op.Name, i, r))
		}
	}
	return s
}

func isCommlib(fn *ssa.Function) bool { return modelgen.IsCommlib(fn) }

func opName(fn *ssa.Function) string { return modelgen.CommlibOp(fn) }
