// This file defines the schedules of collective operations: each
// algorithm (binomial trees, recursive doubling, ring, Rabenseifner,
// Bruck, pairwise, linear) as rounds of point-to-point steps run over the
// members' clocks, with the same LogGOPS costs as point-to-point messages.

package interp

import (
	"fmt"
	"math/bits"
	"strings"

	"github.com/predict-tools/predict/machine"
)

// run runs the schedule of collective name and returns its algorithm.
func (sim *schedule) run(name string, root int, bytes []int64) machine.Algorithm {
	w, n := sim.w, sim.g.size
	var s int64
	for _, b := range bytes {
		s = max(s, b)
	}
	alg := machine.Linear
	if _, ok := collSpecs[name]; ok && !collSpecs[name].split {
		if a, err := w.mach.CollectiveAlgorithm(strings.ToLower(name), s, n); err == nil {
			alg = a
		}
	}
	switch name {
	case "Split", "Dup", "CartCreate":
		sim.allgatherRD(8) // the members exchange their (color, key)
		alg = machine.RecursiveDoubling
	case "Barrier":
		sim.barrier(alg)
	case "Bcast":
		sim.bcast(alg, root, s)
	case "Reduce":
		sim.reduce(alg, root, s)
	case "Allreduce":
		sim.allreduce(alg, s)
	case "Gather", "Gatherv":
		sim.gather(alg, root, bytes)
	case "Scatter", "Scatterv":
		sim.scatter(alg, root, s)
	case "Allgather", "Allgatherv":
		sim.allgather(alg, s)
	case "Alltoall", "Alltoallv":
		sim.alltoall(alg, s)
	case "Scan", "Exscan":
		sim.scan(s)
	}
	return alg
}

// schedule simulates point-to-point steps over the members' clocks.
type schedule struct {
	w     *World
	g     *group
	t     []int64
	spare []int64
	ovh   []int64 // each member's send and receive overheads (o + (s−1)·O per message)
	// record, when set (tests), sees every message each member sends
	// (send) or receives, in round order: rounds count the exchanges,
	// and each message of linear is a round of its own.
	record func(round, member int, send bool, peer int, bytes int64)
	round  int
}

func (s *schedule) link(a, b int) *linkCost { return s.w.link(s.g.worldRank(a), s.g.worldRank(b)) }

// stepCost is the cost of one message of a round at one level.
type stepCost struct{ send, transfer, recv int64 }

// exchange is one round in which each rank r sends bytes to to(r) and
// receives from from(r) (−1: none), all at once.
func (s *schedule) exchange(to, from func(r int) int, bytes int64) {
	n := len(s.t)
	old := s.t
	if s.spare == nil {
		s.spare = make([]int64, n)
	}
	nt := s.spare
	w := s.w
	var cost [2]stepCost // intra, inter
	for i, lk := range []*linkCost{&w.intra, &w.inter} {
		cost[i] = stepCost{lk.sendOvh(bytes), lk.transfer(bytes), lk.recvOvh(bytes)}
	}
	level := func(a, b int) int {
		if w.sameNode(s.g.worldRank(a), s.g.worldRank(b)) {
			return 0
		}
		return 1
	}
	if s.record != nil {
		s.recordExchange(to, from, bytes)
	}
	var sent int64
	for r := range n {
		t := old[r]
		if d := to(r); d >= 0 {
			t = addTime(t, cost[level(r, d)].send)
			s.ovh[r] = addTime(s.ovh[r], cost[level(r, d)].send)
			sent++
		}
		if f := from(r); f >= 0 {
			c := &cost[level(f, r)]
			t = addTime(max(t, addTime(old[f], c.transfer)), c.recv)
			s.ovh[r] = addTime(s.ovh[r], c.recv)
		}
		nt[r] = t
	}
	s.t, s.spare = nt, old
	s.w.messages += sent
}

func (s *schedule) recordExchange(to, from func(r int) int, bytes int64) {
	for r := range len(s.t) {
		if d := to(r); d >= 0 {
			s.record(s.round, r, true, d, bytes)
		}
		if f := from(r); f >= 0 {
			s.record(s.round, r, false, f, bytes)
		}
	}
	s.round++
}

// tree runs a binomial tree rooted at root: down (bcast, scatter) or up
// (reduce, gather; size(v) gives the bytes a subtree sends).
func (s *schedule) tree(root int, down bool, size func(vrank, span int) int64) {
	n := len(s.t)
	rounds := bits.Len(uint(n - 1))
	abs := func(v int) int { return (v + root) % n }
	if down {
		for k := rounds - 1; k >= 0; k-- {
			step := 1 << k
			s.exchange(func(r int) int {
				v := (r - root + n) % n
				if v%(2*step) == 0 && v+step < n {
					return abs(v + step)
				}
				return -1
			}, func(r int) int {
				v := (r - root + n) % n
				if v%(2*step) == step {
					return abs(v - step)
				}
				return -1
			}, size(0, step))
		}
		return
	}
	for k := 0; k < rounds; k++ {
		step := 1 << k
		s.exchange(func(r int) int {
			v := (r - root + n) % n
			if v%(2*step) == step {
				return abs(v - step)
			}
			return -1
		}, func(r int) int {
			v := (r - root + n) % n
			if v%(2*step) == 0 && v+step < n {
				return abs(v + step)
			}
			return -1
		}, size(0, step))
	}
}

// linear: the root exchanges with every other member in rank order.
func (s *schedule) linear(root int, toRoot bool, bytes func(r int) int64) {
	n := len(s.t)
	t := s.t
	if s.record != nil {
		for r := range n {
			if r != root {
				s.record(s.round, r, toRoot, root, bytes(r))
				s.record(s.round, root, !toRoot, r, bytes(r))
				s.round++
			}
		}
	}
	if toRoot {
		at := t[root]
		for r := range n {
			if r == root {
				continue
			}
			lk := s.link(r, root)
			sent := t[r]
			t[r] = addTime(t[r], lk.sendOvh(bytes(r)))
			at = addTime(max(at, addTime(sent, lk.transfer(bytes(r)))), lk.recvOvh(bytes(r)))
			s.ovh[r] = addTime(s.ovh[r], lk.sendOvh(bytes(r)))
			s.ovh[root] = addTime(s.ovh[root], lk.recvOvh(bytes(r)))
		}
		t[root] = at
	} else {
		at := t[root]
		for r := range n {
			if r == root {
				continue
			}
			lk := s.link(root, r)
			sent := at
			at = addTime(at, lk.sendOvh(bytes(r)))
			t[r] = addTime(max(t[r], addTime(sent, lk.transfer(bytes(r)))), lk.recvOvh(bytes(r)))
			s.ovh[root] = addTime(s.ovh[root], lk.sendOvh(bytes(r)))
			s.ovh[r] = addTime(s.ovh[r], lk.recvOvh(bytes(r)))
		}
		t[root] = at
	}
	s.w.messages += int64(n - 1)
}

func (s *schedule) barrier(alg machine.Algorithm) {
	n := len(s.t)
	if n == 1 {
		return
	}
	if alg == machine.Linear {
		s.linear(0, true, func(int) int64 { return 0 })
		s.linear(0, false, func(int) int64 { return 0 })
		return
	}
	// Dissemination (Bruck's barrier; recursive doubling for powers of two
	// takes the same rounds).
	for k := 1; k < n; k <<= 1 {
		s.exchange(func(r int) int { return (r + k) % n }, func(r int) int { return (r - k + n) % n }, 0)
	}
}

func (s *schedule) bcast(alg machine.Algorithm, root int, bytes int64) {
	n := len(s.t)
	switch {
	case n == 1:
	case alg == machine.Linear:
		s.linear(root, false, func(int) int64 { return bytes })
	case alg == machine.ScatterAllgather || alg == machine.Ring:
		chunk := (bytes + int64(n) - 1) / int64(n)
		s.tree(root, true, func(_, span int) int64 { return chunk * int64(span) })
		s.ring(chunk)
	default:
		s.tree(root, true, func(int, int) int64 { return bytes })
	}
}

func (s *schedule) reduce(alg machine.Algorithm, root int, bytes int64) {
	n := len(s.t)
	switch {
	case n == 1:
	case alg == machine.Linear:
		s.linear(root, true, func(int) int64 { return bytes })
	case alg == machine.Rabenseifner:
		s.halving(bytes)
		s.tree(root, false, func(_, span int) int64 { return max(bytes/int64(n)*int64(span), 1) })
	default:
		s.tree(root, false, func(int, int) int64 { return bytes })
	}
}

func (s *schedule) allreduce(alg machine.Algorithm, bytes int64) {
	n := len(s.t)
	switch {
	case n == 1:
	case alg == machine.Linear:
		s.linear(0, true, func(int) int64 { return bytes })
		s.linear(0, false, func(int) int64 { return bytes })
	case alg == machine.Binomial:
		s.tree(0, false, func(int, int) int64 { return bytes })
		s.tree(0, true, func(int, int) int64 { return bytes })
	case alg == machine.Ring:
		chunk := (bytes + int64(n) - 1) / int64(n)
		s.ring(chunk)
		s.ring(chunk)
	case alg == machine.Rabenseifner:
		s.halving(bytes)
		s.doubling(func(k int) int64 { return max(bytes>>uint(bits.Len(uint(n))-1-k), 1) })
	default:
		s.doubling(func(int) int64 { return bytes })
	}
}

// doubling runs recursive doubling with MPICH's handling of a count that
// is not a power of two: the extra ranks fold into partners first and get
// the result back last.
func (s *schedule) doubling(size func(k int) int64) {
	n := len(s.t)
	pof2 := 1 << (bits.Len(uint(n)) - 1)
	rem := n - pof2
	full := size(bits.Len(uint(pof2)) - 1)
	if rem > 0 {
		// ranks 2i+1 (i < rem) send to 2i
		s.exchange(func(r int) int {
			if r < 2*rem && r%2 == 1 {
				return r - 1
			}
			return -1
		}, func(r int) int {
			if r < 2*rem && r%2 == 0 {
				return r + 1
			}
			return -1
		}, full)
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
			v := vrank(r)
			if v < 0 {
				return -1
			}
			return real(v ^ mask)
		}
		s.exchange(partner, partner, size(k))
	}
	if rem > 0 {
		s.exchange(func(r int) int {
			if r < 2*rem && r%2 == 0 {
				return r + 1
			}
			return -1
		}, func(r int) int {
			if r < 2*rem && r%2 == 1 {
				return r - 1
			}
			return -1
		}, full)
	}
}

// halving is the reduce-scatter of Rabenseifner: recursive halving.
func (s *schedule) halving(bytes int64) {
	n := len(s.t)
	pof2 := 1 << (bits.Len(uint(n)) - 1)
	k := 0
	for mask := pof2 >> 1; mask > 0; mask >>= 1 {
		k++
		size := max(bytes>>uint(k), 1)
		partner := func(r int) int {
			if r >= pof2 {
				return -1
			}
			return r ^ mask
		}
		s.exchange(partner, partner, size)
	}
}

// ring runs n−1 steps of a ring, chunk bytes each.
func (s *schedule) ring(chunk int64) {
	n := len(s.t)
	if s.huge(n - 1) {
		s.uniform(n-1, chunk)
		return
	}
	for range n - 1 {
		s.exchange(func(r int) int { return (r + 1) % n }, func(r int) int { return (r - 1 + n) % n }, chunk)
	}
}

// huge reports a schedule of rounds × members too long to simulate step
// by step (more than 2·10⁸ steps): it is then costed uniformly.
func (s *schedule) huge(rounds int) bool { return int64(rounds)*int64(len(s.t)) > 2e8 }

// uniform costs rounds identical steps from the latest enter time: the
// approximation for huge schedules.
func (s *schedule) uniform(rounds int, bytes int64) {
	var latest int64
	for _, t := range s.t {
		latest = max(latest, t)
	}
	lk := s.link(0, len(s.t)-1)
	step := addTime(max(lk.sendOvh(bytes), lk.transfer(bytes)), lk.recvOvh(bytes))
	ovh := mulTime(addTime(lk.sendOvh(bytes), lk.recvOvh(bytes)), int64(rounds))
	for i := range s.t {
		s.t[i] = addTime(latest, mulTime(step, int64(rounds)))
		s.ovh[i] = addTime(s.ovh[i], ovh)
	}
	s.w.noteAssumption("collective", fmt.Sprintf("a schedule of %d rounds × %d ranks was costed uniformly from the latest rank's entry", rounds, len(s.t)))
}

func (s *schedule) gather(alg machine.Algorithm, root int, bytes []int64) {
	n := len(s.t)
	if n == 1 {
		return
	}
	if alg == machine.Binomial {
		b := bytes[(root+1)%n]
		s.tree(root, false, func(_, span int) int64 { return b * int64(span) })
		return
	}
	s.linear(root, true, func(r int) int64 { return bytes[r] })
}

func (s *schedule) scatter(alg machine.Algorithm, root int, bytes int64) {
	n := len(s.t)
	if n == 1 {
		return
	}
	per := max(bytes/int64(n), 1)
	if alg == machine.Binomial {
		s.tree(root, true, func(_, span int) int64 { return per * int64(span) })
		return
	}
	s.linear(root, false, func(int) int64 { return per })
}

func (s *schedule) allgather(alg machine.Algorithm, bytes int64) {
	n := len(s.t)
	switch {
	case n == 1:
	case alg == machine.Ring || alg == machine.Linear:
		s.ring(bytes)
	case alg == machine.Bruck:
		for k := 1; k < n; k <<= 1 {
			b := bytes * int64(min(k, n-k))
			s.exchange(func(r int) int { return (r - k + n) % n }, func(r int) int { return (r + k) % n }, b)
		}
	default:
		s.doubling(func(k int) int64 { return bytes << uint(k) })
	}
}

// allgatherRD is the exchange a communicator constructor needs.
func (s *schedule) allgatherRD(bytes int64) { s.allgather(machine.RecursiveDoubling, bytes) }

func (s *schedule) alltoall(alg machine.Algorithm, bytes int64) {
	n := len(s.t)
	if n == 1 {
		return
	}
	block := max(bytes/int64(n), 1)
	switch alg {
	case machine.Bruck:
		for k := 1; k < n; k <<= 1 {
			s.exchange(func(r int) int { return (r + k) % n }, func(r int) int { return (r - k + n) % n }, block*int64((n+1)/2))
		}
	default: // pairwise and linear: n−1 exchanges
		if s.huge(n - 1) {
			s.uniform(n-1, block)
			return
		}
		for k := 1; k < n; k++ {
			s.exchange(func(r int) int { return (r + k) % n }, func(r int) int { return (r - k + n) % n }, block)
		}
	}
}

func (s *schedule) scan(bytes int64) {
	n := len(s.t)
	for k := 1; k < n; k <<= 1 {
		s.exchange(func(r int) int {
			if r+k < n {
				return r + k
			}
			return -1
		}, func(r int) int {
			if r-k >= 0 {
				return r - k
			}
			return -1
		}, bytes)
	}
}
