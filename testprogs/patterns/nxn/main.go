// Command nxn exhibits Wait at N×N: load imbalance in front of n-to-n
// collectives (Allreduce and Alltoall), where nobody can leave before the last
// rank has entered.
//
// In each repetition the last rank computes for 30 ms (progutil.Work) before
// an Allreduce of 64 integers, then rank 0 computes for 20 ms before an
// Alltoall of 16 integers per pair of ranks; the other ranks enter at once.
//
// Expected findings (np=4, class S):
//   - WaitAtNxN at the Allreduce on ranks 0, 1 and 2, lost 30 ms each.
//   - WaitAtNxN at the Alltoall on ranks 1, 2 and 3, lost 20 ms each.
//
// Both are Scalasca's min(latest Enter, Exit) - Enter. Every repetition loses
// the same again.
//
// -near shrinks the late ranks' work to 30 µs and 20 µs: the same structure,
// but the waits stay below the noise threshold ε = 1 ms of the analysis.
//
// Classes set the repetitions: S 1, W 4, A 16, B 64, C 256. Every rank
// verifies both results; the checksum hashes the results with the np-dependent
// parts removed, so it does not depend on np.
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
	near  = flag.Bool("near", false, "near miss: the late ranks are late by 30 and 20 µs, below threshold")
)

const (
	n     = 64 // Allreduce length
	block = 16 // Alltoall elements per pair of ranks
)

func main() {
	commlib.Main(func(c *commlib.Comm) {
		ci, err := progutil.ClassIndex(*class)
		if err != nil {
			c.Abort(err)
		}
		reps := 1 << (2 * ci)
		lateReduce, lateExchange := 30*time.Millisecond, 20*time.Millisecond
		if *near {
			lateReduce, lateExchange = 30*time.Microsecond, 20*time.Microsecond
		}
		me, np := c.Rank(), c.Size()
		var workReduce, workExchange time.Duration
		if me == np-1 {
			workReduce = lateReduce
		}
		if me == 0 {
			workExchange = lateExchange
		}

		h := fnv.New64a()
		var b []byte
		send, sum := make([]int64, n), make([]int64, n)
		out, in := make([]int64, np*block), make([]int64, np*block)
		for k := range reps {
			// Allreduce: rank r contributes (r+1)(i+1) + k, the sum is
			// (i+1)·np(np+1)/2 + k·np.
			for i := range send {
				send[i] = int64((me+1)*(i+1) + k)
			}
			progutil.Work(workReduce)
			c.Allreduce(send, sum, commlib.Sum) // want: WaitAtNxN np=4 ranks=0,1,2 lost=30ms
			for i, v := range sum {
				want := int64((i+1)*np*(np+1)/2 + k*np)
				progutil.Verify(c, v == want, "rank %d: Allreduce %d element %d is %d, want %d", me, k, i, v, want)
				b = binary.LittleEndian.AppendUint64(b[:0], uint64(v-int64(k*np))/uint64(np*(np+1)/2))
				h.Write(b)
			}

			// Alltoall: element i of the block from rank s to rank d is
			// code(k, s, d, i).
			for d := range np {
				for i := range block {
					out[d*block+i] = code(k, me, d, i)
				}
			}
			progutil.Work(workExchange)
			c.Alltoall(out, in) // want: WaitAtNxN np=4 ranks=1,2,3 lost=20ms
			for s := range np {
				for i := range block {
					v := in[s*block+i]
					progutil.Verify(c, v == code(k, s, me, i),
						"rank %d: Alltoall %d element %d from rank %d is %d, want %d", me, k, i, s, v, code(k, s, me, i))
				}
			}
			b = binary.LittleEndian.AppendUint64(b[:0], uint64(in[block-1]-code(k, 0, me, 0)))
			h.Write(b)
		}
		progutil.Checksum(c, fmt.Sprintf("reps=%d fnv=%016x", reps, h.Sum64()))
	})
}

// code is the value an Alltoall element carries: repetition k, source rank s,
// destination rank d, index i.
func code(k, s, d, i int) int64 {
	return int64(k)<<40 | int64(s)<<24 | int64(d)<<8 | int64(i)
}
