// Maps decides its communication with maps: each rank counts the
// messages for its neighbours in a map (a sum per key, then a delete),
// sends them after a comma-ok lookup per rank, sends as many messages as
// the map has keys, looks a struct key up, reads a nil map, and takes its
// ring's direction, tags and width from package-level maps (a literal, a
// make filled by init, and a range over the literal in an initializer),
// and exchanges once per letter of -pattern (a range over a string).
// It checks that every message carried what its receiver expected.
// With -nilwrite it assigns to a nil map, which panics.
package main

import (
	"flag"
	"fmt"

	"github.com/predict-tools/predict/commlib"
)

var (
	nilWrite = flag.Bool("nilwrite", false, "assign to a nil map (a run-time panic)")
	pattern  = flag.String("pattern", "r·l", "extra exchanges, one letter each: r (to the right) or l (to the left); others are skipped")
)

// directions are the offsets of a rank's ring neighbours.
var directions = map[string]int{"left": -1, "right": 1}

// tags are filled by init.
var tags = make(map[string]int)

// width is the number of ring messages: the sum of the offsets' sizes.
var width = widthOf(directions)

func init() {
	tags["plan"] = 1
	tags["done"] = 2
	tags["edge"] = 3
	tags["nil"] = 4
	tags["ring"] = 5
	tags["late"] = 6
	tags["pattern"] = 7
}

func widthOf(m map[string]int) int {
	w := 0
	for _, d := range m {
		w += max(d, -d)
	}
	return w
}

// edge is a pair of ranks, a map key.
type edge struct{ from, to int }

// share is what a rank sends a neighbour.
type share struct{ count, tag int }

// plan returns the number of messages rank s sends each neighbour: i to
// s+i for i = 1, 2, 3 (modulo np), none to itself.
func plan(s, np int) map[int]share {
	counts := make(map[int]int)
	for i := 1; i <= 3; i++ {
		counts[(s+i)%np] += i
	}
	delete(counts, s)
	shares := make(map[int]share, len(counts))
	for r := 0; r < np; r++ {
		if n, ok := counts[r]; ok {
			shares[r] = share{count: n, tag: tags["plan"]}
		}
	}
	return shares
}

func main() {
	commlib.Main(func(c *commlib.Comm) {
		rank, np := c.Rank(), c.Size()
		right := (rank + directions["right"] + np) % np
		left := (rank + directions["left"] + np) % np
		msg := []int{rank}
		check := func(from int) {
			if msg[0] != from {
				c.Abort(fmt.Errorf("rank %d received %d from %d", rank, msg[0], from))
			}
		}

		mine := plan(rank, np)
		for r := 0; r < np; r++ {
			s := mine[r]
			copied := s
			copied.count = 0 // a copy: the map's value is unchanged
			for k := 0; k < mine[r].count; k++ {
				c.Send([]int{rank}, r, s.tag)
			}
		}
		for s := 0; s < np; s++ {
			if sh, ok := plan(s, np)[rank]; ok {
				for k := 0; k < sh.count; k++ {
					c.Recv(msg, s, sh.tag)
					check(s)
				}
			}
		}

		for k := 0; k < len(mine); k++ {
			c.Send([]int{rank}, right, tags["done"])
		}
		for k := 0; k < len(plan(left, np)); k++ {
			c.Recv(msg, left, tags["done"])
			check(left)
		}

		seen := map[edge]bool{}
		for r := range np {
			if _, ok := mine[r]; ok {
				seen[edge{rank, r}] = true
			}
		}
		if seen[edge{rank, right}] && !seen[edge{rank, rank}] {
			c.Send([]int{rank}, right, tags["edge"])
			c.Recv(msg, left, tags["edge"])
			check(left)
		}

		var none map[int]int
		if _, ok := none[rank]; !ok && none[rank] == 0 && len(none) == 0 {
			c.Send([]int{rank}, right, tags["nil"])
			c.Recv(msg, left, tags["nil"])
			check(left)
		}

		var late map[int]int // made unless -nilwrite
		if !*nilWrite {
			late = make(map[int]int)
		}
		late[right] = 1 // panics with -nilwrite: assignment to entry in nil map; mark:nilwrite
		if len(late) > 0 {
			c.Send([]int{rank}, right, tags["late"])
			c.Recv(msg, left, tags["late"])
			check(left)
		}

		for k := 0; k < width; k++ {
			c.Send([]int{rank}, right, tags["ring"])
			c.Recv(msg, left, tags["ring"])
			check(left)
		}
		for _, d := range *pattern {
			switch d {
			case 'r':
				c.Send([]int{rank}, right, tags["pattern"])
				c.Recv(msg, left, tags["pattern"])
				check(left)
			case 'l':
				c.Send([]int{rank}, left, tags["pattern"])
				c.Recv(msg, right, tags["pattern"])
				check(right)
			}
		}

		if rank == 0 {
			fmt.Println("maps: ok")
		}
	})
}
