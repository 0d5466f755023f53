// This file defines the point-to-point structure the GOAL writer gives
// collectives: a real trace records one event per rank and call, so the
// messages come from the algorithm an MPI library would use.

package trace

// collMsg is one message of a collective, from the point of view of one
// participant.
type collMsg struct {
	send bool
	peer int   // position of the other participant
	size int64 // bytes
}

// collAlgorithms names the algorithm of each collective that WriteGOAL
// expands, for the comment at the top of the schedule.
var collAlgorithms = []struct{ ops, algorithm string }{
	{"Barrier, Split, Dup, CartCreate", "dissemination (1-byte messages)"},
	{"Bcast", "binomial tree from the root"},
	{"Reduce", "binomial tree to the root"},
	{"Allreduce", "binomial Reduce to the first participant, then binomial Bcast"},
	{"Gather, Gatherv", "linear to the root"},
	{"Scatter, Scatterv", "linear from the root"},
	{"Allgather, Allgatherv", "ring"},
	{"Alltoall, Alltoallv", "pairwise exchange (Alltoallv: each rank's total split evenly)"},
	{"Scan, Exscan", "linear chain"},
}

// collRounds returns the rounds of messages of participant i of a
// collective op among n participants (positions 0..n-1), rooted at root
// (-1 if unrooted), where bytes[j] is participant j's Event.Bytes. The
// messages of a round may proceed together; a round starts when the one
// before it completed. It returns false for operations it does not know.
func collRounds(op string, i, n, root int, bytes []int64) ([][]collMsg, bool) {
	size := func(j int) int64 { return max(bytes[j], 1) }
	switch op {
	case "Barrier", "Split", "Dup", "CartCreate":
		var rounds [][]collMsg
		for k := 1; k < n; k *= 2 {
			rounds = append(rounds, []collMsg{{true, (i + k) % n, 1}, {false, (i - k + n) % n, 1}})
		}
		return rounds, true
	case "Bcast":
		return bcastRounds(i, n, root, size(root)), true
	case "Reduce":
		return reduceRounds(i, n, root, size), true
	case "Allreduce":
		return append(reduceRounds(i, n, 0, size), bcastRounds(i, n, 0, size(0))...), true
	case "Gather", "Gatherv":
		if i != root {
			return [][]collMsg{{{true, root, size(i)}}}, true
		}
		var recvs []collMsg
		for j := range n {
			if j != root {
				recvs = append(recvs, collMsg{false, j, size(j)})
			}
		}
		return nonEmpty(recvs), true
	case "Scatter", "Scatterv":
		if i != root {
			return [][]collMsg{{{false, root, size(i)}}}, true
		}
		var sends []collMsg
		for j := range n {
			if j != root {
				sends = append(sends, collMsg{true, j, size(j)})
			}
		}
		return nonEmpty(sends), true
	case "Allgather", "Allgatherv":
		var rounds [][]collMsg
		for s := range n - 1 {
			rounds = append(rounds, []collMsg{
				{true, (i + 1) % n, size((i - s + n) % n)},
				{false, (i - 1 + n) % n, size((i - 1 - s + 2*n) % n)}})
		}
		return rounds, true
	case "Alltoall", "Alltoallv":
		block := func(j int) int64 { return max(bytes[j]/int64(n), 1) }
		var rounds [][]collMsg
		for s := 1; s < n; s++ {
			to, from := (i+s)%n, (i-s+n)%n
			rounds = append(rounds, []collMsg{{true, to, block(i)}, {false, from, block(from)}})
		}
		return rounds, true
	case "Scan", "Exscan":
		var rounds [][]collMsg
		if i > 0 {
			rounds = append(rounds, []collMsg{{false, i - 1, size(i - 1)}})
		}
		if i < n-1 {
			rounds = append(rounds, []collMsg{{true, i + 1, size(i)}})
		}
		return rounds, true
	}
	return nil, false
}

func nonEmpty(round []collMsg) [][]collMsg {
	if len(round) == 0 {
		return nil
	}
	return [][]collMsg{round}
}

// bcastRounds is the binomial-tree broadcast of MPICH: a participant
// receives from its parent, then sends to its children, all of size.
func bcastRounds(i, n, root int, size int64) [][]collMsg {
	v := (i - root + n) % n // position relative to the root
	var rounds [][]collMsg
	mask := 1
	for ; mask < n; mask <<= 1 {
		if v&mask != 0 {
			rounds = append(rounds, []collMsg{{false, (v - mask + root) % n, size}})
			break
		}
	}
	var sends []collMsg
	for mask >>= 1; mask > 0; mask >>= 1 {
		if v+mask < n {
			sends = append(sends, collMsg{true, (v + mask + root) % n, size})
		}
	}
	return append(rounds, nonEmpty(sends)...)
}

// reduceRounds is the binomial-tree reduction of MPICH: a participant
// receives from its children, then sends to its parent; messages have the
// size of the sender's contribution.
func reduceRounds(i, n, root int, size func(int) int64) [][]collMsg {
	v := (i - root + n) % n
	var recvs []collMsg
	for mask := 1; mask < n; mask <<= 1 {
		if v&mask == 0 {
			if child := v | mask; child < n {
				c := (child + root) % n
				recvs = append(recvs, collMsg{false, c, size(c)})
			}
			continue
		}
		rounds := nonEmpty(recvs)
		return append(rounds, []collMsg{{true, (v&^mask + root) % n, size(i)}})
	}
	return nonEmpty(recvs)
}
