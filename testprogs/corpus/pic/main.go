// Command pic is a 1-D electrostatic particle-in-cell code: the two-stream
// instability of two counter-streaming electron beams on a neutralizing
// ion background, on a periodic grid (cloud-in-cell weighting, leapfrog
// push, ω_p = 1).
//
// Communication pattern: the cells are block-distributed on a ring of
// ranks, each with the electrons inside its cells. Every step a rank
// deposits its electrons' charge (the share of the first node of the right
// neighbour goes there by Sendrecv), solves Gauss's law by a prefix sum
// (Exscan of the partial sums, an Allreduce for the mean and the total
// charge, the field of the right neighbour's first node by Sendrecv), pushes
// its electrons, and sends those that left its cells to the left or right
// neighbour: first the counts (Sendrecv), then the particles themselves
// (Sendrecv of a varying length). Every -energy-every steps the energies are
// summed with Allreduce.
//
// The charge is deposited in fixed point and the field computed from exact
// integer sums, so every particle's trajectory is bitwise the same for every
// np. Classes (cells, particles per cell, steps): S 256, 32, 100;
// W 1024, 128, 300; A 4096, 128, 400; B 32768, 256, 1000; C 2^18, 256, 2000.
// Checks: the electrons' charge equals the background's every step, no
// particle is lost, every migrated particle lands in its new rank's cells,
// the total energy stays within 10 % of the start at every reduction, and
// for S rank 0 runs the simulation again on its own (a one-rank
// communicator) and compares the digest. The checksum holds the particle
// count and an order-independent hash of every particle's id, position and
// velocity bits.
package main

import (
	"flag"
	"fmt"
	"math"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/testprogs/internal/progutil"
)

var (
	class       = flag.String("class", "S", "problem class: S, W, A, B or C")
	stepsArg    = flag.Int("steps", 0, "time steps (0: from -class)")
	energyEvery = flag.Int("energy-every", 10, "steps between energy reductions")
)

type problem struct{ cells, ppc, steps int }

var problems = []problem{{256, 32, 100}, {1024, 128, 300}, {4096, 128, 400}, {32768, 256, 1000}, {1 << 18, 256, 2000}}

const (
	referenceClasses = 1
	energyDrift      = 0.1
)

// result is what a simulation reports.
type result struct {
	particles   int64
	digest      uint64
	e0, eEnd    float64
	maxMigrated int64
}

func main() {
	commlib.Main(func(c *commlib.Comm) {
		ci, err := progutil.ClassIndex(*class)
		if err != nil {
			c.Abort(err)
		}
		pr := problems[ci]
		if *stepsArg > 0 {
			pr.steps = *stepsArg
		}
		if c.Size() > pr.cells {
			c.Abort(fmt.Errorf("class %s has %d cells, fewer than np=%d: every rank needs a cell", *class, pr.cells, c.Size()))
		}
		s := setup{cells: pr.cells, ppc: pr.ppc, dt: 0.1, beam: 1, thermal: 0.3, mode: 3, seed: 0x71c}
		progutil.NeedMemory(c, *class, int64(pr.cells/c.Size()+1)*int64(pr.ppc)*48)

		start := commlib.Wtime()
		res := simulate(c, s, pr.steps)
		elapsed := progutil.Elapsed(start)

		want := int64(pr.cells) * int64(pr.ppc)
		progutil.Verify(c, res.particles == want, "%d particles at the end, %d at the start", res.particles, want)

		if ci < referenceClasses {
			color := commlib.Undefined
			if c.Rank() == 0 {
				color = 0
			}
			if self := c.Split(color, 0); self != nil {
				ref := simulate(self, s, pr.steps)
				progutil.Verify(c, ref.digest == res.digest, "digest %016x, one-rank run %016x", res.digest, ref.digest)
				progutil.Printf(c, "particles match a one-rank run bit for bit\n")
			}
		}
		progutil.Printf(c, "pic class %s: %d cells, %d particles, np=%d, %d steps, at most %d particles sent by a rank in a step, time %.3f s\n",
			*class, pr.cells, want, c.Size(), pr.steps, res.maxMigrated, elapsed)
		progutil.Printf(c, "energy: start %s, end %s\n", progutil.RoundSig(res.e0, 8), progutil.RoundSig(res.eEnd, 8))
		progutil.Checksum(c, fmt.Sprintf("particles=%d digest=%016x", res.particles, res.digest))
	})
}

// simulate runs steps steps of the PIC cycle on c's ranks.
func simulate(c *commlib.Comm, s setup, steps int) result {
	first, count := progutil.Block(s.cells, c.Rank(), c.Size())
	p := newPlasma(c, s, first, count)
	var res result
	totalEnergy := func(step int) float64 {
		k, f := p.energy()
		sum := []float64{0}
		c.Allreduce([]float64{k + f}, sum, commlib.Sum)
		if res.e0 != 0 {
			drift := math.Abs(sum[0]-res.e0) / res.e0
			progutil.Verify(c, drift < energyDrift, "step %d: total energy went from %v to %v (%.1f%%)", step, res.e0, sum[0], 100*drift)
		}
		return sum[0]
	}
	background := int64(s.cells) * int64(s.ppc) * fixedOne
	for step := range steps {
		p.deposit()
		charge := p.solve()
		progutil.Verify(c, charge == background, "step %d: electron charge %d, background %d", step, charge, background)
		if step == 0 {
			res.e0 = totalEnergy(step)
		} else if step%*energyEvery == 0 {
			totalEnergy(step)
		}
		p.push()
		sent, err := p.migrate()
		if err != nil {
			c.Abort(err)
		}
		res.maxMigrated = max(res.maxMigrated, int64(sent))
	}
	p.deposit()
	p.solve()
	res.eEnd = totalEnergy(steps)
	sums := []uint64{0, 0}
	c.Allreduce([]uint64{uint64(len(p.parts)), p.digest()}, sums, commlib.Sum)
	res.particles, res.digest = int64(sums[0]), sums[1]
	migrated := []int64{0}
	c.Allreduce([]int64{res.maxMigrated}, migrated, commlib.Max)
	res.maxMigrated = migrated[0]
	return res
}
