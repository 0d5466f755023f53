// Command waitisend exhibits one Late Receiver at the Wait of a nonblocking
// send ("wait at Isend"): the sender overlaps too little computation with a
// send that cannot complete before the late receiver posts its receive.
//
// Ranks pair up as (0,1), (2,3), ...; with an odd np the last rank idles. In
// each repetition the even rank starts the send, computes for 10 ms
// (progutil.Work) and waits for the send; the odd rank computes for 50 ms and
// then receives. -mode picks the nonblocking send:
//
//	isend   Isend of a 128 KiB message: above the 64 KiB eager limit
//	        (rendezvous), so it completes only once the receive is posted
//	issend  Issend of a 4 KiB message: synchronous
//
// Expected finding (np=2, class S): LateReceiverAtWait at the Wait on rank 0,
// lost 40 ms: Scalasca's Late Receiver Enter(Recv) - Enter(Wait) = 50 - 10 ms.
// The optimal distance (ParJava) for the Wait is about 50 ms after the send
// starts, 40 ms later than it is. Every repetition loses the same again.
//
// -near puts the Wait past the optimal distance: the sender overlaps 50 ms,
// and the receiver posts its receive after 25 ms and computes the other 25 ms
// after it (its period stays 50 ms, so repetitions stay in step with 25 ms of
// margin on either side). The send completes before the Wait, the receive
// finds the send already started, and nobody waits.
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
	mode  = flag.String("mode", "isend", "nonblocking send: isend (Isend, 128 KiB) or issend (Issend, 4 KiB)")
	near  = flag.Bool("near", false, "near miss: the Wait comes after the receive is posted, nobody waits")
)

const tag = 5

func main() {
	commlib.Main(func(c *commlib.Comm) {
		ci, err := progutil.ClassIndex(*class)
		if err != nil {
			c.Abort(err)
		}
		reps := 1 << (2 * ci)
		var n int // float64 elements per message
		switch *mode {
		case "isend":
			n = 16384 // 128 KiB: rendezvous
		case "issend":
			n = 512 // 4 KiB
		default:
			c.Abort(fmt.Errorf("-mode %q: want isend or issend", *mode))
		}
		// The sender overlaps `overlap` with its send; the receiver computes
		// `lag` before its receive and `rest` after it.
		overlap, lag, rest := 10*time.Millisecond, 50*time.Millisecond, time.Duration(0)
		if *near {
			overlap, lag, rest = 50*time.Millisecond, 25*time.Millisecond, 25*time.Millisecond
		}

		me := c.Rank()
		peer := me ^ 1
		switch {
		case peer >= c.Size():
			// the unpaired last rank idles
		case me%2 == 0:
			for k := range reps {
				msg := payload(k, n)
				if *mode == "issend" {
					req := c.Issend(msg, peer, tag)
					progutil.Work(overlap)
					c.Wait(req) // want: LateReceiverAtWait np=2 ranks=0 lost=40ms variant=issend
				} else {
					req := c.Isend(msg, peer, tag)
					progutil.Work(overlap)
					c.Wait(req) // want: LateReceiverAtWait np=2 ranks=0 lost=40ms variant=isend
				}
			}
		default:
			buf := make([]float64, n)
			for k := range reps {
				progutil.Work(lag)
				st := c.Recv(buf, peer, tag)
				progutil.Verify(c, st.Count == n && slices.Equal(buf, payload(k, n)),
					"rank %d: message %d from rank %d differs", me, k, peer)
				progutil.Work(rest)
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
