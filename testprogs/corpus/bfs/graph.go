// This file defines the random graph (its edges generated from a seed and
// the vertex alone, so every decomposition builds the same graph), the
// adjacency structure, and the sequential BFS that checks the distributed
// one.

package main

import "math/rand/v2"

// generator describes the random undirected graph: vertex u draws
// 0..maxOut-1 edges, a fraction local of them to a vertex within window of
// u, the rest to any vertex.
type generator struct {
	n      int
	maxOut int
	local  float64
	window int
	seed   uint64
}

// edgesOf calls add(u, v) for every edge vertex u draws.
func (g generator) edgesOf(u int, add func(u, v int)) {
	rng := rand.New(rand.NewPCG(g.seed, uint64(u)))
	deg := rng.IntN(g.maxOut)
	for range deg {
		var v int
		if rng.Float64() < g.local {
			v = u + 1 + rng.IntN(g.window)
			if v >= g.n {
				v -= g.n
			}
		} else {
			v = rng.IntN(g.n)
		}
		add(u, v)
	}
}

// adjacency is a compressed adjacency list of the vertices [first,
// first+len(offsets)-1); the neighbours are global vertex ids.
type adjacency struct {
	first   int
	offsets []int
	nbrs    []int
}

// edge is one directed edge.
type edge struct{ from, to int }

// newAdjacency builds the adjacency of count vertices from first out of
// edges whose from is one of them.
func newAdjacency(first, count int, edges []edge) *adjacency {
	a := &adjacency{first: first, offsets: make([]int, count+1), nbrs: make([]int, len(edges))}
	for _, e := range edges {
		a.offsets[e.from-first+1]++
	}
	for i := range count {
		a.offsets[i+1] += a.offsets[i]
	}
	fill := append([]int(nil), a.offsets[:count]...)
	for _, e := range edges {
		k := e.from - first
		a.nbrs[fill[k]] = e.to
		fill[k]++
	}
	return a
}

// neighbours returns the neighbours of the global vertex u.
func (a *adjacency) neighbours(u int) []int {
	k := u - a.first
	return a.nbrs[a.offsets[k]:a.offsets[k+1]]
}

// wholeGraph builds the adjacency of every vertex.
func wholeGraph(g generator) *adjacency {
	var edges []edge
	for u := range g.n {
		g.edgesOf(u, func(u, v int) { edges = append(edges, edge{u, v}, edge{v, u}) })
	}
	return newAdjacency(0, g.n, edges)
}

// sequentialBFS returns the level of every vertex of the whole graph a from
// root (-1: unreached).
func sequentialBFS(a *adjacency, root int) []int32 {
	level := make([]int32, len(a.offsets)-1)
	for i := range level {
		level[i] = -1
	}
	level[root] = 0
	queue := []int{root}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		for _, v := range a.neighbours(u) {
			if level[v] < 0 {
				level[v] = level[u] + 1
				queue = append(queue, v)
			}
		}
	}
	return level
}
