// Command nbody integrates a self-gravitating system of n bodies with the
// direct O(n²) sum of softened Newtonian forces and the kick-drift-kick
// leapfrog, and checks that the total energy is conserved.
//
// Communication pattern: the bodies are distributed over the ranks in
// blocks of nb = ⌈n/np⌉ (the last rank may hold fewer, padded). Every step
// each rank drifts its bodies and gathers all positions with Allgather;
// then it computes the forces on its own bodies from every body. The
// energies at the start and at the end are summed with Allreduce.
//
// The initial conditions depend only on a body's index (a cold uniform
// sphere with a small random velocity); the force on a body sums the other
// bodies in index order, so the trajectories are the same bit for bit for
// every np and the checksum is the FNV-64a hash of the final positions.
// The run fails when the relative energy error exceeds 1e-4.
//
// Classes (n, steps): S 256, 10; W 768, 20; A 8192, 50; B 32768, 100;
// C 65536, 100.
package main

import (
	"flag"
	"fmt"
	"math"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/testprogs/internal/progutil"
)

var (
	class     = flag.String("class", "S", "problem class: S, W, A, B or C")
	stepsFlag = flag.Int("steps", 0, "time steps (0: from -class)")
	dt        = flag.Float64("dt", 1e-3, "time step")
	soft      = flag.Float64("soft", 0.05, "softening length")
)

var (
	classN     = []int{256, 768, 8192, 32768, 65536}
	classSteps = []int{10, 20, 50, 100, 100}
)

// energyTol is the largest accepted relative change of the total energy.
const energyTol = 1e-4

func main() {
	commlib.Main(func(c *commlib.Comm) {
		ci, err := progutil.ClassIndex(*class)
		if err != nil {
			c.Abort(err)
		}
		n := classN[ci]
		steps := classSteps[ci]
		if *stepsFlag > 0 {
			steps = *stepsFlag
		}
		np := c.Size()
		nb := (n + np - 1) / np
		if (np-1)*nb >= n {
			c.Abort(fmt.Errorf("%d bodies in blocks of %d leave rank %d without bodies at np=%d; use another np", n, nb, np-1, np))
		}
		progutil.NeedMemory(c, *class, int64(8*3)*int64(nb*np)+int64(8*10*nb))

		s := newSystem(c, n, nb, *soft)
		s.exchange()
		s.forces()
		e0 := s.energy()
		start := commlib.Wtime()
		for range steps {
			s.kick(*dt / 2)
			s.drift(*dt)
			s.exchange()
			s.forces()
			s.kick(*dt / 2)
		}
		elapsed := progutil.Elapsed(start)
		e1 := s.energy()

		drift := math.Abs((e1 - e0) / e0)
		progutil.Printf(c, "nbody class %s: n=%d, np=%d, %d steps, time %.3f s\n", *class, n, np, steps, elapsed)
		progutil.Printf(c, "energy %s -> %s, relative change %.2e\n", progutil.RoundSig(e0, 8), progutil.RoundSig(e1, 8), drift)
		progutil.Verify(c, drift < energyTol, "energy changed by %.3e (relative), more than %g", drift, energyTol)
		progutil.Checksum(c, fmt.Sprintf("steps=%d fnv=%016x", steps, progutil.HashFloats(s.all[:3*n])))
	})
}
