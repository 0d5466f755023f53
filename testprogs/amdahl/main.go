// Command amdahl models Amdahl's law: every step does a serial part on rank 0
// alone and a parallel part split over all ranks, so the speedup is bounded
// by 1/(F + (1−F)/np) for the serial fraction F.
//
// Communication pattern: per step, rank 0 computes F×work units while the
// others wait for its result in a Bcast (the parallel part depends on it),
// then every rank computes its share of the (1−F)×work remaining units (the
// first ranks take one more when they do not divide evenly), then an
// Allreduce (Sum) combines the step's value, which seeds the next step's
// serial part.
//
// A unit is a fixed number of steps of the Park–Miller generator in floating
// point; its value is an integer, so the sums are exact in any order and the
// checksum (the sum of all step values) is the same for every np. Rank 0
// checks every step's value against the generator's closed form.
//
// Classes (work units per step, steps): S 100000, 10; W 400000, 20;
// A 1000000, 20; B 4000000, 50; C 16000000, 100. -work and -steps override.
package main

import (
	"flag"
	"fmt"
	"math"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/testprogs/internal/progutil"
)

var (
	class    = flag.String("class", "S", "problem class: S, W, A, B or C")
	serial   = flag.Float64("serial", 0.0083, "serial fraction F of each step's work, in [0, 1]")
	workArg  = flag.Int("work", 0, "work units per step (0: from -class)")
	stepsArg = flag.Int("steps", 0, "steps (0: from -class)")
)

var (
	classWork  = []int{100000, 400000, 1000000, 4000000, 16000000}
	classSteps = []int{10, 20, 20, 50, 100}
)

func main() {
	commlib.Main(func(c *commlib.Comm) {
		ci, err := progutil.ClassIndex(*class)
		if err != nil {
			c.Abort(err)
		}
		work, steps := classWork[ci], classSteps[ci]
		if *workArg > 0 {
			work = *workArg
		}
		if *stepsArg > 0 {
			steps = *stepsArg
		}
		if !(*serial >= 0 && *serial <= 1) {
			c.Abort(fmt.Errorf("-serial %g: want a fraction in [0, 1]", *serial))
		}
		// Sums stay exact while they are below 2^53.
		if float64(work)*float64(steps)*valueRange >= 1<<53 {
			c.Abort(fmt.Errorf("-work %d × -steps %d is too large for exact sums", work, steps))
		}
		rank, np := c.Rank(), c.Size()
		serialUnits := int(math.Round(*serial * float64(work)))
		first, count := block(work-serialUnits, rank, np)
		first += serialUnits

		values := make([]float64, steps) // each step's value, kept for rank 0's check
		serialValue := make([]float64, 1)
		local := make([]float64, 1)
		total := make([]float64, 1)
		previous := 0.0
		start := commlib.Wtime()
		for step := range steps {
			serialValue[0] = 0
			if rank == 0 {
				for unit := range serialUnits { // mark:serial
					serialValue[0] += unitValue(seed(unit, step, previous))
				}
			}
			c.Bcast(serialValue, 0)
			local[0] = 0
			for unit := first; unit < first+count; unit++ { // mark:parallel
				local[0] += unitValue(seed(unit, step, serialValue[0]))
			}
			c.Allreduce(local, total, commlib.Sum)
			values[step] = serialValue[0] + total[0]
			previous = values[step]
		}
		elapsed := progutil.Elapsed(start)

		if rank != 0 {
			return
		}
		f := float64(serialUnits) / float64(work)
		progutil.Printf(c, "amdahl class %s: %d units × %d steps, serial fraction %.4f, np=%d, time %.3f s\n",
			*class, work, steps, f, np, elapsed)
		progutil.Printf(c, "Amdahl speedup at np=%d: %.3f (limit %.1f)\n", np, 1/(f+(1-f)/float64(np)), 1/f)

		previous = 0
		sum := 0.0
		for step := range steps {
			serialSum, parallelSum := 0.0, 0.0
			for unit := range serialUnits {
				serialSum += unitValueClosed(seed(unit, step, previous))
			}
			for unit := serialUnits; unit < work; unit++ {
				parallelSum += unitValueClosed(seed(unit, step, serialSum))
			}
			progutil.Verify(c, values[step] == serialSum+parallelSum,
				"step %d: value %.0f, closed form %.0f", step, values[step], serialSum+parallelSum)
			previous = values[step]
			sum += values[step]
		}
		progutil.Checksum(c, fmt.Sprintf("work=%d steps=%d serial=%d sum=%.0f", work, steps, serialUnits, sum))
	})
}

// block returns the first unit and the number of the n units of rank out of
// np: the first n%np ranks get one unit more.
func block(n, rank, np int) (first, count int) {
	size, extra := n/np, n%np
	first = rank*size + min(rank, extra)
	count = size
	if rank < extra {
		count++
	}
	return first, count
}
