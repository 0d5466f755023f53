// This file tests communicator creation and Cartesian topologies: Split,
// Dup, DimsCreate, CartCreate, Coords, CartRank and Shift.

package commlib_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/predict-tools/predict/commlib"
)

func TestDimsCreate(t *testing.T) {
	// Results of MPI_Dims_create as MPICH computes them: the most
	// balanced factorization, in nonincreasing order.
	for _, tc := range []struct {
		n          int
		dims, want []int
	}{
		{1, []int{0}, []int{1}},
		{1, []int{0, 0}, []int{1, 1}},
		{6, []int{0, 0}, []int{3, 2}},
		{12, []int{0, 0}, []int{4, 3}},
		{8, []int{0, 0, 0}, []int{2, 2, 2}},
		{7, []int{0, 0}, []int{7, 1}},
		{16, []int{0, 0}, []int{4, 4}},
		{24, []int{0, 0}, []int{6, 4}},
		{30, []int{0, 0}, []int{6, 5}},
		{36, []int{0, 0}, []int{6, 6}},
		{64, []int{0, 0, 0}, []int{4, 4, 4}},
		{60, []int{0, 0, 0}, []int{5, 4, 3}},
		{9, []int{0}, []int{9}},
		{12, []int{0, 3}, []int{4, 3}}, // fixed entries are kept
		{12, []int{3, 0}, []int{3, 4}}, // ...wherever they are
		{12, []int{0, 2, 0}, []int{3, 2, 2}},
		{24, []int{0, 2, 0}, []int{4, 2, 3}}, // free entries nonincreasing among themselves
		{6, []int{2, 3}, []int{2, 3}},        // nothing free
		{5, []int{0, 0, 0, 0}, []int{5, 1, 1, 1}},
		{72, []int{0, 0}, []int{9, 8}},    // a greedy split by prime factors gives [12 6]
		{180, []int{0, 0}, []int{15, 12}}, // ... and [18 10] here
	} {
		in := slices.Clone(tc.dims)
		got := commlib.DimsCreate(tc.n, tc.dims)
		if !slices.Equal(got, tc.want) {
			t.Errorf("DimsCreate(%d, %v) = %v, want %v", tc.n, in, got, tc.want)
		}
		if !slices.Equal(tc.dims, in) {
			t.Errorf("DimsCreate(%d, %v) modified its argument to %v", tc.n, in, tc.dims)
		}
	}
}

// mostBalanced returns the smallest max-min spread of any factorization of
// n into k factors.
func mostBalanced(n, k int) int {
	best := n
	var rec func(rem, k, maxd, first int)
	rec = func(rem, k, maxd, first int) {
		if k == 1 {
			if rem <= maxd {
				best = min(best, first-rem)
			}
			return
		}
		for d := maxd; d >= 1; d-- {
			if rem%d == 0 {
				f := first
				if f == 0 {
					f = d
				}
				rec(rem/d, k-1, d, f)
			}
		}
	}
	if k == 1 {
		return 0
	}
	rec(n, k, n, 0)
	return best
}

func TestDimsCreateProperties(t *testing.T) {
	// For every n up to 200 and 1..4 free dimensions: the product is n, the
	// entries are nonincreasing, and the grid is as balanced as a
	// factorization can be.
	for k := 1; k <= 4; k++ {
		for n := 1; n <= 200; n++ {
			got := commlib.DimsCreate(n, make([]int, k))
			prod := 1
			for _, d := range got {
				prod *= d
			}
			if len(got) != k || prod != n || !slices.IsSortedFunc(got, func(a, b int) int { return b - a }) {
				t.Errorf("DimsCreate(%d, %d zeros) = %v", n, k, got)
				continue
			}
			if spread := got[0] - got[k-1]; spread != mostBalanced(n, k) {
				t.Errorf("DimsCreate(%d, %d zeros) = %v: spread %d, a factorization with spread %d exists",
					n, k, got, spread, mostBalanced(n, k))
			}
		}
	}
	// With a fixed entry, the free ones hold the rest.
	for n := 2; n <= 60; n += 2 {
		got := commlib.DimsCreate(n, []int{0, 2, 0})
		if got[1] != 2 || got[0]*got[1]*got[2] != n || got[0] < got[2] {
			t.Errorf("DimsCreate(%d, [0 2 0]) = %v", n, got)
		}
	}
}

func TestDimsCreatePanics(t *testing.T) {
	for _, tc := range []struct {
		n    int
		dims []int
		msg  string
	}{
		{7, []int{2, 0}, "cannot be arranged"},
		{6, []int{-1, 0}, "dims[0] = -1"},
		{8, []int{2, 2}, "hold 4 ranks, not 8"},
		{0, []int{0}, "cannot be arranged"},
	} {
		func() {
			defer func() {
				v := recover()
				if v == nil || !strings.Contains(fmt.Sprint(v), tc.msg) {
					t.Errorf("DimsCreate(%d, %v) panicked with %v, want a panic containing %q", tc.n, tc.dims, v, tc.msg)
				}
			}()
			commlib.DimsCreate(tc.n, tc.dims)
		}()
	}
}

func TestCartesianGrid(t *testing.T) {
	// 12 ranks on a 3×4 grid, periodic in the second dimension only.
	const np = 12
	mustRun(t, np, func(c *commlib.Comm) {
		g := c.CartCreate([]int{3, 4}, []bool{false, true})
		if g == nil {
			c.Abort(fmt.Errorf("rank %d: CartCreate returned nil", c.Rank()))
		}
		if g.Size() != np || g.Rank() != c.Rank() {
			t.Errorf("grid rank %d size %d", g.Rank(), g.Size())
		}
		if d := g.Dims(); !slices.Equal(d, []int{3, 4}) {
			t.Errorf("Dims = %v", d)
		}
		// Row-major coordinates, and the round trip.
		for r := range np {
			coords := g.Coords(r)
			if !slices.Equal(coords, []int{r / 4, r % 4}) {
				t.Errorf("Coords(%d) = %v, want [%d %d]", r, coords, r/4, r%4)
			}
			if back := g.CartRank(coords); back != r {
				t.Errorf("CartRank(Coords(%d)) = %d", r, back)
			}
		}
		// The periodic dimension wraps, in both directions and by more than a turn.
		for _, tc := range []struct {
			coords []int
			want   int
		}{{[]int{1, -1}, 7}, {[]int{1, 4}, 4}, {[]int{2, 9}, 9}, {[]int{0, -5}, 3}} {
			if got := g.CartRank(tc.coords); got != tc.want {
				t.Errorf("CartRank(%v) = %d, want %d", tc.coords, got, tc.want)
			}
		}

		row, col := g.Rank()/4, g.Rank()%4
		// Shift along the non-periodic dimension: ProcNull beyond the edges.
		src, dst := g.Shift(0, 1)
		wantSrc, wantDst := (row-1)*4+col, (row+1)*4+col
		if row == 0 {
			wantSrc = commlib.ProcNull
		}
		if row == 2 {
			wantDst = commlib.ProcNull
		}
		if src != wantSrc || dst != wantDst {
			t.Errorf("rank %d Shift(0, 1) = %d, %d, want %d, %d", g.Rank(), src, dst, wantSrc, wantDst)
		}
		if s2, d2 := g.Shift(0, -1); s2 != dst || d2 != src {
			t.Errorf("Shift(0, -1) = %d, %d, want the reverse of Shift(0, 1)", s2, d2)
		}
		if s, d := g.Shift(0, 3); s != commlib.ProcNull || d != commlib.ProcNull {
			t.Errorf("Shift(0, 3) = %d, %d, want ProcNull twice", s, d)
		}
		// Shift along the periodic dimension wraps.
		s, d := g.Shift(1, 1)
		if s != row*4+(col+3)%4 || d != row*4+(col+1)%4 {
			t.Errorf("rank %d Shift(1, 1) = %d, %d", g.Rank(), s, d)
		}
		s, d = g.Shift(1, 6)
		if s != row*4+(col+2)%4 || d != row*4+(col+2)%4 {
			t.Errorf("rank %d Shift(1, 6) = %d, %d", g.Rank(), s, d)
		}

		// A halo exchange along both dimensions with the shifted ranks.
		ghost := []int{-1}
		g.Sendrecv([]int{g.Rank()}, dst, 0, ghost, src, 0)
		if (src == commlib.ProcNull && ghost[0] != -1) || (src != commlib.ProcNull && ghost[0] != src) {
			t.Errorf("rank %d halo from %d: %v", g.Rank(), src, ghost)
		}
		s, d = g.Shift(1, 1)
		g.Sendrecv([]int{g.Rank()}, d, 1, ghost, s, 1)
		if ghost[0] != s {
			t.Errorf("rank %d periodic halo from %d: %v", g.Rank(), s, ghost)
		}
	})
}

func TestCartCreateSmallerGrid(t *testing.T) {
	// 7 ranks, a 2×3 grid: rank 6 gets nil; the grid works without it.
	mustRun(t, 7, func(c *commlib.Comm) {
		g := c.CartCreate([]int{2, 3}, []bool{true, true})
		if c.Rank() == 6 {
			if g != nil {
				t.Errorf("rank 6 outside the grid got a communicator of size %d", g.Size())
			}
			return
		}
		if g == nil {
			c.Abort(fmt.Errorf("rank %d: nil grid", c.Rank()))
		}
		if g.Size() != 6 || g.Rank() != c.Rank() {
			t.Errorf("grid rank %d size %d", g.Rank(), g.Size())
		}
		out := make([]int, 1)
		g.Allreduce([]int{1}, out, commlib.Sum)
		if out[0] != 6 {
			t.Errorf("grid Allreduce = %d, want 6", out[0])
		}
	})
	// A three-dimensional periodic grid.
	mustRun(t, 8, func(c *commlib.Comm) {
		g := c.CartCreate(commlib.DimsCreate(8, []int{0, 0, 0}), []bool{true, true, true})
		for dim := range 3 {
			s, d := g.Shift(dim, 1)
			if s != d { // two ranks per dimension: both neighbours are the same
				t.Errorf("Shift(%d, 1) = %d, %d", dim, s, d)
			}
			coords := g.Coords(g.Rank())
			coords[dim] ^= 1
			if want := g.CartRank(coords); d != want {
				t.Errorf("Shift(%d, 1) = %d, want %d", dim, d, want)
			}
		}
	})
}

func TestSplitColorKeyOrder(t *testing.T) {
	const np = 7
	// Color rank%2; key: descending for color 0, all equal for color 1
	// (ties broken by the parent rank).
	mustRun(t, np, func(c *commlib.Comm) {
		color := c.Rank() % 2
		key := 0
		if color == 0 {
			key = -c.Rank()
		}
		s := c.Split(color, key)
		var want []int
		for r := range np {
			if r%2 == color {
				want = append(want, r)
			}
		}
		if color == 0 {
			slices.Reverse(want)
		}
		if s.Size() != len(want) || want[s.Rank()] != c.Rank() || s.WorldRank() != c.Rank() {
			t.Errorf("rank %d: split rank %d size %d, want order %v", c.Rank(), s.Rank(), s.Size(), want)
		}
		got := make([]int, s.Size())
		s.Allgather([]int{c.Rank()}, got)
		if !slices.Equal(got, want) {
			t.Errorf("rank %d: split members %v, want %v", c.Rank(), got, want)
		}
	})
}

func TestSplitUndefined(t *testing.T) {
	mustRun(t, 5, func(c *commlib.Comm) {
		color := commlib.Undefined
		if c.Rank() >= 2 {
			color = 3
		}
		s := c.Split(color, 0)
		if c.Rank() < 2 {
			if s != nil {
				t.Errorf("rank %d with color Undefined got a communicator", c.Rank())
			}
		} else if s == nil || s.Size() != 3 || s.Rank() != c.Rank()-2 {
			t.Errorf("rank %d: split %v", c.Rank(), s)
		}
		// Everyone Undefined.
		if n := c.Split(commlib.Undefined, 0); n != nil {
			t.Errorf("all Undefined: rank %d got a communicator", c.Rank())
		}
		// The parent still works.
		c.Barrier()
	})
}

func TestTopologyErrors(t *testing.T) {
	cases := []struct {
		name, op, marker, msg string
		np                    int
		body                  func(c *commlib.Comm)
	}{
		{"grid too large", "CartCreate", "cart-big", "the grid [2 3] has 6 ranks, the communicator only 4", 4,
			func(c *commlib.Comm) {
				c.CartCreate([]int{2, 3}, []bool{false, false}) // @site:cart-big
			}},
		{"dims and periods", "CartCreate", "cart-periods", "dims has 2 entries and periods 1", 4,
			func(c *commlib.Comm) {
				c.CartCreate([]int{2, 2}, []bool{false}) // @site:cart-periods
			}},
		{"zero dimension", "CartCreate", "cart-zero", "dims[1] = 0", 4,
			func(c *commlib.Comm) {
				c.CartCreate([]int{2, 0}, []bool{false, false}) // @site:cart-zero
			}},
		{"no topology", "Coords", "coords", "has no Cartesian topology", 2,
			func(c *commlib.Comm) {
				c.Coords(0) // @site:coords
			}},
		{"outside non-periodic", "CartRank", "cartrank", "coordinates [2 0] are outside the non-periodic grid [2 1]", 2,
			func(c *commlib.Comm) {
				g := c.CartCreate([]int{2, 1}, []bool{false, true})
				g.CartRank([]int{2, 0}) // @site:cartrank
			}},
		{"wrong number of coordinates", "CartRank", "cartrank-n", "1 coordinates for a 2-dimensional grid", 2,
			func(c *commlib.Comm) {
				g := c.CartCreate([]int{2, 1}, []bool{false, true})
				g.CartRank([]int{1}) // @site:cartrank-n
			}},
		{"shift dimension", "Shift", "shift", "dimension 2: the grid has dimensions 0..1", 2,
			func(c *commlib.Comm) {
				g := c.CartCreate([]int{2, 1}, []bool{false, true})
				g.Shift(2, 1) // @site:shift
			}},
		{"coords of a bad rank", "Coords", "coords-rank", "invalid grid rank 5", 2,
			func(c *commlib.Comm) {
				g := c.CartCreate([]int{2, 1}, []bool{false, true})
				g.Coords(5) // @site:coords-rank
			}},
		{"split color", "Split", "split", "invalid color -7", 2,
			func(c *commlib.Comm) {
				c.Split(-7, 0) // @site:split
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := commlib.Run(tc.np, tc.body)
			wantError(t, err, -1, tc.op, site(t, tc.marker), tc.msg)
		})
	}
}

func TestCartCreateDisagreement(t *testing.T) {
	// Ranks that pass different grids to CartCreate: the collective's
	// arguments disagree.
	err := commlib.Run(2, func(c *commlib.Comm) {
		if c.Rank() == 0 {
			c.CartCreate([]int{2}, []bool{true}) // @site:cart-a
		} else {
			c.CartCreate([]int{2}, []bool{false}) // @site:cart-b
		}
	})
	e := wantError(t, err, -1, "CartCreate", site(t, map[bool]string{true: "cart-a", false: "cart-b"}[errRank(err) == 0]), "does not match")
	if e != nil && !strings.Contains(e.Msg, "periods=[") {
		t.Errorf("message %q does not show the disagreeing periods", e.Msg)
	}
}
