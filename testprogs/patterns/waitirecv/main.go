// Command waitirecv exhibits Late Sender at the Wait of a nonblocking
// receive ("wait at Irecv"), once with Wait on one Irecv and once with
// Waitall on three, where only the latest sender counts.
//
// Ranks pair up as (0,1), (2,3), ...; with an odd np the last rank idles. In
// each repetition the odd rank (receiver) posts an Irecv, computes for 10 ms
// (progutil.Work) and waits for it; then it posts three Irecvs (tags 1-3),
// computes for 10 ms and waits for all three with Waitall. The even rank
// (sender) computes for 40 ms and sends the first message, then computes
// 15 ms before each of the three others. All messages are 1 KiB, eager.
//
// Expected findings (np=2, class S), both on rank 1:
//   - LateSenderAtWait at the Wait, lost 30 ms: the Irecv's message is sent
//     at 40 ms, the Wait is entered at 10 ms.
//   - LateSenderAtWait at the Waitall, lost 35 ms: the Waitall is entered
//     10 ms after the Irecvs, the messages are sent 15, 30 and 45 ms after
//     them, so they would wait 5, 20 and 35 ms; a multi-wait counts only the
//     maximum, 35 ms (the sum, 60 ms, is wrong).
//
// Every repetition loses the same again.
//
// -near lets the receiver overlap 60 ms of computation with each group of
// receives, more than the sender's delays (40 ms, and 45 ms for the last of
// the three): every Wait comes past its optimal distance, the messages are
// there, and nobody waits. The sender's sends are eager, so it runs ahead.
//
// Classes set the repetitions: S 1, W 4, A 16, B 64, C 256. The checksum
// hashes the payload definition that the receiver verifies, so it does not
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
	near  = flag.Bool("near", false, "near miss: the receiver overlaps 60 ms with its receives, nobody waits")
)

const (
	n      = 128 // float64 elements per message: 1 KiB, eager
	nMulti = 3   // messages completed by the Waitall, tags 1..nMulti
)

func main() {
	commlib.Main(func(c *commlib.Comm) {
		ci, err := progutil.ClassIndex(*class)
		if err != nil {
			c.Abort(err)
		}
		reps := 1 << (2 * ci)
		overlap := 10 * time.Millisecond // receiver's computation before each wait
		if *near {
			overlap = 60 * time.Millisecond
		}

		me := c.Rank()
		peer := me ^ 1
		switch {
		case peer >= c.Size():
			// the unpaired last rank idles
		case me%2 == 0:
			for k := range reps {
				progutil.Work(40 * time.Millisecond)
				c.Send(payload(k, 0), peer, 0)
				for t := 1; t <= nMulti; t++ {
					progutil.Work(15 * time.Millisecond)
					c.Send(payload(k, t), peer, t)
				}
			}
		default:
			bufs := make([][]float64, nMulti+1)
			for t := range bufs {
				bufs[t] = make([]float64, n)
			}
			reqs := make([]*commlib.Request, nMulti)
			for k := range reps {
				req := c.Irecv(bufs[0], peer, 0)
				progutil.Work(overlap)
				c.Wait(req) // want: LateSenderAtWait np=2 ranks=1 lost=30ms

				for t := 1; t <= nMulti; t++ {
					reqs[t-1] = c.Irecv(bufs[t], peer, t)
				}
				progutil.Work(overlap)
				c.Waitall(reqs) // want: LateSenderAtWait np=2 ranks=1 lost=35ms

				for t, buf := range bufs {
					progutil.Verify(c, slices.Equal(buf, payload(k, t)),
						"rank %d: message %d tag %d from rank %d differs", me, k, t, peer)
				}
			}
		}
		progutil.Checksum(c, fmt.Sprintf("reps=%d fnv=%016x", reps, payloadHash(reps)))
	})
}

// payload returns the message with tag t of repetition k.
func payload(k, t int) []float64 {
	m := make([]float64, n)
	for i := range m {
		m[i] = float64(((nMulti+1)*k+t)*n + i)
	}
	return m
}

// payloadHash hashes the messages of repetitions 0..reps-1 in send order
// (FNV-1a over the element bits).
func payloadHash(reps int) uint64 {
	h := fnv.New64a()
	var b []byte
	for k := range reps {
		for t := 0; t <= nMulti; t++ {
			for _, v := range payload(k, t) {
				b = binary.LittleEndian.AppendUint64(b[:0], math.Float64bits(v))
				h.Write(b)
			}
		}
	}
	return h.Sum64()
}
