// Nestedfield keeps a partition table as a struct held by value in a field
// of a rank's state (s.part.starts), made and filled in a loop by a helper
// that returns the struct, the way bfs of the corpus does: the table's
// length and contents size a Gatherv and count a loop of Allreduces, so
// the model must hold them. An owner lookup through sort.SearchInts on
// random vertices reads the table and must not make it opaque.
package main

import (
	"fmt"
	"math/rand/v2"
	"sort"

	"github.com/predict-tools/predict/commlib"
)

const n = 8 // vertices

type partition struct {
	starts []int // starts[r] is rank r's first vertex; starts[np] = n
}

func newPartition(n, np int) partition {
	p := partition{starts: make([]int, np+1)}
	for r := range np {
		p.starts[r] = r * n / np
	}
	p.starts[np] = n
	return p
}

func (p partition) owner(v int) int { return sort.SearchInts(p.starts, v+1) - 1 }

type state struct {
	c     *commlib.Comm
	part  partition
	level []int32
}

func main() {
	commlib.Main(func(c *commlib.Comm) {
		np := c.Size()
		s := &state{c: c, part: newPartition(n, np)}
		first, last := s.part.starts[c.Rank()], s.part.starts[c.Rank()+1]
		s.level = make([]int32, last-first)
		rng := rand.New(newLCG(1, 2)) // the same draws on every rank
		hits := make([]int, np)       // how many of the draws each rank owns
		for range 16 {
			hits[s.part.owner(rng.IntN(n))]++
		}
		mine := hits[c.Rank()]
		// rank 0's share of the vertices: n/np Allreduces
		sum := []int{0}
		for i := 0; i < s.part.starts[1]; i++ {
			c.Allreduce([]int{mine}, sum, commlib.Sum)
		}
		s.gather()
		if sum[0] != 16 {
			c.Abort(fmt.Errorf("owners of 16 vertices sum to %d", sum[0]))
		}
		if c.Rank() == 0 {
			fmt.Println("checksum:", sum[0], s.part.starts[np])
		}
	})
}

// gather collects every rank's levels on rank 0, sized by the last entry
// of the table.
func (s *state) gather() {
	total := s.part.starts[len(s.part.starts)-1]
	np := s.c.Size()
	counts := make([]int, np)
	displs := make([]int, np)
	for r := range np {
		displs[r] = s.part.starts[r]
		counts[r] = s.part.starts[r+1] - s.part.starts[r]
	}
	var all []int32
	if s.c.Rank() == 0 {
		all = make([]int32, total)
	}
	s.c.Gatherv(s.level, all, counts, displs, 0)
}

// lcg is a source of the program's own, a linear congruential generator:
// the model does not run it, so what a generator over it draws is random
// numbers to the model (a generator over rand.NewPCG it would compute).
type lcg struct{ x uint64 }

func newLCG(a, b uint64) *lcg { return &lcg{x: a*0x9e3779b97f4a7c15 ^ b} }

func (s *lcg) Uint64() uint64 {
	s.x = s.x*6364136223846793005 + 1442695040888963407
	return s.x ^ s.x>>29
}
