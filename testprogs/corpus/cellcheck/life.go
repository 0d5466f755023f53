// This file defines the automaton: a block of rows with ghost rows, the
// per-cell rule and its validity check, the row hashes, and the
// sequential run that checks the distributed one.

package main

import (
	"fmt"
	"math/rand/v2"
)

// A cell is 0 when dead, else its age in steps (1 when just born), capped
// at maxAge.
const maxAge = 200

// block holds rows [first, first+rows) of a width-wide torus, plus one
// ghost row above (index 0) and one below (index rows+1).
type block struct {
	width, rows, first int
	cells              []uint8
}

func newBlock(width, rows, first int) *block {
	return &block{width: width, rows: rows, first: first, cells: make([]uint8, (rows+2)*width)}
}

// row returns local row r (0 and rows+1 are the ghosts).
func (b *block) row(r int) []uint8 { return b.cells[r*b.width : (r+1)*b.width] }

// seed fills the owned rows from a seeded generator per global row: about
// density of the cells start alive, at age 1.
func (b *block) seed(seed uint64, density float64) {
	for r := 1; r <= b.rows; r++ {
		rng := rand.New(rand.NewPCG(seed, uint64(b.first+r-1)))
		for j := range b.row(r) {
			if rng.Float64() < density {
				b.row(r)[j] = 1
			}
		}
	}
}

// alive returns 1 if the cell at local row r, column j (wrapping around the
// columns) is alive.
func (b *block) alive(r, j int) int {
	if j < 0 {
		j += b.width
	} else if j >= b.width {
		j -= b.width
	}
	if b.cells[r*b.width+j] != 0 {
		return 1
	}
	return 0
}

// neighbours counts the live cells around (r, j).
func (b *block) neighbours(r, j int) int {
	n := 0
	for dr := -1; dr <= 1; dr++ {
		for dj := -1; dj <= 1; dj++ {
			if dr != 0 || dj != 0 {
				n += b.alive(r+dr, j+dj)
			}
		}
	}
	return n
}

// rule is Conway's B3/S23 with ages.
func rule(cur uint8, n int) uint8 {
	switch {
	case cur == 0 && n == 3:
		return 1
	case cur != 0 && (n == 2 || n == 3):
		if cur < maxAge {
			return cur + 1
		}
		return cur
	default:
		return 0
	}
}

// checkCell returns an error when next cannot follow cur with n live
// neighbours: a broken rule, halo or index shows up here first.
func checkCell(cur, next uint8, n int) error {
	switch {
	case n < 0 || n > 8:
		return fmt.Errorf("%d live neighbours", n)
	case next > maxAge:
		return fmt.Errorf("age %d above the cap %d", next, maxAge)
	case next == 1 && (cur != 0 || n != 3):
		return fmt.Errorf("born with %d neighbours from state %d", n, cur)
	case next > 1 && next != min(cur+1, maxAge):
		return fmt.Errorf("age %d after %d", next, cur)
	case next == 0 && cur != 0 && (n == 2 || n == 3):
		return fmt.Errorf("died with %d neighbours", n)
	}
	return nil
}

// step computes the next generation of the owned rows into out, calling
// bad for the first invalid cell, and returns the live cells.
func (b *block) step(out *block, bad func(r, j int, err error)) int64 {
	var live int64
	for r := 1; r <= b.rows; r++ {
		src, dst := b.row(r), out.row(r)
		for j, cur := range src {
			n := b.neighbours(r, j)
			next := rule(cur, n)
			if err := checkCell(cur, next, n); err != nil {
				bad(r, j, err)
			}
			dst[j] = next
			if next != 0 {
				live++
			}
		}
	}
	return live
}

// rowHashes returns a hash chain of every owned row, mixed with its global
// index, summed: the same for any split of the rows.
func (b *block) rowHashes() uint64 {
	var sum uint64
	for r := 1; r <= b.rows; r++ {
		h := uint64(b.first+r-1)*0x9e3779b97f4a7c15 + 1469598103934665603
		for _, v := range b.row(r) {
			h = (h ^ uint64(v)) * 1099511628211
		}
		sum += h
	}
	return sum
}

// sequential runs steps generations of the whole torus and returns its
// final row hash and the live cells after each step.
func sequential(width, height, steps int, seed uint64, density float64) (uint64, []int64) {
	cur, next := newBlock(width, height, 0), newBlock(width, height, 0)
	cur.seed(seed, density)
	var pop []int64
	for range steps {
		copy(cur.row(0), cur.row(height))
		copy(cur.row(height+1), cur.row(1))
		pop = append(pop, cur.step(next, func(r, j int, err error) {
			panic(fmt.Sprintf("sequential run: cell (%d, %d): %v", r-1, j, err))
		}))
		cur, next = next, cur
	}
	return cur.rowHashes(), pop
}
