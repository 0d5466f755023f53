// This file defines the schedules of collective operations, per
// algorithm (binomial trees, recursive doubling, ring, Rabenseifner,
// Bruck, pairwise, linear), as rounds of point-to-point steps: one
// definition that the interpreter costs over its members' clocks
// (interp/schedule.go) and that the GOAL export writes out message by
// message (CollectiveRounds), so that the export replays what was
// predicted.

package trace

import (
	"math/bits"
	"slices"
)

// An Exchanger carries out the steps of a collective's schedule among n
// members at positions 0..n-1.
type Exchanger interface {
	// Exchange is one round in which each position r sends size bytes
	// to round.To(r) and receives size bytes from round.From(r), all
	// at once.
	Exchange(round Round, size int64)
	// Linear is the root exchanging with every other member in rank
	// order, one message after the other: sending to each (toRoot
	// false) or receiving from each. Member r's message is sizes[r]
	// bytes, or size when sizes is nil.
	Linear(root int, toRoot bool, size int64, sizes []int64)
	// Uniform is asked before rounds identical rounds of size bytes
	// each (a ring, a pairwise exchange) are run one by one: it reports
	// whether it took them all at once instead (the interpreter does for
	// schedules too long to run step by step).
	Uniform(rounds int, size int64) bool
}

// A Round is one round of a schedule among n members: who sends to whom.
// It is a value (no closure) so that running a schedule allocates
// nothing: the interpreter runs one per collective instance.
type Round struct {
	kind roundKind
	n    int
	k    int // shift and scan: the distance; trees: the step; pairs and halving: the mask
	root int // trees
	rem  int // pairs, folds: the members beyond the largest power of two (doubling)
	pof2 int // halving: the members that take part
}

type roundKind uint8

const (
	shift    roundKind = iota // r sends to r+k and receives from r−k, modulo n
	scan                      // r sends to r+k and receives from r−k, when in 0..n-1
	treeDown                  // a binomial tree's round of step k: parents send to children
	treeUp                    // children send to parents
	foldIn                    // the extra ranks 2i+1, i < rem, send to 2i
	foldOut                   // 2i, i < rem, sends to 2i+1
	pairs                     // recursive doubling: partners exchange
	halving                   // recursive halving among the first pof2 members
)

// Peers returns the member r sends to and the one it receives from (-1:
// none).
func (rd *Round) Peers(r int) (to, from int) {
	switch rd.kind {
	case shift:
		return wrap(r+rd.k, rd.n), wrap(r-rd.k+rd.n, rd.n)
	case scan:
		return ifIn(r+rd.k, rd.n), ifIn(r-rd.k, rd.n)
	case treeDown:
		return rd.child(r), rd.parent(r)
	case treeUp:
		return rd.parent(r), rd.child(r)
	case foldIn:
		return rd.odd(r), rd.even(r)
	case foldOut:
		return rd.even(r), rd.odd(r)
	case pairs:
		p := rd.partner(r)
		return p, p
	case halving:
		p := rd.halvingPartner(r)
		return p, p
	}
	return -1, -1
}

// ifIn returns r when it is a position 0..n-1, else -1.
func ifIn(r, n int) int {
	if r < 0 || r >= n {
		return -1
	}
	return r
}

// wrap returns x modulo n for x in 0..2n-1: the positions of the rounds
// are sums of two positions, and a division costs more than the rest of
// a step.
func wrap(x, n int) int {
	if x >= n {
		return x - n
	}
	return x
}

// parent and child are r's partners in a binomial tree's round of step k
// (a power of two): v is r's position relative to the root.
func (rd *Round) parent(r int) int {
	n, step := rd.n, rd.k
	if v := wrap(r-rd.root+n, n); v&(2*step-1) == step {
		return wrap(v-step+rd.root, n)
	}
	return -1
}

func (rd *Round) child(r int) int {
	n, step := rd.n, rd.k
	if v := wrap(r-rd.root+n, n); v&(2*step-1) == 0 && v+step < n {
		return wrap(v+step+rd.root, n)
	}
	return -1
}

// odd is the partner 2i of an extra rank 2i+1, i < rem; even the partner
// 2i+1 of 2i.
func (rd *Round) odd(r int) int {
	if r < 2*rd.rem && r%2 == 1 {
		return r - 1
	}
	return -1
}

func (rd *Round) even(r int) int {
	if r < 2*rd.rem && r%2 == 0 {
		return r + 1
	}
	return -1
}

// partner is r's partner in recursive doubling, by its rank among the
// members that remain after the fold (vrank), or -1 for a folded one.
func (rd *Round) partner(r int) int {
	rem := rd.rem
	var v int
	switch {
	case r < 2*rem && r%2 == 1:
		return -1
	case r < 2*rem:
		v = r / 2
	default:
		v = r - rem
	}
	if v ^= rd.k; v < rem {
		return 2 * v
	}
	return v + rem
}

func (rd *Round) halvingPartner(r int) int {
	if r >= rd.pof2 {
		return -1
	}
	return r ^ rd.k
}

// RunSchedule runs on x the schedule of collective op (commlib's name:
// "Allreduce", "Split", ...) among n members rooted at root (ignored when
// unrooted) with algorithm (package machine's names: "ring",
// "rabenseifner", ...; an unknown one is the operation's default
// schedule), where bytes[j] is member j's contribution. An unknown
// operation has no steps, nor has any operation among one member.
//
// The sizes: s is the largest of bytes; Bcast, Reduce, Allreduce and Scan
// move s; Scatter moves s/n per rank; Gather moves each rank's own bytes
// (binomial: bytes[root+1] per rank); Allgather moves s per rank;
// Alltoall s/n per pair. Split, Dup and CartCreate are a
// recursive-doubling allgather of 8 bytes, and Scan and Exscan the same
// recursive-doubling scan whatever the algorithm.
func RunSchedule(x Exchanger, op, algorithm string, n, root int, bytes []int64) {
	if n == 1 {
		return
	}
	sc := scheduler{x: x, n: n}
	s := slices.Max(bytes)
	switch op {
	case "Split", "Dup", "CartCreate":
		sc.doubling(func(k int) int64 { return 8 << uint(k) })
	case "Barrier":
		sc.barrier(algorithm)
	case "Bcast":
		sc.bcast(algorithm, root, s)
	case "Reduce":
		sc.reduce(algorithm, root, s)
	case "Allreduce":
		sc.allreduce(algorithm, s)
	case "Gather", "Gatherv":
		if algorithm == "binomial" {
			b := bytes[(root+1)%n]
			sc.tree(root, false, func(span int) int64 { return b * int64(span) })
		} else {
			x.Linear(root, true, 0, bytes)
		}
	case "Scatter", "Scatterv":
		per := max(s/int64(n), 1)
		if algorithm == "binomial" {
			sc.tree(root, true, func(span int) int64 { return per * int64(span) })
		} else {
			x.Linear(root, false, per, nil)
		}
	case "Allgather", "Allgatherv":
		sc.allgather(algorithm, s)
	case "Alltoall", "Alltoallv":
		sc.alltoall(algorithm, s)
	case "Scan", "Exscan":
		for k := 1; k < n; k <<= 1 {
			x.Exchange(Round{kind: scan, n: n, k: k}, s)
		}
	}
}

// scheduler runs the algorithms on x among n members.
type scheduler struct {
	x Exchanger
	n int
}

// shift is the round in which r sends to r+k and receives from r−k,
// modulo n (k may be negative).
func (s scheduler) shift(k int, size int64) {
	s.x.Exchange(Round{kind: shift, n: s.n, k: (k%s.n + s.n) % s.n}, size)
}

// tree is a binomial tree rooted at root: down (bcast, scatter) or up
// (reduce, gather); size(step) gives the bytes of the round of that step.
func (s scheduler) tree(root int, down bool, size func(step int) int64) {
	root = (root%s.n + s.n) % s.n // a root out of range (a malformed trace) is taken modulo n
	levels := bits.Len(uint(s.n - 1))
	for k := range levels {
		if down {
			step := 1 << (levels - 1 - k)
			s.x.Exchange(Round{kind: treeDown, n: s.n, k: step, root: root}, size(step))
		} else {
			step := 1 << k
			s.x.Exchange(Round{kind: treeUp, n: s.n, k: step, root: root}, size(step))
		}
	}
}

// ring is n-1 steps of a ring, chunk bytes each.
func (s scheduler) ring(chunk int64) {
	if s.x.Uniform(s.n-1, chunk) {
		return
	}
	for range s.n - 1 {
		s.shift(1, chunk)
	}
}

// doubling is recursive doubling with MPICH's handling of a count that is
// not a power of two: the extra ranks fold into partners first and get
// the result back last.
func (s scheduler) doubling(size func(k int) int64) {
	n := s.n
	pof2 := 1 << (bits.Len(uint(n)) - 1)
	rem := n - pof2
	full := size(bits.Len(uint(pof2)) - 1)
	if rem > 0 {
		s.x.Exchange(Round{kind: foldIn, n: n, rem: rem}, full)
	}
	for k, mask := 0, 1; mask < pof2; k, mask = k+1, mask<<1 {
		s.x.Exchange(Round{kind: pairs, n: n, k: mask, rem: rem}, size(k))
	}
	if rem > 0 {
		s.x.Exchange(Round{kind: foldOut, n: n, rem: rem}, full)
	}
}

// halving is the reduce-scatter of Rabenseifner: recursive halving among
// the first pof2 ranks.
func (s scheduler) halving(bytes int64) {
	pof2 := 1 << (bits.Len(uint(s.n)) - 1)
	k := 0
	for mask := pof2 >> 1; mask > 0; mask >>= 1 {
		k++
		s.x.Exchange(Round{kind: halving, n: s.n, k: mask, pof2: pof2}, max(bytes>>uint(k), 1))
	}
}

func (s scheduler) barrier(alg string) {
	if alg == "linear" {
		s.x.Linear(0, true, 0, nil)
		s.x.Linear(0, false, 0, nil)
		return
	}
	// Dissemination (Bruck's barrier; recursive doubling takes the same
	// rounds on powers of two).
	for k := 1; k < s.n; k <<= 1 {
		s.shift(k, 0)
	}
}

func (s scheduler) bcast(alg string, root int, bytes int64) {
	switch alg {
	case "linear":
		s.x.Linear(root, false, bytes, nil)
	case "scatter-allgather", "ring":
		chunk := (bytes + int64(s.n) - 1) / int64(s.n)
		s.tree(root, true, func(span int) int64 { return chunk * int64(span) })
		s.ring(chunk)
	default:
		s.tree(root, true, func(int) int64 { return bytes })
	}
}

func (s scheduler) reduce(alg string, root int, bytes int64) {
	switch alg {
	case "linear":
		s.x.Linear(root, true, bytes, nil)
	case "rabenseifner":
		s.halving(bytes)
		s.tree(root, false, func(span int) int64 { return max(bytes/int64(s.n)*int64(span), 1) })
	default:
		s.tree(root, false, func(int) int64 { return bytes })
	}
}

func (s scheduler) allreduce(alg string, bytes int64) {
	n := s.n
	switch alg {
	case "linear":
		s.x.Linear(0, true, bytes, nil)
		s.x.Linear(0, false, bytes, nil)
	case "binomial":
		s.tree(0, false, func(int) int64 { return bytes })
		s.tree(0, true, func(int) int64 { return bytes })
	case "ring":
		chunk := (bytes + int64(n) - 1) / int64(n)
		s.ring(chunk)
		s.ring(chunk)
	case "rabenseifner":
		s.halving(bytes)
		s.doubling(func(k int) int64 { return max(bytes>>uint(bits.Len(uint(n))-1-k), 1) })
	default:
		s.doubling(func(int) int64 { return bytes })
	}
}

func (s scheduler) allgather(alg string, bytes int64) {
	n := s.n
	switch alg {
	case "ring", "linear":
		s.ring(bytes)
	case "bruck":
		for k := 1; k < n; k <<= 1 {
			s.shift(-k, bytes*int64(min(k, n-k)))
		}
	default:
		s.doubling(func(k int) int64 { return bytes << uint(k) })
	}
}

func (s scheduler) alltoall(alg string, bytes int64) {
	n := s.n
	block := max(bytes/int64(n), 1)
	if alg == "bruck" {
		for k := 1; k < n; k <<= 1 {
			s.shift(k, block*int64((n+1)/2))
		}
		return
	}
	// pairwise and linear: n-1 exchanges
	if s.x.Uniform(n-1, block) {
		return
	}
	for k := 1; k < n; k++ {
		s.shift(k, block)
	}
}
