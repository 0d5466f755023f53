// Package callgraph holds what the reduction and the interpreter both
// compute over a program's call graph.
package callgraph

// Components returns the strongly connected components of the graph of
// nodes whose edges succ gives (Tarjan's algorithm), each in the order
// its nodes left the stack, components in the order they were completed
// (callees before callers). The walk follows nodes in the order given and
// edges in succ's order, so the result is deterministic for a sorted
// input. Nodes succ names outside nodes are visited too.
func Components[T comparable](nodes []T, succ func(T) []T) [][]T {
	index, low, onStack := map[T]int{}, map[T]int{}, map[T]bool{}
	var stack []T
	var comps [][]T
	var visit func(v T)
	visit = func(v T) {
		index[v], low[v] = len(index), len(index)
		stack = append(stack, v)
		onStack[v] = true
		for _, w := range succ(v) {
			if _, seen := index[w]; !seen {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] != index[v] {
			return
		}
		var comp []T
		for {
			w := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			onStack[w] = false
			comp = append(comp, w)
			if w == v {
				break
			}
		}
		comps = append(comps, comp)
	}
	for _, v := range nodes {
		if _, seen := index[v]; !seen {
			visit(v)
		}
	}
	return comps
}

// Cyclic reports whether component comp of the graph succ gives is a
// cycle: more than one node, or a node with an edge to itself.
func Cyclic[T comparable](comp []T, succ func(T) []T) bool {
	if len(comp) > 1 {
		return true
	}
	for _, w := range succ(comp[0]) {
		if w == comp[0] {
			return true
		}
	}
	return false
}
