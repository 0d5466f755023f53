// Command recursion holds the recursions a reduction meets: a binary tree
// built by insertion and walked, whose course depends on the keys (bulk
// data) and which is sealed (the model never enters it, its calls are
// timed whole); and the ones it must follow: a recursion on lengths the
// model computes, one whose result decides a message, one that
// communicates, one that starts goroutines, one whose helper is also
// called from elsewhere and one called through a function value.
package main

import (
	"flag"
	"sync"

	"github.com/predict-tools/predict/commlib"
)

var n = flag.Int("n", 1<<12, "keys per rank")

// node is a node of a binary search tree.
type node struct {
	key         uint64
	left, right *node
}

// insert adds key k below t and returns the subtree: its course is the
// keys', which the model does not have.
func insert(t *node, k uint64) *node { // want sealedfn:"does not have"
	if t == nil { // a branch the model never takes: nothing inside is kept
		return &node{key: k}
	}
	if k < t.key {
		t.left = insert(t.left, k)
	} else {
		t.right = insert(t.right, k)
	}
	return t
}

// depth is the tree's height: a walk reaching a helper of its own.
func depth(t *node) int { // want sealedfn:"a linked structure"
	if t == nil {
		return 0
	}
	return 1 + larger(depth(t.left), depth(t.right))
}

// larger is depth's helper, called from nowhere else.
func larger(a, b int) int { // want sealedfn:"reached only from the sealed recursion depth"
	if a > b {
		return a
	}
	return b
}

// weigh sums the weights of t's keys: a walk sealed without its small
// helper weight, which main calls too (it stays the model's).
func weigh(t *node) uint64 { // want sealedfn:"a linked structure"
	if t == nil {
		return 0
	}
	return weight(t.key) + weigh(t.left) + weigh(t.right)
}

// weight is a key's weight: small (no loop, no call).
func weight(k uint64) uint64 {
	if k%2 == 0 { // want opaque:"contents of make([]uint64, *n)"
		return k
	}
	return 1
}

// count is the number of keys of v greater than k: its result decides
// how much is sent, so the model must follow it.
func count(v []uint64, k uint64) int {
	if len(v) == 1 { // want computed
		if v[0] > k { // want opaque:"contents of make([]uint64, *n)"
			return 1
		}
		return 0
	}
	return count(v[:len(v)/2], k) + count(v[len(v)/2:], k)
}

// sum adds v pairwise: a recursion on lengths the model computes.
func sum(v []uint64) uint64 {
	if len(v) <= 16 { // want computed
		s := uint64(0)
		for _, x := range v { // want collapse:"counted" sealed
			s += x
		}
		return s
	}
	return sum(v[:len(v)/2]) + sum(v[len(v)/2:])
}

// relay sends along a chain of ranks, one call a hop: it communicates.
func relay(c *commlib.Comm, buf []uint64, hop int) {
	if hop == 0 || buf[0] == 0 { // want opaque:"contents of make([]uint64, *n)"
		return
	}
	c.Sendrecv(buf[:1], (c.Rank()+1)%c.Size(), 0, buf[1:2], (c.Rank()+c.Size()-1)%c.Size(), 0)
	relay(c, buf, hop-1)
}

// split sorts nothing: it halves v in goroutines while its first key is
// odd, so the goroutines it starts depend on the keys.
func split(v []uint64) {
	if len(v) < 2 || v[0]%2 == 0 { // want opaque:"contents of make([]uint64, *n)"
		return
	}
	var wg sync.WaitGroup
	wg.Go(func() { split(v[:len(v)/2]) })
	split(v[len(v)/2:])
	wg.Wait()
}

// walk counts the keys of v below k with a helper that main calls too.
func walk(v []uint64, k uint64) int {
	if len(v) == 1 { // want computed
		return below(v[0], k)
	}
	return walk(v[:len(v)/2], k) + walk(v[len(v)/2:], k)
}

// below is walk's helper, also called from main.
func below(a, b uint64) int {
	if a < b { // want opaque:"contents of make([]uint64, *n)"
		return 1
	}
	return 0
}

// hops follows a chain of indices to its end; main calls it through a
// function value, so the model must follow it.
func hops(next []uint64, i uint64) int {
	if next[i] == 0 { // want opaque:"contents of make([]uint64, *n)"
		return 0
	}
	return 1 + hops(next, next[i]%uint64(len(next)))
}

// apply calls f on v from its start.
func apply(f func([]uint64, uint64) int, v []uint64) int { return f(v, 0) }

func main() {
	commlib.Main(func(c *commlib.Comm) {
		keys := make([]uint64, *n) // want shape:"make([]uint64, *n)"
		for i := range keys {      // want collapse:"counted" sealed
			keys[i] = uint64(i*7919+c.Rank()) % 104729
		}
		var root *node
		for _, k := range keys { // want collapse:"counted"
			root = insert(root, k)
		}
		_ = depth(root)
		_ = weigh(root) + weight(keys[0])
		out := make([]uint64, count(keys, keys[0])) // want shape:"make([]uint64, t"
		c.Allreduce(out, out, commlib.Sum)
		_ = sum(keys)
		relay(c, keys, 3)
		split(keys)
		_ = walk(keys, keys[1]) + below(keys[2], keys[3])
		_ = apply(hops, keys)
	})
}
