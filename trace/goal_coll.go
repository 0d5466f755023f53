// This file defines the point-to-point messages of collectives, per
// algorithm: the schedules the interpreter runs (RunSchedule), written
// out message by message for one participant so that the GOAL writer
// replays what was predicted.

package trace

import (
	"fmt"
	"slices"
)

// CollMsg is one message of a collective, from the point of view of one
// participant.
type CollMsg struct {
	Send bool
	Peer int   // position of the other participant in the collective
	Size int64 // bytes (0 for a barrier's messages)
}

// The algorithm names of CollectiveRounds: those of package machine
// (machine.Algorithm), which cannot be imported here (it imports trace).
var collAlgorithmNames = []string{"linear", "binomial", "recursive-doubling", "ring", "rabenseifner", "bruck", "pairwise", "scatter-allgather"}

// defaultAlgorithms is the algorithm of a collective when neither its
// events nor the writer's options choose one.
var defaultAlgorithms = map[string]string{
	"Barrier": "bruck", "Bcast": "binomial", "Reduce": "binomial", "Allreduce": "recursive-doubling",
	"Gather": "binomial", "Gatherv": "linear", "Scatter": "binomial", "Scatterv": "linear",
	"Allgather": "ring", "Allgatherv": "ring", "Alltoall": "pairwise", "Alltoallv": "linear",
	"Scan": "recursive-doubling", "Exscan": "recursive-doubling",
	"Split": "recursive-doubling", "Dup": "recursive-doubling", "CartCreate": "recursive-doubling",
}

// CollectiveRounds returns the rounds of messages of participant i of the
// collective op (commlib's name: "Allreduce", "Split", ...) among n
// participants (positions 0..n-1) rooted at root (ignored when unrooted),
// run with algorithm (package machine's names: "ring", "rabenseifner", ...),
// where bytes[j] is participant j's Event.Bytes. The messages of a round
// may proceed together; a round starts when the one before it completed;
// rounds in which i sends and receives nothing are left out.
//
// The schedules are those the interpreter costs, step for step: both run
// RunSchedule, which says what each operation moves (a test of package
// interp checks that its messages are these). It fails for an unknown
// operation or algorithm.
func CollectiveRounds(op, algorithm string, i, n, root int, bytes []int64) ([][]CollMsg, error) {
	if _, ok := defaultAlgorithms[op]; !ok {
		return nil, fmt.Errorf("collective %q: unknown operation", op)
	}
	if !slices.Contains(collAlgorithmNames, algorithm) {
		return nil, fmt.Errorf("%s: unknown algorithm %q", op, algorithm)
	}
	if i < 0 || i >= n || len(bytes) != n {
		return nil, fmt.Errorf("%s: participant %d of %d with %d sizes", op, i, n, len(bytes))
	}
	p := &collPlan{i: i, n: n}
	RunSchedule(p, op, algorithm, n, root, bytes)
	return p.rounds, nil
}

// collPlan collects the rounds of one participant i of n.
type collPlan struct {
	i, n   int
	rounds [][]CollMsg
}

// Exchange lists the messages of participant i in one round.
func (p *collPlan) Exchange(rd Round, size int64) {
	var round []CollMsg
	d, f := rd.Peers(p.i)
	if d >= 0 {
		round = append(round, CollMsg{Send: true, Peer: d, Size: size})
	}
	if f >= 0 {
		round = append(round, CollMsg{Peer: f, Size: size})
	}
	if round != nil {
		p.rounds = append(p.rounds, round)
	}
}

// Linear lists the messages of participant i: one round per message.
func (p *collPlan) Linear(root int, toRoot bool, size int64, sizes []int64) {
	of := func(r int) int64 {
		if sizes != nil {
			return sizes[r]
		}
		return size
	}
	if p.i != root {
		p.rounds = append(p.rounds, []CollMsg{{Send: toRoot, Peer: root, Size: of(p.i)}})
		return
	}
	for r := range p.n {
		if r != root {
			p.rounds = append(p.rounds, []CollMsg{{Send: !toRoot, Peer: r, Size: of(r)}})
		}
	}
}

// Uniform is false: the export lists every message.
func (p *collPlan) Uniform(int, int64) bool { return false }
