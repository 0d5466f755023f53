// Command sendrecv exhibits a Send closely followed by a Recv with the same
// peer (ParJava's "close send/receive"), which could be one Sendrecv.
//
// Ranks pair up as (0,1), (2,3), ...; with an odd np the last rank idles. In
// each repetition both ranks of a pair exchange 8 KiB (eager, so the two
// Sends do not deadlock): each sends its block to the other and then
// receives the other's block.
//
// Expected finding (np=2, class S): SendRecvPair at the Recv on ranks 0 and
// 1 (the pair is the Send on the line before it and this Recv), one per
// repetition. The criterion is Enter(Recv) - Exit(Send) < Δ_SR; here the gap
// is a few microseconds. We assume Δ_SR = 1 ms (any value from 100 µs to
// 10 ms separates this program from its near miss). The pair is a diagnostic,
// not a wait: its lost time is what a Sendrecv would save, about 0 here, so
// the want line says lost=0s and a checker should match type, ranks and line.
//
// -near puts 20 ms of independent computation (progutil.Work) between the
// Send and the Recv: the gap is far above Δ_SR, so the two calls are not a
// pair. The peer's message was sent before its computation, so the Recv still
// does not wait.
//
// Classes set the repetitions: S 1, W 4, A 16, B 64, C 256. The checksum
// hashes the payload definition that the ranks verify, so it does not depend
// on np.
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
	near  = flag.Bool("near", false, "near miss: 20 ms of computation between the Send and the Recv")
)

const (
	n   = 1024 // float64 elements: 8 KiB, eager
	tag = 9
)

func main() {
	commlib.Main(func(c *commlib.Comm) {
		ci, err := progutil.ClassIndex(*class)
		if err != nil {
			c.Abort(err)
		}
		reps := 1 << (2 * ci)
		var gap time.Duration
		if *near {
			gap = 20 * time.Millisecond
		}

		me := c.Rank()
		peer := me ^ 1
		if peer < c.Size() {
			buf := make([]float64, n)
			for k := range reps {
				c.Send(payload(k, me%2), peer, tag)
				progutil.Work(gap)
				c.Recv(buf, peer, tag) // want: SendRecvPair np=2 ranks=0,1 lost=0s
				progutil.Verify(c, slices.Equal(buf, payload(k, peer%2)),
					"rank %d: block %d from rank %d differs", me, k, peer)
			}
		}
		progutil.Checksum(c, fmt.Sprintf("reps=%d fnv=%016x", reps, payloadHash(reps)))
	})
}

// payload returns the block that the rank with parity side sends in
// repetition k.
func payload(k, side int) []float64 {
	m := make([]float64, n)
	for i := range m {
		m[i] = float64((2*k+side)*n + i)
	}
	return m
}

// payloadHash hashes the blocks of repetitions 0..reps-1 (FNV-1a over the
// element bits).
func payloadHash(reps int) uint64 {
	h := fnv.New64a()
	var b []byte
	for k := range reps {
		for side := range 2 {
			for _, v := range payload(k, side) {
				b = binary.LittleEndian.AppendUint64(b[:0], math.Float64bits(v))
				h.Write(b)
			}
		}
	}
	return h.Sum64()
}
