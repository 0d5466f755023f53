// This file defines the point-to-point messages of collectives, per
// algorithm: the schedules the interpreter runs (interp/coll.go), written
// out message by message so that the GOAL writer replays what was
// predicted.

package trace

import (
	"fmt"
	"math/bits"
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
// The schedules are those of the interpreter, step for step (a test of
// package interp checks it), with its sizes: s is the largest of bytes;
// Bcast, Reduce, Allreduce and Scan move s; Scatter moves s/n per rank;
// Gather moves each rank's own bytes (binomial: bytes[root+1] per rank);
// Allgather moves s per rank; Alltoall s/n per pair. Split, Dup and
// CartCreate are a recursive-doubling allgather of 8 bytes, and Scan and
// Exscan the same recursive-doubling scan whatever the algorithm. It fails
// for an unknown operation or algorithm.
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
	if n == 1 {
		return nil, nil
	}
	s := slices.Max(bytes)
	switch op {
	case "Split", "Dup", "CartCreate":
		p.doubling(func(k int) int64 { return 8 << uint(k) })
	case "Barrier":
		p.barrier(algorithm)
	case "Bcast":
		p.bcast(algorithm, root, s)
	case "Reduce":
		p.reduce(algorithm, root, s)
	case "Allreduce":
		p.allreduce(algorithm, s)
	case "Gather", "Gatherv":
		if algorithm == "binomial" {
			b := bytes[(root+1)%n]
			p.tree(root, false, func(span int) int64 { return b * int64(span) })
		} else {
			p.linear(root, true, func(r int) int64 { return bytes[r] })
		}
	case "Scatter", "Scatterv":
		per := max(s/int64(n), 1)
		if algorithm == "binomial" {
			p.tree(root, true, func(span int) int64 { return per * int64(span) })
		} else {
			p.linear(root, false, func(int) int64 { return per })
		}
	case "Allgather", "Allgatherv":
		p.allgather(algorithm, s)
	case "Alltoall", "Alltoallv":
		p.alltoall(algorithm, s)
	case "Scan", "Exscan":
		for k := 1; k < n; k <<= 1 {
			p.exchange(func(r int) int { return ifIn(r+k, n) }, func(r int) int { return ifIn(r-k, n) }, s)
		}
	}
	return p.rounds, nil
}

// ifIn returns r when it is a position 0..n-1, else -1.
func ifIn(r, n int) int {
	if r < 0 || r >= n {
		return -1
	}
	return r
}

// collPlan collects the rounds of one participant i of n.
type collPlan struct {
	i, n   int
	rounds [][]CollMsg
}

// exchange is one round in which each position r sends size bytes to
// to(r) and receives size bytes from from(r) (-1: none).
func (p *collPlan) exchange(to, from func(r int) int, size int64) {
	var round []CollMsg
	if d := to(p.i); d >= 0 {
		round = append(round, CollMsg{Send: true, Peer: d, Size: size})
	}
	if f := from(p.i); f >= 0 {
		round = append(round, CollMsg{Peer: f, Size: size})
	}
	if round != nil {
		p.rounds = append(p.rounds, round)
	}
}

// linear: the root exchanges with every other member in rank order, one
// message after the other.
func (p *collPlan) linear(root int, toRoot bool, bytes func(r int) int64) {
	if p.i != root {
		p.rounds = append(p.rounds, []CollMsg{{Send: toRoot, Peer: root, Size: bytes(p.i)}})
		return
	}
	for r := range p.n {
		if r != root {
			p.rounds = append(p.rounds, []CollMsg{{Send: !toRoot, Peer: r, Size: bytes(r)}})
		}
	}
}

// tree is a binomial tree rooted at root: down (bcast, scatter) or up
// (reduce, gather); size(step) gives the bytes of the round of that step.
func (p *collPlan) tree(root int, down bool, size func(step int) int64) {
	n := p.n
	rel := func(r int) int { return (r - root + n) % n }
	abs := func(v int) int { return (v + root) % n }
	round := func(step int) {
		parent := func(r int) int {
			if v := rel(r); v%(2*step) == step {
				return abs(v - step)
			}
			return -1
		}
		child := func(r int) int {
			if v := rel(r); v%(2*step) == 0 && v+step < n {
				return abs(v + step)
			}
			return -1
		}
		if down {
			p.exchange(child, parent, size(step))
		} else {
			p.exchange(parent, child, size(step))
		}
	}
	levels := bits.Len(uint(n - 1))
	for k := range levels {
		if down {
			round(1 << (levels - 1 - k))
		} else {
			round(1 << k)
		}
	}
}

// ring is n-1 steps of a ring, chunk bytes each.
func (p *collPlan) ring(chunk int64) {
	n := p.n
	for range n - 1 {
		p.exchange(func(r int) int { return (r + 1) % n }, func(r int) int { return (r - 1 + n) % n }, chunk)
	}
}

// doubling is recursive doubling with MPICH's handling of a count that is
// not a power of two: the extra ranks fold into partners first and get
// the result back last.
func (p *collPlan) doubling(size func(k int) int64) {
	n := p.n
	pof2 := 1 << (bits.Len(uint(n)) - 1)
	rem := n - pof2
	full := size(bits.Len(uint(pof2)) - 1)
	odd := func(r int) int { // the extra ranks 2i+1, i < rem, to their partners 2i
		if r < 2*rem && r%2 == 1 {
			return r - 1
		}
		return -1
	}
	even := func(r int) int {
		if r < 2*rem && r%2 == 0 {
			return r + 1
		}
		return -1
	}
	if rem > 0 {
		p.exchange(odd, even, full)
	}
	vrank := func(r int) int {
		switch {
		case r < 2*rem && r%2 == 1:
			return -1
		case r < 2*rem:
			return r / 2
		}
		return r - rem
	}
	real := func(v int) int {
		if v < rem {
			return 2 * v
		}
		return v + rem
	}
	for k, mask := 0, 1; mask < pof2; k, mask = k+1, mask<<1 {
		partner := func(r int) int {
			if v := vrank(r); v >= 0 {
				return real(v ^ mask)
			}
			return -1
		}
		p.exchange(partner, partner, size(k))
	}
	if rem > 0 {
		p.exchange(even, odd, full)
	}
}

// halving is the reduce-scatter of Rabenseifner: recursive halving among
// the first pof2 ranks.
func (p *collPlan) halving(bytes int64) {
	pof2 := 1 << (bits.Len(uint(p.n)) - 1)
	k := 0
	for mask := pof2 >> 1; mask > 0; mask >>= 1 {
		k++
		partner := func(r int) int {
			if r >= pof2 {
				return -1
			}
			return r ^ mask
		}
		p.exchange(partner, partner, max(bytes>>uint(k), 1))
	}
}

func (p *collPlan) barrier(alg string) {
	n := p.n
	if alg == "linear" {
		p.linear(0, true, func(int) int64 { return 0 })
		p.linear(0, false, func(int) int64 { return 0 })
		return
	}
	// Dissemination (recursive doubling takes the same rounds on powers
	// of two).
	for k := 1; k < n; k <<= 1 {
		p.exchange(func(r int) int { return (r + k) % n }, func(r int) int { return (r - k + n) % n }, 0)
	}
}

func (p *collPlan) bcast(alg string, root int, bytes int64) {
	switch alg {
	case "linear":
		p.linear(root, false, func(int) int64 { return bytes })
	case "scatter-allgather", "ring":
		chunk := (bytes + int64(p.n) - 1) / int64(p.n)
		p.tree(root, true, func(span int) int64 { return chunk * int64(span) })
		p.ring(chunk)
	default:
		p.tree(root, true, func(int) int64 { return bytes })
	}
}

func (p *collPlan) reduce(alg string, root int, bytes int64) {
	switch alg {
	case "linear":
		p.linear(root, true, func(int) int64 { return bytes })
	case "rabenseifner":
		p.halving(bytes)
		p.tree(root, false, func(span int) int64 { return max(bytes/int64(p.n)*int64(span), 1) })
	default:
		p.tree(root, false, func(int) int64 { return bytes })
	}
}

func (p *collPlan) allreduce(alg string, bytes int64) {
	n := p.n
	switch alg {
	case "linear":
		p.linear(0, true, func(int) int64 { return bytes })
		p.linear(0, false, func(int) int64 { return bytes })
	case "binomial":
		p.tree(0, false, func(int) int64 { return bytes })
		p.tree(0, true, func(int) int64 { return bytes })
	case "ring":
		chunk := (bytes + int64(n) - 1) / int64(n)
		p.ring(chunk)
		p.ring(chunk)
	case "rabenseifner":
		p.halving(bytes)
		p.doubling(func(k int) int64 { return max(bytes>>uint(bits.Len(uint(n))-1-k), 1) })
	default:
		p.doubling(func(int) int64 { return bytes })
	}
}

func (p *collPlan) allgather(alg string, bytes int64) {
	n := p.n
	switch alg {
	case "ring", "linear":
		p.ring(bytes)
	case "bruck":
		for k := 1; k < n; k <<= 1 {
			p.exchange(func(r int) int { return (r - k + n) % n }, func(r int) int { return (r + k) % n }, bytes*int64(min(k, n-k)))
		}
	default:
		p.doubling(func(k int) int64 { return bytes << uint(k) })
	}
}

func (p *collPlan) alltoall(alg string, bytes int64) {
	n := p.n
	block := max(bytes/int64(n), 1)
	if alg == "bruck" {
		for k := 1; k < n; k <<= 1 {
			p.exchange(func(r int) int { return (r + k) % n }, func(r int) int { return (r - k + n) % n }, block*int64((n+1)/2))
		}
		return
	}
	for k := 1; k < n; k++ { // pairwise and linear: n-1 exchanges
		p.exchange(func(r int) int { return (r + k) % n }, func(r int) int { return (r - k + n) % n }, block)
	}
}
