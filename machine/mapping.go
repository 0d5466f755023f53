// This file defines the placement of ranks on nodes.

package machine

import "fmt"

// NodesUsed is the number of nodes a job of np ranks occupies. With
// RanksPerNode > 0 it is ⌈np / RanksPerNode⌉, the fewest nodes that hold
// the job (a batch allocation of np tasks at RanksPerNode per node); with
// RanksPerNode = 0 (no limit) it is Nodes. With Explicit mapping it is one
// more than the largest node listed for ranks 0..np−1.
func (m *Machine) NodesUsed(np int) int {
	switch {
	case np < 1:
		return 0
	case m.Mapping == Explicit:
		n := 0
		for r := range min(np, len(m.Placement)) {
			n = max(n, m.Placement[r]+1)
		}
		return n
	case m.RanksPerNode > 0:
		return (np-1)/m.RanksPerNode + 1 // ⌈np/k⌉ without overflow at large np
	default:
		return max(m.Nodes, 1)
	}
}

// NodeOf returns the node (0-based) of rank in a job of np ranks.
//
//   - Block: with RanksPerNode = k > 0, rank / k (consecutive ranks fill a
//     node); with no limit, ⌊rank·n/np⌋ over the n = Nodes nodes
//     (contiguous, nearly equal shares).
//   - Cyclic: rank mod n, over the n = NodesUsed(np) nodes of the job.
//   - Explicit: Placement[rank]. Ranks beyond the list repeat it
//     (Placement[rank mod len]); [Machine.CheckNP] reports such a job as an
//     error, so this happens only to callers that skipped the check.
//
// NodeOf is defined for every rank 0 ≤ rank < np and never panics on a
// valid machine.
func (m *Machine) NodeOf(rank, np int) int {
	switch m.Mapping {
	case Explicit:
		if len(m.Placement) == 0 {
			return 0
		}
		return m.Placement[rank%len(m.Placement)]
	case Cyclic:
		return rank % max(m.NodesUsed(np), 1)
	default:
		if m.RanksPerNode > 0 {
			return rank / m.RanksPerNode
		}
		n := max(m.Nodes, 1)
		// rank·n needs up to 94 bits at the edges of int: divide exactly
		// through a 128-bit product, rounding down.
		return int(floorMulDiv(int64(rank), int64(n), int64(max(np, 1))))
	}
}

// SameNode reports whether ranks a and b of a job of np ranks share a node,
// so that messages between them use the intra-node parameters.
func (m *Machine) SameNode(a, b, np int) bool {
	return m.NodeOf(a, np) == m.NodeOf(b, np)
}

// CheckNP reports whether a job of np ranks fits the machine: at least one
// rank, no more nodes than the machine has, and a placement for every rank
// under Explicit mapping.
func (m *Machine) CheckNP(np int) error {
	switch {
	case np < 1:
		return fmt.Errorf("machine %s: %d ranks: want at least 1", m.Name, np)
	case m.Mapping == Explicit && np > len(m.Placement):
		return fmt.Errorf("machine %s: %d ranks, but its placement lists %d", m.Name, np, len(m.Placement))
	case m.Nodes > 0 && m.NodesUsed(np) > m.Nodes:
		return fmt.Errorf("machine %s: %d ranks at %d per node need %d nodes, it has %d",
			m.Name, np, m.RanksPerNode, m.NodesUsed(np), m.Nodes)
	}
	return nil
}
