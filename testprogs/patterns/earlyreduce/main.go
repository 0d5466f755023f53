// Command earlyreduce exhibits Early Reduce: the root of an n-to-1
// collective (Reduce, then Gather) enters early and waits for the latest
// sender.
//
// In each repetition the last rank computes for 30 ms (progutil.Work) before
// a Reduce (sum of 64 integers) to rank 0, then for 20 ms before a Gather of
// 16 integers per rank to rank 0; the other ranks, the root among them, enter
// both at once.
//
// Expected findings (np=4, class S), both on the root, rank 0:
//   - EarlyReduce at the Reduce, lost 30 ms.
//   - EarlyReduce at the Gather, lost 20 ms.
//
// Both are Scalasca's min(latest Enter, Exit(root)) - Enter(root), charged to
// the root only (non-roots that wait inside a tree algorithm are not Early
// Reduce). Every repetition loses the same again.
//
// -near moves both computations from the last rank to the root: the root
// enters last, every contribution is ready, and the root does not wait.
//
// Classes set the repetitions: S 1, W 4, A 16, B 64, C 256. The root verifies
// both results; the checksum hashes the results with the np-dependent parts
// removed, so it does not depend on np.
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
	near  = flag.Bool("near", false, "near miss: the root computes instead of the last rank, the root does not wait")
)

const (
	root  = 0
	n     = 64 // Reduce length
	block = 16 // Gather elements per rank
)

func main() {
	commlib.Main(func(c *commlib.Comm) {
		ci, err := progutil.ClassIndex(*class)
		if err != nil {
			c.Abort(err)
		}
		reps := 1 << (2 * ci)
		me, np := c.Rank(), c.Size()
		late := np - 1
		if *near {
			late = root
		}
		var workReduce, workGather time.Duration
		if me == late {
			workReduce, workGather = 30*time.Millisecond, 20*time.Millisecond
		}

		h := fnv.New64a()
		var b []byte
		send, sum := make([]int64, n), make([]int64, n)
		mine, all := make([]int64, block), make([]int64, np*block)
		for k := range reps {
			// Reduce: rank r contributes (r+1)(i+1) + k, the sum is
			// (i+1)·np(np+1)/2 + k·np.
			for i := range send {
				send[i] = int64((me+1)*(i+1) + k)
			}
			progutil.Work(workReduce)
			c.Reduce(send, sum, commlib.Sum, root) // want: EarlyReduce np=4 ranks=0 lost=30ms

			// Gather: rank r contributes k·1000000 + r·1000 + i.
			for i := range mine {
				mine[i] = int64(k*1000000 + me*1000 + i)
			}
			progutil.Work(workGather)
			c.Gather(mine, all, root) // want: EarlyReduce np=4 ranks=0 lost=20ms

			if me != root {
				continue
			}
			for i, v := range sum {
				want := int64((i+1)*np*(np+1)/2 + k*np)
				progutil.Verify(c, v == want, "Reduce %d element %d is %d, want %d", k, i, v, want)
				b = binary.LittleEndian.AppendUint64(b[:0], uint64(v-int64(k*np))/uint64(np*(np+1)/2))
				h.Write(b)
			}
			for j, v := range all {
				r, i := j/block, j%block
				want := int64(k*1000000 + r*1000 + i)
				progutil.Verify(c, v == want, "Gather %d element %d of rank %d is %d, want %d", k, i, r, v, want)
			}
			b = binary.LittleEndian.AppendUint64(b[:0], uint64(all[block-1]))
			h.Write(b)
		}
		progutil.Checksum(c, fmt.Sprintf("reps=%d fnv=%016x", reps, h.Sum64()))
	})
}
