// Command wrongorder exhibits one Late Sender / Wrong Order: a receiver
// waits for a message that is sent late while a message sent earlier by the
// same sender is already waiting to be received.
//
// Ranks pair up as (0,1), (2,3), ...; with an odd np the last rank idles. In
// each repetition the even rank sends message A (tag 1), computes for 40 ms
// (progutil.Work) and sends message B (tag 2); both are 2 KiB, eager. The odd
// rank receives B first and then A.
//
// Expected finding (np=2, class S): WrongOrder at the Recv of B on rank 1,
// lost 40 ms. That Recv is a Late Sender of 40 ms (B is sent 40 ms after the
// receiver asks for it), and the next message received, A, was sent before B,
// so Scalasca reclassifies the instance as Late Sender / Wrong Order (same
// source); the exclusive Late Sender time is 0. The Recv of A does not wait.
// Every repetition loses the same again.
//
// -near moves the 40 ms of computation from the sender (between its sends) to
// the receiver (before its receives): the receiver still receives B before A,
// but both messages are waiting when it asks, so nobody waits and there is no
// Late Sender to reclassify.
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
	n     = 256 // float64 elements: 2 KiB, eager (a rendezvous size would deadlock)
	tagA  = 1   // sent first
	tagB  = 2   // sent second
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
				c.Send(payload(k, tagA), peer, tagA)
				progutil.Work(senderWork)
				c.Send(payload(k, tagB), peer, tagB)
			}
		default:
			a := make([]float64, n)
			b := make([]float64, n)
			for k := range reps {
				progutil.Work(receiverWork)
				c.Recv(b, peer, tagB) // want: WrongOrder np=2 ranks=1 lost=40ms
				c.Recv(a, peer, tagA)
				progutil.Verify(c, slices.Equal(a, payload(k, tagA)) && slices.Equal(b, payload(k, tagB)),
					"rank %d: messages %d from rank %d differ", me, k, peer)
			}
		}
		progutil.Checksum(c, fmt.Sprintf("reps=%d fnv=%016x", reps, payloadHash(reps)))
	})
}

// payload returns the message with tag t of repetition k.
func payload(k, t int) []float64 {
	m := make([]float64, n)
	for i := range m {
		m[i] = float64((2*k+t)*n + i)
	}
	return m
}

// payloadHash hashes the messages of repetitions 0..reps-1 in send order
// (FNV-1a over the element bits).
func payloadHash(reps int) uint64 {
	h := fnv.New64a()
	var b []byte
	for k := range reps {
		for _, t := range []int{tagA, tagB} {
			for _, v := range payload(k, t) {
				b = binary.LittleEndian.AppendUint64(b[:0], math.Float64bits(v))
				h.Write(b)
			}
		}
	}
	return h.Sum64()
}
