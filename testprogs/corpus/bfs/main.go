// Command bfs runs a distributed level-synchronous breadth-first search on a
// seeded random undirected graph, from several roots, in the manner of the
// Graph500 kernel.
//
// Communication pattern: the vertices are block-distributed. To build the
// graph each rank draws the edges of its vertices and sends the reverse
// edges to their owners (Alltoall of the counts, Alltoallv of the pairs).
// Each BFS level a rank scans its frontier; neighbours it owns are visited
// at once, the others are bucketed by owner and sent with Alltoall (counts)
// and Alltoallv (vertex ids); received ids index the local level array and
// join the next frontier. An Allreduce of the next frontier's size ends the
// search.
//
// Classes (vertices, roots): S 2^13, 4; W 2^17, 4; A 2^20, 16; B 2^23, 16;
// C 2^26, 64. Checks: every edge joins levels at most one apart and every
// reached vertex but the root has a neighbour one level up; for S and W
// rank 0 runs a sequential BFS and compares every level. The checksum
// (exact) holds, per root, the reached vertices, the depth and the sum of
// the levels, hashed.
package main

import (
	"flag"
	"fmt"
	"hash/fnv"
	"sort"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/testprogs/internal/progutil"
)

var (
	class = flag.String("class", "S", "problem class: S, W, A, B or C")
	roots = flag.Int("roots", 0, "BFS roots (0: from -class)")
)

type problem struct{ n, roots int }

var problems = []problem{{1 << 13, 4}, {1 << 17, 4}, {1 << 20, 16}, {1 << 23, 16}, {1 << 26, 64}}

const referenceClasses = 2

// partition maps global vertices to ranks and local indices.
type partition struct {
	starts []int // starts[r] is rank r's first vertex; starts[np] = n
}

func newPartition(n, np int) partition {
	p := partition{starts: make([]int, np+1)}
	for r := range np {
		p.starts[r], _ = progutil.Block(n, r, np)
	}
	p.starts[np] = n
	return p
}

func (p partition) owner(v int) int { return sort.SearchInts(p.starts, v+1) - 1 }

// search is one rank's state of the distributed BFS.
type search struct {
	c            *commlib.Comm
	part         partition
	first, count int
	adj          *adjacency
	level        []int32
}

func main() {
	commlib.Main(func(c *commlib.Comm) {
		ci, err := progutil.ClassIndex(*class)
		if err != nil {
			c.Abort(err)
		}
		pr := problems[ci]
		if *roots > 0 {
			pr.roots = *roots
		}
		np := c.Size()
		if np > pr.n {
			c.Abort(fmt.Errorf("class %s has %d vertices, fewer than np=%d", *class, pr.n, np))
		}
		g := generator{n: pr.n, maxOut: 8, local: 0.5, window: 256, seed: 0xbf5}
		progutil.NeedMemory(c, *class, int64(pr.n/np+1)*int64(g.maxOut)*2*8*3)

		start := commlib.Wtime()
		s := build(c, g)
		var whole *adjacency // rank 0's sequential reference
		if ci < referenceClasses && c.Rank() == 0 {
			whole = wholeGraph(g)
		}
		h := fnv.New64a()
		var reachedTotal int64
		for k := range pr.roots {
			root := int((uint64(k)*0x9e3779b97f4a7c15)>>20) % pr.n
			s.run(root)
			s.check()
			stats := []int64{0, 0, 0} // reached, depth, sum of levels
			for _, l := range s.level {
				if l >= 0 {
					stats[0]++
					stats[1] = max(stats[1], int64(l))
					stats[2] += int64(l)
				}
			}
			sums := []int64{stats[0], stats[2]}
			c.Allreduce([]int64{stats[0], stats[2]}, sums, commlib.Sum)
			depth := []int64{0}
			c.Allreduce([]int64{stats[1]}, depth, commlib.Max)
			fmt.Fprintf(h, "%d:%d:%d:%d;", root, sums[0], depth[0], sums[1])
			reachedTotal += sums[0]
			progutil.Printf(c, "root %d: reached %d, depth %d\n", root, sums[0], depth[0])
			if ci < referenceClasses {
				s.compare(whole, root)
			}
		}
		elapsed := progutil.Elapsed(start)
		progutil.Printf(c, "bfs class %s: n=%d, np=%d, %d roots, time %.3f s\n", *class, pr.n, np, pr.roots, elapsed)
		if ci < referenceClasses {
			progutil.Printf(c, "levels match the sequential BFS\n")
		}
		progutil.Checksum(c, fmt.Sprintf("reached=%d hash=%016x", reachedTotal, h.Sum64()))
	})
}

// build draws the edges of this rank's vertices and exchanges the reverse
// edges with their owners.
func build(c *commlib.Comm, g generator) *search {
	np := c.Size()
	s := &search{c: c, part: newPartition(g.n, np)}
	s.first, s.count = progutil.Block(g.n, c.Rank(), np)
	var mine []edge
	outgoing := make([][]int, np) // flattened (to, from) pairs per owner of to
	for u := s.first; u < s.first+s.count; u++ {
		g.edgesOf(u, func(u, v int) {
			mine = append(mine, edge{u, v})
			r := s.part.owner(v)
			outgoing[r] = append(outgoing[r], v, u)
		})
	}
	incoming, _ := s.alltoallv(outgoing)
	for k := 0; k < len(incoming); k += 2 {
		mine = append(mine, edge{incoming[k], incoming[k+1]})
	}
	s.adj = newAdjacency(s.first, s.count, mine)
	s.level = make([]int32, s.count)
	return s
}

// alltoallv sends out[r] to rank r and returns what all ranks sent here,
// in rank order, and how much each sent.
func (s *search) alltoallv(out [][]int) ([]int, []int) {
	np := s.c.Size()
	sendCounts := make([]int, np)
	sdispls := make([]int, np)
	total := 0
	for r, b := range out {
		sendCounts[r], sdispls[r] = len(b), total
		total += len(b)
	}
	sendbuf := make([]int, 0, total)
	for _, b := range out {
		sendbuf = append(sendbuf, b...)
	}
	recvCounts := make([]int, np)
	s.c.Alltoall(sendCounts, recvCounts)
	rdispls := make([]int, np)
	total = 0
	for r, n := range recvCounts {
		rdispls[r] = total
		total += n
	}
	recvbuf := make([]int, total)
	s.c.Alltoallv(sendbuf, sendCounts, sdispls, recvbuf, recvCounts, rdispls)
	return recvbuf, recvCounts
}

// run searches from root, leaving the levels of this rank's vertices in
// s.level.
func (s *search) run(root int) {
	for i := range s.level {
		s.level[i] = -1
	}
	var frontier []int
	if s.part.owner(root) == s.c.Rank() {
		s.level[root-s.first] = 0
		frontier = append(frontier, root)
	}
	np := s.c.Size()
	buckets := make([][]int, np)
	size := []int64{0}
	for depth := int32(1); ; depth++ {
		var next []int
		visit := func(v int) {
			if k := v - s.first; s.level[k] < 0 {
				s.level[k] = depth
				next = append(next, v)
			}
		}
		for r := range buckets {
			buckets[r] = buckets[r][:0]
		}
		for _, u := range frontier {
			for _, v := range s.adj.neighbours(u) {
				if r := s.part.owner(v); r == s.c.Rank() {
					visit(v)
				} else {
					buckets[r] = append(buckets[r], v)
				}
			}
		}
		received, _ := s.alltoallv(buckets)
		for _, v := range received {
			visit(v)
		}
		s.c.Allreduce([]int64{int64(len(next))}, size, commlib.Sum)
		if size[0] == 0 {
			return
		}
		frontier = next
	}
}

// check verifies the BFS invariants on this rank's vertices: neighbours'
// levels differ by at most one and every reached vertex but the root has a
// parent one level up. Remote levels come from one more exchange.
func (s *search) check() {
	np := s.c.Size()
	ask := make([][]int, np)
	for u := s.first; u < s.first+s.count; u++ {
		for _, v := range s.adj.neighbours(u) {
			r := s.part.owner(v)
			ask[r] = append(ask[r], v)
		}
	}
	asked, counts := s.alltoallv(ask)
	// asked arrives in rank order; answer each rank with the levels it asked for
	answers := make([][]int, np)
	k := 0
	for r, n := range counts {
		for _, v := range asked[k : k+n] {
			answers[r] = append(answers[r], int(s.level[v-s.first]))
		}
		k += n
	}
	levels, _ := s.alltoallv(answers)
	offs := make([]int, np) // where rank r's answers start in levels
	for r := 1; r < np; r++ {
		offs[r] = offs[r-1] + len(ask[r-1])
	}
	next := make([]int, np) // answers used so far, per rank
	for u := s.first; u < s.first+s.count; u++ {
		lu := int(s.level[u-s.first])
		hasParent := lu == 0
		for _, v := range s.adj.neighbours(u) {
			r := s.part.owner(v)
			lv := levels[offs[r]+next[r]]
			next[r]++
			progutil.Verify(s.c, (lu < 0) == (lv < 0), "edge %d-%d joins a reached and an unreached vertex", u, v)
			progutil.Verify(s.c, lu-lv <= 1 && lv-lu <= 1, "edge %d-%d joins levels %d and %d", u, v, lu, lv)
			hasParent = hasParent || lv == lu-1
		}
		progutil.Verify(s.c, lu < 0 || hasParent, "vertex %d at level %d has no neighbour one level up", u, lu)
	}
}

// compare gathers the levels on rank 0 and compares them with a sequential
// BFS from root on whole (rank 0's copy of the graph).
func (s *search) compare(whole *adjacency, root int) {
	n := s.part.starts[len(s.part.starts)-1]
	np := s.c.Size()
	counts := make([]int, np)
	displs := make([]int, np)
	for r := range np {
		displs[r], counts[r] = progutil.Block(n, r, np)
	}
	var all []int32
	if s.c.Rank() == 0 {
		all = make([]int32, n)
	}
	s.c.Gatherv(s.level, all, counts, displs, 0)
	if s.c.Rank() != 0 {
		return
	}
	ref := sequentialBFS(whole, root)
	for v := range ref {
		progutil.Verify(s.c, ref[v] == all[v], "root %d, vertex %d: level %d, sequential %d", root, v, all[v], ref[v])
	}
}
