// This file defines communicators.

package commlib

import (
	"sync"

	"github.com/predict-tools/predict/trace"
)

// Special ranks, tags and colors.
const (
	AnySource = -1        // Recv/Irecv from any rank
	AnyTag    = -1        // Recv/Irecv with any tag
	ProcNull  = -2        // a rank that makes point-to-point calls no-ops
	Undefined = -3        // the Split color of ranks that want no new communicator
	TagUB     = 1<<30 - 1 // the largest valid tag
)

// Comm is a communicator as seen from one rank: a group of ranks, a context
// in which their messages and collectives match, and the calling rank's
// position in it. Each rank has its own *Comm; only the rank's main
// goroutine may use it for communication.
type Comm struct {
	w       *world
	p       *process // the calling rank
	sh      *commShared
	rank    int   // the calling rank's rank in this communicator
	collSeq int64 // collective calls made on this communicator by this rank
}

// commShared is what all ranks of a communicator share.
type commShared struct {
	id    int
	name  string // for reports: "world", "split#1", ...
	group []int  // communicator rank → world rank

	mu    sync.Mutex
	colls map[int64]*collInstance // collective calls in progress, by sequence number

	dims    []int // Cartesian topology, nil when none
	periods []bool

	native any // the transport's handle (an MPI communicator); nil in-process
}

// Rank returns the calling rank's rank in the communicator, 0..Size()-1.
func (c *Comm) Rank() int { return c.rank }

// Size returns the number of ranks in the communicator.
func (c *Comm) Size() int { return len(c.sh.group) }

// WorldRank returns the calling rank's rank in the world communicator.
func (c *Comm) WorldRank() int { return c.p.rank }

// checkRank validates a destination or source rank.
func (c *Comm) checkRank(op, what string, r int, wildcard bool) {
	if r == ProcNull || (wildcard && r == AnySource) {
		return
	}
	if r < 0 || r >= len(c.sh.group) {
		c.fail(op, "invalid %s rank %d: communicator %s has ranks 0..%d", what, r, c.sh.name, len(c.sh.group)-1)
	}
}

// checkTag validates a tag.
func (c *Comm) checkTag(op string, tag int, wildcard bool) {
	if wildcard && tag == AnyTag {
		return
	}
	if tag < 0 || tag > TagUB {
		c.fail(op, "invalid tag %d: want 0..%d", tag, TagUB)
	}
}

// checkBuf validates a buffer and returns its kind and length.
func (c *Comm) checkBuf(op, what string, buf any) (elemKind, int) {
	k, n := inspect(buf)
	if k == kindInvalid {
		c.fail(op, "%s of type %s: want a slice of a numeric type ([]float64, []int, []byte, ...)", what, typeName(buf))
	}
	return k, n
}

// worldRankOf maps a communicator rank to a world rank for traces; special
// ranks map to trace.NoPeer.
func (c *Comm) worldRankOf(r int) int {
	if r < 0 || r >= len(c.sh.group) {
		return trace.NoPeer
	}
	return c.sh.group[r]
}
