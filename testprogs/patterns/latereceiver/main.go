// Command latereceiver exhibits one Late Receiver: a sender blocked in a
// send that cannot complete before the receiver posts the matching receive.
//
// Ranks pair up as (0,1), (2,3), ...; with an odd np the last rank idles. In
// each repetition the even rank sends at once and the odd rank computes for
// 40 ms (progutil.Work) before its Recv. -mode picks the blocking send:
//
//	ssend       Ssend of a 4 KiB message: synchronous, it waits for the receive
//	rendezvous  Send of a 128 KiB message: above the 64 KiB eager limit, so
//	            the standard send waits for the receive (rendezvous)
//
// Expected finding (np=2, class S): LateReceiver at the Ssend (or Send) on
// rank 0, lost 40 ms: Scalasca's Enter(Recv) - Enter(Send), the receiver's
// compute time. Every repetition loses the same again. The receiver does not
// wait (the send was entered first), so there is no Late Sender.
//
// -near: with -mode rendezvous the message shrinks to 32 KiB, below the eager
// limit, so Send completes at once and runs ahead of the receiver; nobody
// waits. With -mode ssend (Ssend always waits) the receiver's delay shrinks to
// 25 µs, below the noise threshold ε = 1 ms of the analysis.
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
	mode  = flag.String("mode", "ssend", "blocking send: ssend (Ssend, 4 KiB) or rendezvous (Send, 128 KiB)")
	near  = flag.Bool("near", false, "near miss: eager-size message (rendezvous) or a 25 µs delay (ssend)")
)

const tag = 3

func main() {
	commlib.Main(func(c *commlib.Comm) {
		ci, err := progutil.ClassIndex(*class)
		if err != nil {
			c.Abort(err)
		}
		reps := 1 << (2 * ci)
		delay := 40 * time.Millisecond
		var n int // float64 elements per message
		switch *mode {
		case "ssend":
			n = 512 // 4 KiB
			if *near {
				delay = 25 * time.Microsecond
			}
		case "rendezvous":
			n = 16384 // 128 KiB > 64 KiB eager limit
			if *near {
				n = 4096 // 32 KiB: eager
			}
		default:
			c.Abort(fmt.Errorf("-mode %q: want ssend or rendezvous", *mode))
		}

		me := c.Rank()
		peer := me ^ 1
		switch {
		case peer >= c.Size():
			// the unpaired last rank idles
		case me%2 == 0:
			for k := range reps {
				msg := payload(k, n)
				if *mode == "ssend" {
					c.Ssend(msg, peer, tag) // want: LateReceiver np=2 ranks=0 lost=40ms variant=ssend
				} else {
					c.Send(msg, peer, tag) // want: LateReceiver np=2 ranks=0 lost=40ms variant=rendezvous
				}
			}
		default:
			buf := make([]float64, n)
			for k := range reps {
				progutil.Work(delay)
				st := c.Recv(buf, peer, tag)
				progutil.Verify(c, st.Count == n && slices.Equal(buf, payload(k, n)),
					"rank %d: message %d from rank %d differs", me, k, peer)
			}
		}
		progutil.Checksum(c, fmt.Sprintf("reps=%d n=%d fnv=%016x", reps, n, payloadHash(reps, n)))
	})
}

// payload returns message k of n elements: element i is k*n + i + 1.
func payload(k, n int) []float64 {
	m := make([]float64, n)
	for i := range m {
		m[i] = float64(k*n + i + 1)
	}
	return m
}

// payloadHash hashes messages 0..reps-1 (FNV-1a over the element bits).
func payloadHash(reps, n int) uint64 {
	h := fnv.New64a()
	var b []byte
	for k := range reps {
		for _, v := range payload(k, n) {
			b = binary.LittleEndian.AppendUint64(b[:0], math.Float64bits(v))
			h.Write(b)
		}
	}
	return h.Sum64()
}
