// Command barrier exhibits Wait at Barrier: load imbalance in front of a
// Barrier.
//
// In each repetition rank r computes for r·20 ms (progutil.Work) and then
// enters Barrier: the work grows with the rank, as in a triangular domain cut
// into equal row ranges.
//
// Expected finding (np=2, class S): WaitAtBarrier at the Barrier on rank 0,
// lost 20 ms: Scalasca's min(latest Enter, Exit) - Enter, the latest entry
// being rank 1's at 20 ms. Rank 1 does not wait. Every repetition loses the
// same again. The expectation is written for np=2 because at np=4 three ranks
// compute at once, and on a 2-core machine the scheduler then skews real
// runs by up to 10-20 ms; a prediction for np=4 gives ranks 0, 1 and 2
// 60, 40 and 20 ms.
//
// -near shrinks the work unit from 20 ms to 25 µs: the same imbalance, but
// the waits (25 µs at np=2, at most 75 µs at np=4) stay below the noise
// threshold ε = 1 ms of the analysis.
//
// Classes set the repetitions: S 1, W 4, A 16, B 64, C 256. After the last
// Barrier an Allreduce checks that every rank did all repetitions; the
// checksum is the repetition count, which does not depend on np.
package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/testprogs/internal/progutil"
)

var (
	class = flag.String("class", "S", "problem class: S, W, A, B or C (repetitions 1, 4, 16, 64, 256)")
	near  = flag.Bool("near", false, "near miss: work unit 25 µs instead of 20 ms, waits below threshold")
)

func main() {
	commlib.Main(func(c *commlib.Comm) {
		ci, err := progutil.ClassIndex(*class)
		if err != nil {
			c.Abort(err)
		}
		reps := 1 << (2 * ci)
		unit := 20 * time.Millisecond
		if *near {
			unit = 25 * time.Microsecond
		}
		work := time.Duration(c.Rank()) * unit

		done := 0
		for range reps {
			progutil.Work(work)
			c.Barrier() // want: WaitAtBarrier np=2 ranks=0 lost=20ms
			done++
		}

		total := []int{0}
		c.Allreduce([]int{done}, total, commlib.Sum)
		progutil.Verify(c, total[0] == reps*c.Size(), "%d barriers passed in all, want %d", total[0], reps*c.Size())
		progutil.Checksum(c, fmt.Sprintf("barriers=%d", reps))
	})
}
