// Command latebcast exhibits Late Broadcast: the root of a Bcast arrives
// late, and the other ranks wait in the Bcast for it.
//
// In each repetition rank 0 (the root) computes for 30 ms (progutil.Work),
// fills 2 KiB of data and broadcasts it; the other ranks enter Bcast at once.
//
// Expected finding (np=4, class S): LateBroadcast at the Bcast on ranks 1, 2
// and 3, lost 30 ms each: Scalasca's min(Enter(root), Exit) - Enter on every
// non-root. The root does not wait. Every repetition loses the same again.
//
// -near moves the 30 ms of computation from the root to the last rank: the
// root enters first, so no non-root waits for it (Late Broadcast is 0 by
// definition). Whether the root or the middle ranks then wait inside the
// Bcast for the last rank depends on the Bcast algorithm; that is not a Late
// Broadcast.
//
// Classes set the repetitions: S 1, W 4, A 16, B 64, C 256. The checksum
// hashes the payload definition that the non-roots verify, so it does not
// depend on np.
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"time"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/testprogs/internal/progutil"
)

var (
	class = flag.String("class", "S", "problem class: S, W, A, B or C (repetitions 1, 4, 16, 64, 256)")
	near  = flag.Bool("near", false, "near miss: the last rank computes instead of the root, nobody waits for the root")
)

const (
	root  = 0
	delay = 30 * time.Millisecond
	n     = 256 // float64 elements: 2 KiB
)

func main() {
	commlib.Main(func(c *commlib.Comm) {
		ci, err := progutil.ClassIndex(*class)
		if err != nil {
			c.Abort(err)
		}
		reps := 1 << (2 * ci)
		late := root
		if *near {
			late = c.Size() - 1
		}
		var work time.Duration
		if c.Rank() == late {
			work = delay
		}

		buf := make([]float64, n)
		for k := range reps {
			progutil.Work(work)
			if c.Rank() == root {
				copy(buf, payload(k))
			}
			c.Bcast(buf, root) // want: LateBroadcast np=4 ranks=1,2,3 lost=30ms
			progutil.Verify(c, slices.Equal(buf, payload(k)), "rank %d: broadcast %d differs", c.Rank(), k)
		}
		progutil.Checksum(c, fmt.Sprintf("reps=%d fnv=%016x", reps, payloadHash(reps)))
	})
}

// payload returns the data of broadcast k: element i is k*n + i + 1.
func payload(k int) []float64 {
	m := make([]float64, n)
	for i := range m {
		m[i] = float64(k*n + i + 1)
	}
	return m
}

// payloadHash hashes broadcasts 0..reps-1 (FNV-1a over the element bits).
func payloadHash(reps int) uint64 {
	h := fnv.New64a()
	var b []byte
	for k := range reps {
		for _, v := range payload(k) {
			b = binary.LittleEndian.AppendUint64(b[:0], math.Float64bits(v))
			h.Write(b)
		}
	}
	return h.Sum64()
}
