// This file defines the plasma a rank holds: its particles, the charge
// deposition in fixed point (exact, so the result does not depend on the
// order of the particles), the field solve, the push and the migration of
// the particles that leave the rank's cells.

package main

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/predict-tools/predict/commlib"
)

// particle is one electron: global id, position (in cells) and velocity.
type particle struct {
	id   int64
	x, v float64
}

// fixedOne is a whole particle's charge in the fixed-point deposition.
const fixedOne = 1 << 24

const (
	tagCount = 10
	tagData  = 11
	floatsPP = 3 // floats per particle in a migration message
)

// setup is what the whole run shares.
type setup struct {
	cells, ppc int // grid cells (cell width 1, periodic) and particles per cell
	dt         float64
	beam       float64 // the two beams' speeds are ±beam
	thermal    float64
	mode       int // wave number of the initial velocity perturbation
	seed       uint64
}

// plasma is one rank's share: the cells [first, first+count) and the
// particles in them.
type plasma struct {
	c            *commlib.Comm
	s            setup
	first, count int
	left, right  int
	parts        []particle
	rho          []int64   // charge at the nodes first..first+count (the last is the right neighbour's)
	field        []float64 // E at the nodes first..first+count (the last from the right neighbour)
}

func newPlasma(c *commlib.Comm, s setup, first, count int) *plasma {
	np := c.Size()
	p := &plasma{c: c, s: s, first: first, count: count,
		left: (c.Rank() + np - 1) % np, right: (c.Rank() + 1) % np,
		rho: make([]int64, count+1), field: make([]float64, count+1)}
	// particle k sits at (k+0.5)/ppc; the two beams alternate
	for k := int64(first * s.ppc); k < int64((first+count)*s.ppc); k++ {
		rng := rand.New(rand.NewPCG(s.seed, uint64(k)))
		x := (float64(k) + 0.5) / float64(s.ppc)
		v := s.beam
		if k%2 == 1 {
			v = -v
		}
		v *= 1 + 0.01*math.Sin(2*math.Pi*float64(s.mode)*x/float64(s.cells))
		v += s.thermal * rng.NormFloat64()
		p.parts = append(p.parts, particle{id: k, x: x, v: v})
	}
	return p
}

// deposit spreads the electrons' charge on the nodes (cloud in cell) and
// adds the right neighbour's share of our first node.
func (p *plasma) deposit() {
	clear(p.rho)
	for _, q := range p.parts {
		j := int(q.x) - p.first
		w := int64((q.x - math.Floor(q.x)) * fixedOne)
		p.rho[j] += fixedOne - w
		p.rho[j+1] += w
	}
	in := []int64{0}
	p.c.Sendrecv(p.rho[p.count:], p.right, tagCount, in, p.left, tagCount)
	p.rho[0] += in[0]
}

// solve computes the field from Gauss's law dE/dx = ρ_ion − ρ_e on the
// periodic grid, E with zero mean, in exact integers up to the last
// division. It returns the electrons' total charge (in fixed point).
func (p *plasma) solve() int64 {
	background := int64(p.s.ppc) * fixedOne
	prefix := make([]int64, p.count)
	var run, sumPrefix, charge int64
	for j := range p.count {
		charge += p.rho[j]
		run += background - p.rho[j]
		prefix[j] = run
	}
	offset := []int64{0}
	p.c.Exscan([]int64{run}, offset, commlib.Sum)
	if p.c.Rank() == 0 {
		offset[0] = 0
	}
	for j := range prefix {
		prefix[j] += offset[0]
		sumPrefix += prefix[j]
	}
	sums := []int64{0, 0}
	p.c.Allreduce([]int64{sumPrefix, charge}, sums, commlib.Sum)
	n := int64(p.s.cells)
	scale := 1 / (float64(n) * float64(background))
	for j := range prefix {
		p.field[j] = float64(prefix[j]*n-sums[0]) * scale
	}
	in := []float64{0}
	p.c.Sendrecv(p.field[:1], p.left, tagData, in, p.right, tagData)
	p.field[p.count] = in[0]
	return sums[1]
}

// push accelerates (electrons: q/m = −1) and moves the particles, wrapping
// around the periodic domain.
func (p *plasma) push() {
	l := float64(p.s.cells)
	for i := range p.parts {
		q := &p.parts[i]
		j := int(q.x) - p.first
		w := q.x - math.Floor(q.x)
		e := (1-w)*p.field[j] + w*p.field[j+1]
		q.v -= e * p.s.dt
		q.x += q.v * p.s.dt
		if q.x < 0 {
			q.x += l
			if q.x >= l { // -x below l's rounding
				q.x = 0
			}
		} else if q.x >= l {
			q.x -= l
		}
	}
}

// owns reports whether x lies in this rank's cells.
func (p *plasma) owns(x float64) bool {
	return x >= float64(p.first) && x < float64(p.first+p.count)
}

// migrate sends the particles that left the rank's cells to the neighbour
// in their direction of motion: counts first, then the particles. It
// returns how many particles it sent.
func (p *plasma) migrate() (int, error) {
	var toLeft, toRight []float64
	kept := p.parts[:0]
	for _, q := range p.parts {
		switch {
		case p.owns(q.x):
			kept = append(kept, q)
		case q.v > 0:
			toRight = append(toRight, float64(q.id), q.x, q.v)
		default:
			toLeft = append(toLeft, float64(q.id), q.x, q.v)
		}
	}
	p.parts = kept
	for _, dir := range []struct {
		out        []float64
		dest, from int
	}{{toRight, p.right, p.left}, {toLeft, p.left, p.right}} {
		n := []int{len(dir.out) / floatsPP}
		m := []int{0}
		p.c.Sendrecv(n, dir.dest, tagCount, m, dir.from, tagCount)
		in := make([]float64, m[0]*floatsPP)
		p.c.Sendrecv(dir.out, dir.dest, tagData, in, dir.from, tagData)
		for k := 0; k < len(in); k += floatsPP {
			q := particle{id: int64(in[k]), x: in[k+1], v: in[k+2]}
			if !p.owns(q.x) {
				return 0, fmt.Errorf("particle %d at x=%v arrived at rank %d, which holds [%d, %d): it moved more than a rank's cells in one step",
					q.id, q.x, p.c.Rank(), p.first, p.first+p.count)
			}
			p.parts = append(p.parts, q)
		}
	}
	return (len(toLeft) + len(toRight)) / floatsPP, nil
}

// energy returns the kinetic and the field energy (the particle mass is
// 1/ppc, the cell width 1).
func (p *plasma) energy() (kinetic, field float64) {
	for _, q := range p.parts {
		kinetic += q.v * q.v
	}
	kinetic /= 2 * float64(p.s.ppc)
	for _, e := range p.field[:p.count] {
		field += e * e / 2
	}
	return kinetic, field
}

// digest is an order-independent hash of the particles' exact state.
func (p *plasma) digest() uint64 {
	var h uint64
	for _, q := range p.parts {
		h += mix64(uint64(q.id)*0x9e3779b97f4a7c15 ^ math.Float64bits(q.x) ^ bitsRotl(math.Float64bits(q.v), 29))
	}
	return h
}

func bitsRotl(x uint64, k uint) uint64 { return x<<k | x>>(64-k) }

// mix64 is SplitMix64's output function.
func mix64(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}
