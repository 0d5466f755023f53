// This file defines new communicators: Split, Dup, and Cartesian grids.

package commlib

import (
	"cmp"
	"fmt"
	"slices"
)

// newComms is the result of a communicator-creating collective: the shared
// state of each new communicator, by color.
type newComms map[int]*commShared

// Split partitions the communicator: ranks that pass the same color form a
// new communicator, ordered by key then by their rank here. A rank passing
// Undefined gets nil.
func (c *Comm) Split(color, key int) *Comm {
	if color < 0 && color != Undefined {
		c.fail("Split", "invalid color %d: want a non-negative color or Undefined", color)
	}
	return c.create("Split", color, key, "", nil, nil)
}

// Dup returns a new communicator with the same ranks, whose messages and
// collectives never match those of c.
func (c *Comm) Dup() *Comm {
	return c.create("Dup", 0, c.rank, "", slices.Clone(c.sh.dims), slices.Clone(c.sh.periods))
}

// CartCreate makes a communicator with a Cartesian grid topology of the
// given dimensions (row-major rank order, no reordering). Ranks beyond the
// grid get nil. periods says which dimensions wrap around.
func (c *Comm) CartCreate(dims []int, periods []bool) *Comm {
	const op = "CartCreate"
	if len(dims) == 0 || len(dims) != len(periods) {
		c.fail(op, "dims has %d entries and periods %d: want the same positive number", len(dims), len(periods))
	}
	n := 1
	for i, d := range dims {
		if d <= 0 {
			c.fail(op, "dims[%d] = %d: want a positive size", i, d)
		}
		n *= d
	}
	if n > c.Size() {
		c.fail(op, "the grid %v has %d ranks, the communicator only %d", dims, n, c.Size())
	}
	color := 0
	if c.rank >= n {
		color = Undefined
	}
	return c.create(op, color, c.rank, fmt.Sprintf("dims=%v periods=%v", dims, periods),
		slices.Clone(dims), slices.Clone(periods))
}

// create runs the collective that makes new communicators.
func (c *Comm) create(op string, color, key int, extra string, dims []int, periods []bool) *Comm {
	t0 := c.traceStart()
	if c.w.tr != nil {
		a := &collArgs{op: op, root: -1, color: color, key: key, dims: dims, periods: periods}
		c.collNative(t0, a, 0)
		return a.created
	}
	parent := c.sh
	inst := c.arrive(collSig{op: op, root: -1, extra: extra}, [2]int{color, key}, func(inst *collInstance) string {
		colorKeys := make([][2]int, len(inst.deposits))
		for r, d := range inst.deposits {
			colorKeys[r] = d.([2]int)
		}
		comms := newComms{}
		for _, g := range splitGroups(colorKeys) {
			id := int(c.w.nextComm.Add(1) - 1)
			sh := &commShared{id: id, name: commName(parent.name, op, g.color, id), dims: dims, periods: periods}
			for _, r := range g.ranks {
				sh.group = append(sh.group, parent.group[r])
			}
			comms[g.color] = sh
		}
		inst.result = comms
		return ""
	})
	c.collAwait(inst, waitNoPeer, completed)
	c.depart(inst)
	if c.w.tracer != nil {
		c.emitColl(t0, inst, 0)
	}
	sh := inst.result.(newComms)[color]
	if color == Undefined || sh == nil {
		return nil
	}
	me := slices.Index(sh.group, c.p.rank)
	return &Comm{w: c.w, p: c.p, sh: sh, rank: me}
}

// splitGroup is one communicator that Split makes: its color and its
// members' ranks in the parent, in their order in the new communicator.
type splitGroup struct {
	color int
	ranks []int
}

// splitGroups returns the communicators Split makes from every parent
// rank's color and key, by increasing color; members are ordered by key,
// then by their rank in the parent. Ranks with color Undefined are in none.
func splitGroups(colorKeys [][2]int) []splitGroup {
	type member struct{ color, key, rank int }
	var members []member
	for r, ck := range colorKeys {
		if ck[0] != Undefined {
			members = append(members, member{ck[0], ck[1], r})
		}
	}
	slices.SortFunc(members, func(a, b member) int {
		return cmp.Or(cmp.Compare(a.color, b.color), cmp.Compare(a.key, b.key), cmp.Compare(a.rank, b.rank))
	})
	var groups []splitGroup
	for _, m := range members {
		if len(groups) == 0 || groups[len(groups)-1].color != m.color {
			groups = append(groups, splitGroup{color: m.color})
		}
		g := &groups[len(groups)-1]
		g.ranks = append(g.ranks, m.rank)
	}
	return groups
}

// commName names a new communicator for reports.
func commName(parent, op string, color, id int) string {
	if op == "Split" {
		return fmt.Sprintf("%s/Split(color=%d)#%d", parent, color, id)
	}
	return fmt.Sprintf("%s/%s#%d", parent, op, id)
}

// Dims returns the grid dimensions of a Cartesian communicator.
func (c *Comm) Dims() []int {
	c.needCart("Dims")
	return slices.Clone(c.sh.dims)
}

// Coords returns the grid coordinates of rank (row-major order).
func (c *Comm) Coords(rank int) []int {
	c.needCart("Coords")
	c.checkRank("Coords", "grid", rank, false)
	if rank == ProcNull {
		c.fail("Coords", "ProcNull has no coordinates")
	}
	dims := c.sh.dims
	coords := make([]int, len(dims))
	for i := len(dims) - 1; i >= 0; i-- {
		coords[i] = rank % dims[i]
		rank /= dims[i]
	}
	return coords
}

// CartRank returns the rank at coords; periodic dimensions wrap around,
// coordinates outside a non-periodic dimension are an error.
func (c *Comm) CartRank(coords []int) int {
	c.needCart("CartRank")
	dims := c.sh.dims
	if len(coords) != len(dims) {
		c.fail("CartRank", "%d coordinates for a %d-dimensional grid", len(coords), len(dims))
	}
	r, ok := c.cartRank(coords)
	if !ok {
		c.fail("CartRank", "coordinates %v are outside the non-periodic grid %v", coords, dims)
	}
	return r
}

func (c *Comm) cartRank(coords []int) (int, bool) {
	dims, periods := c.sh.dims, c.sh.periods
	r := 0
	for i, x := range coords {
		if x < 0 || x >= dims[i] {
			if !periods[i] {
				return ProcNull, false
			}
			x = ((x % dims[i]) + dims[i]) % dims[i]
		}
		r = r*dims[i] + x
	}
	return r, true
}

// Shift returns the ranks disp steps before (source) and after (dest) the
// calling rank along dimension dim, or ProcNull beyond a non-periodic edge.
func (c *Comm) Shift(dim, disp int) (source, dest int) {
	c.needCart("Shift")
	if dim < 0 || dim >= len(c.sh.dims) {
		c.fail("Shift", "dimension %d: the grid has dimensions 0..%d", dim, len(c.sh.dims)-1)
	}
	me := c.Coords(c.rank)
	at := func(d int) int {
		x := slices.Clone(me)
		x[dim] += d
		r, _ := c.cartRank(x)
		return r
	}
	return at(-disp), at(disp)
}

func (c *Comm) needCart(op string) {
	if c.sh.dims == nil {
		c.fail(op, "communicator %s has no Cartesian topology (make one with CartCreate)", c.sh.name)
	}
}

// DimsCreate fills the zero entries of dims with a grid shape for nnodes
// ranks that is as balanced as possible, largest first, as MPI_Dims_create
// does; non-zero entries are kept. It panics when nnodes is not divisible
// by the product of the fixed entries.
func DimsCreate(nnodes int, dims []int) []int {
	out := slices.Clone(dims)
	fixed := 1
	var free []int
	for i, d := range out {
		switch {
		case d < 0:
			panic(fmt.Sprintf("commlib.DimsCreate: dims[%d] = %d: want 0 (free) or a positive size", i, d))
		case d == 0:
			free = append(free, i)
		default:
			fixed *= d
		}
	}
	if nnodes < 1 || nnodes%fixed != 0 {
		panic(fmt.Sprintf("commlib.DimsCreate: %d ranks cannot be arranged with the fixed dimensions %v", nnodes, dims))
	}
	rem := nnodes / fixed
	if len(free) == 0 {
		if rem != 1 {
			panic(fmt.Sprintf("commlib.DimsCreate: the fixed dimensions %v hold %d ranks, not %d", dims, fixed, nnodes))
		}
		return out
	}
	sizes := balancedFactors(rem, len(free))
	for i, idx := range free {
		out[idx] = sizes[i]
	}
	return out
}

// balancedFactors returns k factors of n, largest first, whose spread
// (largest minus smallest) is the smallest possible, as MPICH's
// MPI_Dims_create does; a greedy split by prime factors is not always
// balanced (72 → 12×6 instead of 9×8).
func balancedFactors(n, k int) []int {
	best := make([]int, k)
	cur := make([]int, 0, k)
	bestSpread := -1
	var search func(rem, maxF, left int)
	search = func(rem, maxF, left int) {
		if left == 1 {
			if rem > maxF {
				return
			}
			cur = append(cur, rem)
			if spread := cur[0] - rem; bestSpread < 0 || spread < bestSpread {
				bestSpread = spread
				copy(best, cur)
			}
			cur = cur[:len(cur)-1]
			return
		}
		// The next factor f is at most maxF and at least the left-th root
		// of rem (the factors are nonincreasing).
		for f := min(maxF, rem); f >= 1; f-- {
			if rem%f != 0 || pow(f, left) < rem {
				if pow(f, left) < rem {
					return
				}
				continue
			}
			if bestSpread >= 0 && len(cur) > 0 && cur[0]-f >= bestSpread {
				continue
			}
			cur = append(cur, f)
			search(rem/f, f, left-1)
			cur = cur[:len(cur)-1]
		}
	}
	search(n, n, k)
	return best
}

// pow is f^k, saturating at a large value.
func pow(f, k int) int {
	p := 1
	for range k {
		p *= f
		if p > 1<<40 {
			return 1 << 40
		}
	}
	return p
}
