// Command bfs runs a level-synchronous breadth-first search on a
// distributed graph: each rank owns a block of vertices (their distances
// and adjacency); at each level the ranks expand their frontier, send
// each neighbour found to its owner (an Alltoall of the counts, then an
// Alltoallv of the vertex ids), and the owners mark the vertices they
// receive, which become the next frontier. It is the interpreter's test
// of indices the model does not hold: the received ids index the local
// distances, from which the next frontier is collected.
//
// The graph is a formula (vertex v links to v+1 and to -degree pseudo-
// random vertices), so every rank checks its own distances against a
// sequential search of the whole graph.
package main

import (
	"flag"
	"fmt"

	"github.com/predict-tools/predict/commlib"
)

var degree = flag.Int("degree", 4, "pseudo-random edges per vertex")

// vertices is the size of the graph, split over the ranks.
const vertices = 1 << 15

func main() {
	commlib.Main(func(c *commlib.Comm) {
		rank, np := c.Rank(), c.Size()
		if vertices%np != 0 {
			c.Abort(fmt.Errorf("%d vertices do not split over %d ranks", vertices, np))
		}
		nv, perRank := vertices, vertices/np
		first := rank * perRank
		dist := make([]int, perRank)
		for i := range dist {
			dist[i] = -1
		}
		var frontier []int
		if rank == 0 {
			dist[0] = 0
			frontier = append(frontier, 0)
		}
		sendCounts := make([]int, np)
		recvCounts := make([]int, np)
		sdispls := make([]int, np)
		rdispls := make([]int, np)
		outgoing := make([][]int, np)
		for level := 0; ; level++ {
			// Expand: each neighbour goes to its owner.
			for q := range outgoing {
				outgoing[q] = outgoing[q][:0]
			}
			for _, v := range frontier {
				for _, w := range neighbours(v, nv) {
					q := w / perRank
					outgoing[q] = append(outgoing[q], w)
				}
			}
			var send []int
			for q := range outgoing {
				sendCounts[q] = len(outgoing[q])
				sdispls[q] = len(send)
				send = append(send, outgoing[q]...)
			}
			c.Alltoall(sendCounts, recvCounts)
			total := 0
			for q := range recvCounts {
				rdispls[q] = total
				total += recvCounts[q]
			}
			recv := make([]int, total)
			c.Alltoallv(send, sendCounts, sdispls, recv, recvCounts, rdispls)
			// Mark: the received ids index this rank's vertices; the
			// next frontier is the vertices marked at this level.
			for _, w := range recv {
				local := w - first
				if dist[local] < 0 { // mark:visited
					dist[local] = level + 1
				}
			}
			frontier = frontier[:0]
			for i, d := range dist {
				if d == level+1 { // mark:frontier
					frontier = append(frontier, first+i)
				}
			}
			found := []int{0}
			c.Allreduce([]int{len(frontier)}, found, commlib.Sum)
			if found[0] == 0 {
				break
			}
		}
		// Check against a sequential search of the whole graph.
		want := sequentialBFS(nv)
		for i, d := range dist {
			if d != want[first+i] {
				c.Abort(fmt.Errorf("vertex %d: distance %d, sequential search %d", first+i, d, want[first+i]))
			}
		}
		if rank == 0 {
			far := 0
			for _, d := range want {
				far = max(far, d)
			}
			fmt.Printf("bfs of %d vertices: %d levels, distances checked\n", nv, far+1)
		}
	})
}

// neighbours returns the vertices v links to.
func neighbours(v, nv int) []int {
	out := make([]int, 0, *degree+1)
	out = append(out, (v+1)%nv)
	x := uint64(v)*0x9E3779B97F4A7C15 + 1
	for range *degree {
		x ^= x >> 29
		x *= 0xBF58476D1CE4E5B9
		out = append(out, int(x%uint64(nv)))
	}
	return out
}

// sequentialBFS returns every vertex's distance from vertex 0.
func sequentialBFS(nv int) []int {
	dist := make([]int, nv)
	for i := range dist {
		dist[i] = -1
	}
	dist[0] = 0
	queue := []int{0}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, w := range neighbours(v, nv) {
			if dist[w] < 0 {
				dist[w] = dist[v] + 1
				queue = append(queue, w)
			}
		}
	}
	return dist
}
