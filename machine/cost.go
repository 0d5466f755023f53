// This file defines the cost functions: LogGOPS message costs, ping-pong
// table interpolation, thread primitive costs and compute scaling. Each is
// exact or returns the Overflow sentinel (overflow.go); none wraps round.

package machine

import (
	"sort"

	"github.com/predict-tools/predict/trace"
)

// extra is the number of bytes beyond the first, s−1, which the per-byte
// terms of LogGOPS multiply; an empty message costs what a 1-byte one does.
func extra(s int64) int64 { return max(s-1, 0) }

// SendOverhead is the sender's CPU time for a message of s bytes: o + (s−1)·O,
// or [Overflow].
func (p *LogGOPS) SendOverhead(s int64) trace.Time {
	return AddTime(p.Overhead, p.OverheadPerByte.Times(extra(s)))
}

// RecvOverhead is the receiver's CPU time for a message of s bytes once it
// has arrived: o + (s−1)·O, or [Overflow].
func (p *LogGOPS) RecvOverhead(s int64) trace.Time {
	return p.SendOverhead(s)
}

// Gap is how long a message of s bytes keeps the sender's NIC busy: the
// next message from the same rank is injected no earlier than Gap(s) after
// this one was: g + (s−1)·G, or [Overflow].
func (p *LogGOPS) Gap(s int64) trace.Time {
	return AddTime(p.GapPerMessage, p.GapPerByte.Times(extra(s)))
}

// Transfer is the time from the start of a send of s bytes to the arrival
// of its last byte at the receiver: o + L + (s−1)·G. The per-byte CPU
// overhead O overlaps the wire time and is not part of it. [Overflow] when
// it does not fit the clock.
func (p *LogGOPS) Transfer(s int64) trace.Time {
	return AddTime(AddTime(p.Overhead, p.Latency), p.GapPerByte.Times(extra(s)))
}

// Eager reports whether a standard send of s bytes is eager (s ≤ S): it
// completes without waiting for the matching receive. Larger ones use the
// rendezvous protocol.
func (p *LogGOPS) Eager(s int64) bool { return s <= p.EagerLimit }

// At returns the one-way time of a message of s bytes: linear
// interpolation between the two points around s, the last segment's slope
// beyond the last point, and the first point's time below the first point
// (a message never costs less than the smallest one measured). t must be
// valid (see [Machine.Validate]); an empty table gives 0. Extrapolation
// beyond the clock gives [Overflow].
func (t Table) At(s int64) trace.Time {
	n := len(t)
	switch {
	case n == 0:
		return 0
	case n == 1 || s <= t[0].Bytes:
		return t[0].Time
	}
	// i is the first point at or beyond s; the segment is [i-1, i].
	i := sort.Search(n, func(i int) bool { return t[i].Bytes >= s })
	if i == n {
		i = n - 1 // extrapolate with the last segment
	}
	a, b := t[i-1], t[i]
	// s > a.Bytes ≥ 0 and b.Bytes > a.Bytes, so neither difference wraps;
	// mulDiv saturates, and a decreasing interior segment stays between
	// its two points.
	dt := int64(subTime(b.Time, a.Time))
	return AddTime(a.Time, trace.Time(mulDiv(dt, s-a.Bytes, b.Bytes-a.Bytes)))
}

// A Link is the cost model between two ranks: the LogGOPS parameters of
// their level and, when the machine has one, that level's ping-pong table.
// Get one with [Machine.Link] or [Machine.Level].
type Link struct {
	*LogGOPS
	Table Table // empty: the LogGOPS fit decides the transfer time
	// Segments, the fit of Table, extend it beyond its last point (with
	// a table only; see [Link.Transfer]).
	Segments Segments
	Inter    bool // the ranks are on different nodes
}

// Link returns the cost model for a message from rank a to rank b in a job
// of np ranks: intra-node when the mapping puts them on one node,
// inter-node otherwise.
func (m *Machine) Link(a, b, np int) Link {
	return m.Level(!m.SameNode(a, b, np))
}

// Level returns the cost model of the inter-node level (inter) or the
// intra-node one.
func (m *Machine) Level(inter bool) Link {
	if inter {
		return Link{LogGOPS: &m.Inter, Table: m.Table.Inter, Segments: m.Table.InterSegments, Inter: true}
	}
	return Link{LogGOPS: &m.Intra, Table: m.Table.Intra, Segments: m.Table.IntraSegments}
}

// Transfer is the time from the start of a send of s bytes to the arrival
// of its last byte. Without a table it is the LogGOPS o + L + (s−1)·G. With
// one, it is the table's one-way time ([Link.TableAt]) less the receive overhead, and, for
// a size beyond the eager limit, less the rendezvous handshake the
// interpreter adds before the data leave (Rendezvous: the table's
// ping-pong ran the runtime's own protocol, so its time holds it), so that a
// ping-pong costs exactly what the table says (the receive completes
// Table.At(s) after the send started); never less than the send overhead.
// [Overflow] when the table's time or the overheads do not fit.
func (l Link) Transfer(s int64) trace.Time {
	if len(l.Table) == 0 {
		return l.LogGOPS.Transfer(s)
	}
	oneWay, recv := l.TableAt(s), l.RecvOverhead(s)
	if Overflowed(oneWay) || Overflowed(recv) {
		return Overflow
	}
	if !l.Eager(s) {
		req, ans := l.rendezvous(s, oneWay)
		recv = AddTime(recv, AddTime(req, ans))
	}
	return max(oneWay-recv, l.SendOverhead(s))
}

// Rendezvous returns the two legs of the rendezvous handshake of an s-byte
// message, the receiver waiting: the request to send (the send overhead
// of one byte and L) and its answer (L). With a table, for a size beyond the eager limit, the table's time holds the
// handshake: it is taken at most up to what the table leaves beyond the
// message's send and receive overheads, both legs in proportion, so that
// a ping-pong costs the table's time whenever the table is at least the
// two overheads (a calibration's L and O need not add up to its table: in
// one process the fitted L is mostly waking the receiver).
func (l Link) Rendezvous(s int64) (request, answer trace.Time) {
	if len(l.Table) == 0 || l.Eager(s) {
		return l.rendezvous(s, 0)
	}
	return l.rendezvous(s, l.TableAt(s))
}

// TableAt is the one-way time of s bytes that the link's table gives:
// [Table.At] up to the table's last point (the table is exact where it
// was measured). Beyond it, with segments, the table's last time extended
// by the last segment's cost per byte; without, [Table.At] extends the
// table's last two points.
//
// The last segment is a least-squares line through every size of its
// range (within the fit's tolerance of each), where the table's last two
// points are the difference of two noisy means: at 2 and 4 MiB in one
// process, where the messages leave the caches, they move by tens of
// percent from one calibration to the next, and their chord with them.
// Starting from the table's last time keeps the model continuous there.
// SimGrid/SMPI likewise applies its last range's factors to every larger
// message. An empty table gives 0.
func (l Link) TableAt(s int64) trace.Time {
	n := len(l.Table)
	if n == 0 || len(l.Segments) == 0 || s <= l.Table[n-1].Bytes {
		return l.Table.At(s)
	}
	last := l.Table[n-1]
	return AddTime(last.Time, l.Segments[len(l.Segments)-1].Slope.Times(s-last.Bytes))
}

// Copy is the time to move s bytes through the link's memory with no
// message around them: what a collective's member spends copying its own
// block from its send buffer to its receive buffer. Without a table it is
// s·G. With one it is what s bytes add to the smallest message, the
// table's one-way time of s bytes less that of its first size
// ([Link.TableAt]), and never less than s·G: at the sizes where messages
// leave the caches (beyond a few hundred KiB) the table's slope is two to
// three times the fitted G, which the small sizes' noise pulls down, and
// a copy in one process leaves them as a message does. [Overflow] when it
// does not fit.
func (l Link) Copy(s int64) trace.Time {
	g := l.GapPerByte.Times(s)
	if len(l.Table) == 0 || s <= l.Table[0].Bytes {
		return g
	}
	return max(g, subTime(l.TableAt(s), l.Table[0].Time))
}

// rendezvous is Rendezvous with the table's one-way time at s already read
// (unused without a table or at an eager size).
func (l Link) rendezvous(s int64, oneWay trace.Time) (request, answer trace.Time) {
	request, answer = AddTime(l.SendOverhead(1), l.Latency), l.Latency
	if len(l.Table) == 0 || l.Eager(s) {
		return request, answer
	}
	hs := AddTime(request, answer)
	room := oneWay - AddTime(l.SendOverhead(s), l.RecvOverhead(s))
	if Overflowed(hs) || room >= hs {
		return request, answer
	}
	room = max(room, 0)
	request = trace.Time(mulDiv(int64(request), int64(room), int64(hs)))
	return request, room - request
}

// PingPong is the one-way time of a ping-pong of s-byte standard sends,
// the receiver waiting, as the interpreter runs it: OneWay(s), and the
// handshake beyond the eager limit (Rendezvous). With a table it is the table's time
// (or the overheads, when the table says less).
func (l Link) PingPong(s int64) trace.Time {
	t := l.OneWay(s)
	if !l.Eager(s) {
		req, ans := l.Rendezvous(s)
		t = AddTime(t, AddTime(req, ans))
	}
	return t
}

// OneWay is the time from the start of a send of s bytes to the end of a
// receive that was already waiting for it: Transfer(s) + RecvOverhead(s),
// half the round trip of a ping-pong of eager messages (a rendezvous adds
// its handshake, Rendezvous); [Overflow] when it does not fit.
func (l Link) OneWay(s int64) trace.Time {
	return AddTime(l.Transfer(s), l.RecvOverhead(s))
}

// Compute scales a compute time measured by the timing pass to the target:
// t·CPUFactor, rounded to the nearest picosecond (exactly, from the binary
// value of CPUFactor), or [Overflow] when the product does not fit the
// clock. Validation bounds CPUFactor by [MaxCPUFactor], so a fragment of
// up to 2⁶³ ps / MaxCPUFactor ≈ 9.2 s always fits; a longer one may not.
func (m *Machine) Compute(t trace.Time) trace.Time {
	if m.CPUFactor == 1 {
		return t
	}
	return scaleTime(t, m.CPUFactor)
}

// PoolCreate is the cost of creating a pool of n threads: n × Create
// (pr_CreateThreadPool), or [Overflow]. A pool of n ≤ 0 threads costs 0.
func (c *ThreadCosts) PoolCreate(n int) trace.Time { return MulTime(c.Create, int64(max(n, 0))) }

// CopyCost is the cost of copying n bytes between threads: n × Copy
// (pr_Copy), or [Overflow]. Copying n ≤ 0 bytes costs 0.
func (c *ThreadCosts) CopyCost(n int64) trace.Time { return c.Copy.Times(max(n, 0)) }

// LockAcquired is when a thread whose clock reads t and which asks for a
// lock (or semaphore slots) last released at released gets it: it pays one
// attempt, TryLock, and waits until the release if that is later:
// t + TryLock + max(0, released − t) = max(t, released) + TryLock (pr_Lock,
// with sem_ts = released), or [Overflow].
func (c *ThreadCosts) LockAcquired(t, released trace.Time) trace.Time {
	return AddTime(max(t, released), c.TryLock)
}
