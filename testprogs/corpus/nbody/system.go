// This file defines the bodies of one rank, their initial conditions, the
// force sum, the leapfrog steps and the energy.

package main

import (
	"math"

	"github.com/predict-tools/predict/commlib"
)

// vec3 is a point or a vector in space.
type vec3 [3]float64

func (a vec3) sub(b vec3) vec3      { return vec3{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func (a vec3) dot(b vec3) float64   { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func (a vec3) scale(s float64) vec3 { return vec3{s * a[0], s * a[1], s * a[2]} }
func (a vec3) add(b vec3) vec3      { return vec3{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }

// body is one of the rank's bodies.
type body struct {
	pos, vel, acc vec3
	mass          float64
}

// system holds the rank's bodies, the positions of all bodies (gathered,
// three values per body, padded to np·nb bodies) and every body's mass.
type system struct {
	c      *commlib.Comm
	n, lo  int
	eps2   float64
	bodies []body
	mine   []float64 // this rank's positions, the Allgather send buffer
	all    []float64
	masses []float64
}

// hash01 returns a number in [0, 1) that depends only on (i, k).
func hash01(i, k int) float64 {
	x := uint64(i)*0x9e3779b97f4a7c15 + uint64(k)*0xc2b2ae3d27d4eb4f + 0x165667b19e3779f9
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	x ^= x >> 31
	return float64(x>>11) / (1 << 53)
}

// initial returns the position, velocity and mass of body i: a point of
// the unit ball (by rejection), a small random velocity, mass 1/n.
func initial(i, n int) (pos, vel vec3, mass float64) {
	for k := 0; ; k += 3 {
		p := vec3{2*hash01(i, k) - 1, 2*hash01(i, k+1) - 1, 2*hash01(i, k+2) - 1}
		if p.dot(p) <= 1 {
			pos = p
			break
		}
	}
	vel = vec3{hash01(i, 1000) - 0.5, hash01(i, 1001) - 0.5, hash01(i, 1002) - 0.5}.scale(0.2)
	return pos, vel, 1 / float64(n)
}

func newSystem(c *commlib.Comm, n, nb int, soft float64) *system {
	np := c.Size()
	lo := c.Rank() * nb
	count := min(nb, n-lo)
	s := &system{c: c, n: n, lo: lo, eps2: soft * soft,
		mine: make([]float64, 3*nb), all: make([]float64, 3*nb*np), masses: make([]float64, n)}
	for i := range n {
		_, _, s.masses[i] = initial(i, n)
	}
	for k := range count {
		pos, vel, m := initial(lo+k, n)
		s.bodies = append(s.bodies, body{pos: pos, vel: vel, mass: m})
	}
	return s
}

// exchange gathers the positions of all bodies.
func (s *system) exchange() {
	for k, b := range s.bodies {
		copy(s.mine[3*k:3*k+3], b.pos[:])
	}
	s.c.Allgather(s.mine, s.all)
}

// position returns the gathered position of body j.
func (s *system) position(j int) vec3 { return vec3{s.all[3*j], s.all[3*j+1], s.all[3*j+2]} }

// forces sets the acceleration of every local body from all other bodies,
// summed in index order.
func (s *system) forces() {
	for k := range s.bodies {
		b := &s.bodies[k]
		self := s.lo + k
		var acc vec3
		for j := range s.n {
			if j == self {
				continue
			}
			d := s.position(j).sub(b.pos)
			r2 := d.dot(d) + s.eps2
			inv := 1 / (r2 * math.Sqrt(r2))
			acc = acc.add(d.scale(s.masses[j] * inv))
		}
		b.acc = acc
	}
}

// kick advances the velocities by h.
func (s *system) kick(h float64) {
	for k := range s.bodies {
		b := &s.bodies[k]
		b.vel = b.vel.add(b.acc.scale(h))
	}
}

// drift advances the positions by h.
func (s *system) drift(h float64) {
	for k := range s.bodies {
		b := &s.bodies[k]
		b.pos = b.pos.add(b.vel.scale(h))
	}
}

// energy returns the total (kinetic plus softened potential) energy, on
// every rank; the positions must have been exchanged.
func (s *system) energy() float64 {
	e := []float64{0}
	for k, b := range s.bodies {
		e[0] += 0.5 * b.mass * b.vel.dot(b.vel)
		self := s.lo + k
		for j := range s.n {
			if j == self {
				continue
			}
			d := s.position(j).sub(b.pos)
			e[0] -= 0.5 * b.mass * s.masses[j] / math.Sqrt(d.dot(d)+s.eps2)
		}
	}
	total := make([]float64, 1)
	s.c.Allreduce(e, total, commlib.Sum)
	return total[0]
}
