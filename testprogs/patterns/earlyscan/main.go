// Command earlyscan exhibits Early Scan: in a Scan (inclusive prefix
// reduction) rank n needs the contributions of ranks 0..n, so higher ranks
// that enter early wait for a late lower rank.
//
// In each repetition rank 1 computes for 40 ms (progutil.Work) before a Scan
// (sum of 64 integers); the other ranks enter at once.
//
// Expected finding (np=4, class S): EarlyScan at the Scan on ranks 2 and 3,
// lost 40 ms each: Scalasca's min(latest Enter over ranks 0..n, Exit(n)) -
// Enter(n). Rank 0 enters as early as ranks 2 and 3 but needs only its own
// contribution, so it is not charged (an analysis that takes the latest entry
// over all ranks, as for N×N, wrongly charges it 40 ms); rank 1 is the late
// one. Every repetition loses the same again.
//
// -near moves the 40 ms of computation to the last rank: every rank then
// enters after all lower ranks, so Early Scan is 0 by definition for all of
// them. (Depending on the Scan algorithm, lower ranks may still wait inside
// the Scan for the last one; that is not Early Scan.)
//
// Classes set the repetitions: S 1, W 4, A 16, B 64, C 256. Every rank
// verifies its prefix sums; the checksum hashes rank 0's with the
// repetition-dependent part removed, so it does not depend on np.
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/testprogs/internal/progutil"
)

var (
	class = flag.String("class", "S", "problem class: S, W, A, B or C (repetitions 1, 4, 16, 64, 256)")
	near  = flag.Bool("near", false, "near miss: the last rank is the late one, nobody waits for a lower rank")
)

const n = 64 // Scan length

func main() {
	commlib.Main(func(c *commlib.Comm) {
		ci, err := progutil.ClassIndex(*class)
		if err != nil {
			c.Abort(err)
		}
		reps := 1 << (2 * ci)
		me := c.Rank()
		late := 1
		if *near {
			late = c.Size() - 1
		}
		var work time.Duration
		if me == late {
			work = 40 * time.Millisecond
		}

		h := fnv.New64a()
		var b []byte
		send, prefix := make([]int64, n), make([]int64, n)
		for k := range reps {
			// rank r contributes (r+1)(i+1) + k; the prefix sum on rank r is
			// (i+1)(r+1)(r+2)/2 + k(r+1).
			for i := range send {
				send[i] = int64((me+1)*(i+1) + k)
			}
			progutil.Work(work)
			c.Scan(send, prefix, commlib.Sum) // want: EarlyScan np=4 ranks=2,3 lost=40ms
			tri := (me + 1) * (me + 2) / 2
			for i, v := range prefix {
				want := int64((i+1)*tri + k*(me+1))
				progutil.Verify(c, v == want, "rank %d: Scan %d element %d is %d, want %d", me, k, i, v, want)
				if me == 0 {
					b = binary.LittleEndian.AppendUint64(b[:0], uint64(v-int64(k*(me+1)))/uint64(tri))
					h.Write(b)
				}
			}
		}
		progutil.Checksum(c, fmt.Sprintf("reps=%d fnv=%016x", reps, h.Sum64()))
	})
}
