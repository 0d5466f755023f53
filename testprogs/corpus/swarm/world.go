// This file defines the particles, one rank's cells, a time step and the
// exchange of the particles that cross to a neighbouring rank.

package main

import (
	"fmt"
	"math"
	"sort"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/testprogs/internal/progutil"
)

const (
	relax = 0.1 // fraction of the way to the cell's mean velocity per step
	kick  = 0.1 // width of the random velocity kick
	vmax  = 0.9 // largest speed, in cells per step: a particle never skips a cell
)

const (
	tagCount = 1
	tagIDs   = 2
	tagVals  = 3
)

// particle is one member of the population.
type particle struct {
	id   uint64
	x, v float64
	age  int
}

// mix is the SplitMix64 finalizer: a hash of x.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// unit returns a number in [0, 1) from the top 53 bits of h.
func unit(h uint64) float64 { return float64(h>>11) / (1 << 53) }

// world is one rank's block of cells [lo, lo+len(cells)) of the periodic
// line of n cells.
type world struct {
	c           *commlib.Comm
	n, lo       int
	cells       [][]*particle
	left, right int
}

// outbox collects the particles leaving towards one neighbour.
type outbox struct {
	ids  []uint64
	vals []float64 // x, v, age per particle
}

func (o *outbox) add(p *particle) {
	o.ids = append(o.ids, p.id)
	o.vals = append(o.vals, p.x, p.v, float64(p.age))
}

func newWorld(c *commlib.Comm, n, density int) *world {
	rank, np := c.Rank(), c.Size()
	lo, count := progutil.Block(n, rank, np)
	w := &world{c: c, n: n, lo: lo, cells: make([][]*particle, count),
		left: (rank + np - 1) % np, right: (rank + 1) % np}
	for k := range w.cells {
		cell := lo + k
		for m := range density {
			id := uint64(cell*density + m)
			h := mix(id)
			w.cells[k] = append(w.cells[k], &particle{id: id, x: float64(cell) + unit(h), v: (unit(mix(h)) - 0.5) * vmax})
		}
	}
	return w
}

// step advances the rank's particles by one step and returns the births
// and deaths.
func (w *world) step(t uint64, birthPM, deathPM int) (births, deaths int64) {
	next := make([][]*particle, len(w.cells))
	var toLeft, toRight outbox
	place := func(p *particle, from int) {
		cell := int(math.Floor(p.x))
		if k := cell - w.lo; k >= 0 && k < len(next) {
			next[k] = append(next[k], p)
			return
		}
		// Outside this rank's block: one cell left or right of from.
		if cell == (from+w.n-1)%w.n {
			toLeft.add(p)
		} else {
			toRight.add(p)
		}
	}
	for k, cell := range w.cells {
		sort.Slice(cell, func(i, j int) bool { return cell[i].id < cell[j].id })
		mean := 0.0
		for _, p := range cell {
			mean += p.v
		}
		if len(cell) > 0 {
			mean /= float64(len(cell))
		}
		for _, p := range cell {
			h := mix(p.id ^ mix(t))
			if int(h%1000) < deathPM {
				deaths++
				continue
			}
			v := p.v + relax*(mean-p.v) + kick*(unit(mix(h))-0.5)
			v = max(-vmax, min(vmax, v))
			x := p.x + v
			if x < 0 {
				x += float64(w.n) // may round up to n
			}
			if x >= float64(w.n) {
				x -= float64(w.n)
			}
			place(&particle{id: p.id, x: x, v: v, age: p.age + 1}, w.lo+k)
			if int(h>>10%1000) < birthPM {
				births++
				place(&particle{id: mix(p.id + t<<40), x: x, v: -v}, w.lo+k)
			}
		}
	}
	w.cells = next
	w.receive(w.exchange(&toRight, w.right, w.left))
	w.receive(w.exchange(&toLeft, w.left, w.right))
	return births, deaths
}

// exchange sends out to dest and returns what arrives from source.
func (w *world) exchange(out *outbox, dest, source int) outbox {
	n := []int{len(out.ids)}
	m := []int{0}
	w.c.Sendrecv(n, dest, tagCount, m, source, tagCount)
	in := outbox{ids: make([]uint64, m[0]), vals: make([]float64, 3*m[0])}
	w.c.Sendrecv(out.ids, dest, tagIDs, in.ids, source, tagIDs)
	w.c.Sendrecv(out.vals, dest, tagVals, in.vals, source, tagVals)
	return in
}

// receive adds the particles that arrived from a neighbour to their cells.
func (w *world) receive(in outbox) {
	for i, id := range in.ids {
		p := &particle{id: id, x: in.vals[3*i], v: in.vals[3*i+1], age: int(in.vals[3*i+2])}
		k := int(math.Floor(p.x)) - w.lo
		if k < 0 || k >= len(w.cells) {
			w.c.Abort(fmt.Errorf("particle %d at x=%g arrived at the rank holding cells %d..%d", id, p.x, w.lo, w.lo+len(w.cells)-1))
		}
		w.cells[k] = append(w.cells[k], p)
	}
}

// summary is the global population, its order-independent hash, and the
// births and deaths of the last step.
type summary struct {
	count, births, deaths int64
	hash                  uint64
}

// census sums the population, the hash of every particle and the given
// births and deaths over all ranks.
func (w *world) census(births, deaths int64) summary {
	var count int64
	var hash uint64
	for _, cell := range w.cells {
		for _, p := range cell {
			count++
			hash += mix(p.id ^ mix(math.Float64bits(p.x)^mix(math.Float64bits(p.v))))
		}
	}
	counts := []int64{count, births, deaths}
	total := make([]int64, 3)
	w.c.Allreduce(counts, total, commlib.Sum)
	hashes := []uint64{hash}
	sum := make([]uint64, 1)
	w.c.Allreduce(hashes, sum, commlib.Sum)
	return summary{count: total[0], births: total[1], deaths: total[2], hash: sum[0]}
}
