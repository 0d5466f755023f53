// This file defines the costing of collective operations: their schedules
// (trace.RunSchedule: binomial trees, recursive doubling, ring,
// Rabenseifner, Bruck, pairwise, linear) run as rounds of point-to-point
// steps over the members' clocks, with the same LogGOPS costs as
// point-to-point messages.

package interp

import (
	"fmt"
	"strings"

	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/trace"
)

// run runs the schedule of collective name and returns its algorithm.
func (sim *schedule) run(name string, root int, bytes []int64) machine.Algorithm {
	w, n := sim.w, sim.g.size
	var s int64
	for _, b := range bytes {
		s = max(s, b)
	}
	alg := machine.Linear
	if spec, ok := collSpecs[name]; ok && !spec.split {
		if a, err := w.mach.CollectiveAlgorithm(strings.ToLower(name), s, n); err == nil {
			alg = a
		}
	} else if ok {
		alg = machine.RecursiveDoubling // the members exchange their (color, key)
	}
	trace.RunSchedule(sim, name, string(alg), n, root, bytes)
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

// Exchange is one round in which each rank r sends bytes to one member
// and receives from one (rd.Peers(r); −1: none), all at once.
func (s *schedule) Exchange(rd trace.Round, bytes int64) {
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
		s.recordExchange(rd, bytes)
	}
	var sent int64
	for r := range n {
		t := old[r]
		d, f := rd.Peers(r)
		if d >= 0 {
			t = addTime(t, cost[level(r, d)].send)
			s.ovh[r] = addTime(s.ovh[r], cost[level(r, d)].send)
			sent++
		}
		if f >= 0 {
			c := &cost[level(f, r)]
			t = addTime(max(t, addTime(old[f], c.transfer)), c.recv)
			s.ovh[r] = addTime(s.ovh[r], c.recv)
		}
		nt[r] = t
	}
	s.t, s.spare = nt, old
	s.w.messages += sent
}

func (s *schedule) recordExchange(rd trace.Round, bytes int64) {
	for r := range len(s.t) {
		d, f := rd.Peers(r)
		if d >= 0 {
			s.record(s.round, r, true, d, bytes)
		}
		if f >= 0 {
			s.record(s.round, r, false, f, bytes)
		}
	}
	s.round++
}

// Linear: the root exchanges with every other member in rank order;
// member r's message is sizes[r] bytes, or size when sizes is nil.
func (s *schedule) Linear(root int, toRoot bool, size int64, sizes []int64) {
	bytes := func(r int) int64 {
		if sizes != nil {
			return sizes[r]
		}
		return size
	}
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

// Uniform costs a schedule of rounds identical rounds uniformly when it is
// huge, and reports whether it did.
func (s *schedule) Uniform(rounds int, bytes int64) bool {
	if !s.huge(rounds) {
		return false
	}
	s.uniform(rounds, bytes)
	return true
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
