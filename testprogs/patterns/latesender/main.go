// Command latesender exhibits one Late Sender: a receiver that enters Recv
// before its sender reaches the matching Send.
//
// Ranks pair up as (0,1), (2,3), ...; with an odd np the last rank idles. In
// each repetition the even rank of a pair computes for 40 ms (progutil.Work)
// and then sends a 4 KiB message (eager) to the odd rank, which calls Recv at
// once and so waits for the sender.
//
// Expected finding (np=2, class S): LateSender at the Recv on rank 1, lost
// 40 ms: Scalasca's min(Enter(Send), Exit(Recv)) - Enter(Recv), the whole
// compute time of the sender. Every repetition loses the same again.
//
// -near moves the 40 ms of computation from the sender (before its Send) to
// the receiver (before its Recv): the sender sends at once and runs ahead (the
// message is eager), every message is waiting when the receiver asks for it,
// and nobody waits.
//
// Classes set the repetitions: S 1, W 4, A 16, B 64, C 256. The checksum
// hashes the payload definition that the receivers verify, so it does not
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
	near  = flag.Bool("near", false, "near miss: the receiver computes instead of the sender, nobody waits")
)

const (
	delay = 40 * time.Millisecond
	n     = 512 // float64 elements: 4 KiB, below the 64 KiB eager limit
	tag   = 7
)

func main() {
	commlib.Main(func(c *commlib.Comm) {
		ci, err := progutil.ClassIndex(*class)
		if err != nil {
			c.Abort(err)
		}
		reps := 1 << (2 * ci)
		senderWork, receiverWork := delay, time.Duration(0)
		if *near {
			senderWork, receiverWork = 0, delay
		}

		me := c.Rank()
		peer := me ^ 1
		switch {
		case peer >= c.Size():
			// the unpaired last rank idles
		case me%2 == 0:
			for k := range reps {
				progutil.Work(senderWork)
				c.Send(payload(k), peer, tag)
			}
		default:
			buf := make([]float64, n)
			for k := range reps {
				progutil.Work(receiverWork)
				st := c.Recv(buf, peer, tag) // want: LateSender np=2 ranks=1 lost=40ms
				progutil.Verify(c, st.Count == n && slices.Equal(buf, payload(k)),
					"rank %d: message %d from rank %d differs", me, k, peer)
			}
		}
		progutil.Checksum(c, fmt.Sprintf("reps=%d fnv=%016x", reps, payloadHash(reps)))
	})
}

// payload returns message k: element i is k*n + i + 1.
func payload(k int) []float64 {
	m := make([]float64, n)
	for i := range m {
		m[i] = float64(k*n + i + 1)
	}
	return m
}

// payloadHash hashes messages 0..reps-1 (FNV-1a over the element bits).
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
