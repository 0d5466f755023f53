// This file defines what a collective costs a member beyond its messages:
// the copy of its own block, from its send buffer to its own receive
// buffer, which no schedule sends.

package interp

// selfBytes returns the bytes member r of a completed collective copies
// to itself: its block of an Alltoall(v), its contribution to an
// Allgather(v), and the root's own block of a Gather(v) or Scatter(v). A
// real MPI copies them through memory (Open MPI's self path, commlib's
// in-process copy); at np = 1 they are the whole exchange.
func selfBytes(in *collInstance, r, n int) int64 {
	args := in.args[r]
	esize := func(v V) int64 {
		if i, _ := v.R.(*iface); i != nil {
			return i.esize // as bufInfo counts a buffer's bytes
		}
		return 0
	}
	switch in.name {
	case "Alltoall":
		return in.bytes[r] / int64(max(n, 1))
	case "Alltoallv":
		if sc := intsOf(args[2]); r < len(sc) {
			return int64(sc[r]) * esize(args[1])
		}
	case "Allgather", "Allgatherv":
		return in.bytes[r]
	case "Gather", "Gatherv":
		if r == in.root {
			return in.bytes[r]
		}
	case "Scatter":
		if r == in.root {
			_, _, b := bufInfo(args[2])
			return b
		}
	case "Scatterv":
		if sc := intsOf(args[2]); r == in.root && r < len(sc) {
			return int64(sc[r]) * esize(args[1])
		}
	}
	return 0
}

// chargeSelf adds to each member's exit time and overhead the copy of
// its own block at the node's cost of moving its bytes (the intra-node
// level's Copy: the copy moves through the node's memory, as a message
// between two of its ranks does).
func (w *World) chargeSelf(g *group, in *collInstance, exits, ovh []int64) {
	intra := w.mach.Level(false)
	for r := range g.size {
		b := selfBytes(in, r, g.size)
		if b <= 0 {
			continue
		}
		c := int64(intra.Copy(b)) // Overflow saturates: addTime keeps it
		exits[r] = addTime(exits[r], c)
		ovh[r] = addTime(ovh[r], c)
	}
}
