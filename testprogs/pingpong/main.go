// Command pingpong measures point-to-point latency and bandwidth between
// ranks 0 and 1, in the manner of the Intel MPI Benchmarks' PingPong.
//
// Communication pattern: rank 0 sends a []byte message to rank 1 with Send,
// rank 1 receives it with Recv and sends it back unchanged; rank 0 receives
// the echo and checks its contents. Sizes run 1 B, 2 B, 4 B, ... up to -max,
// with more repetitions for small sizes so that each size takes a few
// milliseconds. Messages above the eager limit go by rendezvous. Ranks other
// than 0 and 1 only take part in the final Barrier.
//
// Rank 0 prints, per size, the one-way latency (half the median round trip,
// in µs) and the bandwidth (MB/s), then the lines "latency: X us" (1 B) and
// "bandwidth: Y MB/s" (largest size).
//
// Classes set the largest size: S 64 KiB, W 1 MiB, A and larger 4 MiB;
// -max overrides. The checksum is a hash of the sizes and payloads exchanged,
// so it does not depend on timings or on np (np=1 skips the measurement).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"hash/fnv"
	"slices"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/testprogs/internal/progutil"
)

var (
	class   = flag.String("class", "S", "problem class: S, W, A, B or C (sets the largest size)")
	maxSize = flag.Int("max", 0, "largest message size in bytes (0: from -class)")
	repsArg = flag.Int("reps", 0, "repetitions per size (0: more for small sizes, fewer for large)")
)

// classMax is the largest message size of each class.
var classMax = []int{64 << 10, 1 << 20, 4 << 20, 4 << 20, 4 << 20}

const (
	tagPing = 1
	tagPong = 2
)

func main() {
	commlib.Main(func(c *commlib.Comm) {
		ci, err := progutil.ClassIndex(*class)
		if err != nil {
			c.Abort(err)
		}
		largest := classMax[ci]
		if *maxSize != 0 {
			largest = *maxSize
		}
		if largest < 1 {
			c.Abort(fmt.Errorf("-max %d: want a positive size in bytes", largest))
		}
		if *repsArg < 0 {
			c.Abort(fmt.Errorf("-reps %d: want a positive count, or 0 for the default", *repsArg))
		}
		sizes := messageSizes(largest)

		switch {
		case c.Size() < 2:
			progutil.Printf(c, "pingpong needs 2 ranks (run with -np 2 or more); skipping the measurement\n")
		case c.Rank() == 0:
			ping(c, sizes)
		case c.Rank() == 1:
			pong(c, sizes)
		}
		c.Barrier()
		progutil.Checksum(c, fmt.Sprintf("sizes=%d max=%d fnv=%016x", len(sizes), largest, payloadHash(sizes)))
	})
}

// messageSizes returns 1, 2, 4, ... up to largest, and largest itself when it
// is not a power of two.
func messageSizes(largest int) []int {
	var sizes []int
	for s := 1; s <= largest; s *= 2 {
		sizes = append(sizes, s)
	}
	if sizes[len(sizes)-1] != largest {
		sizes = append(sizes, largest)
	}
	return sizes
}

// repetitions is the number of timed round trips for a message of size bytes:
// 1000 for small messages, down to 10 for the largest.
func repetitions(size int) int {
	if *repsArg > 0 {
		return *repsArg
	}
	return min(1000, max(10, (16<<20)/size))
}

// fill writes the payload of repetition rep of a message of size bytes into
// buf. Every repetition differs, so a stale receive buffer fails the check.
func fill(buf []byte, size, rep int) {
	for i := range buf {
		buf[i] = byte(i*131 + size*7 + rep*17)
	}
}

// ping is rank 0: it times the round trips, checks the echoes and prints the table.
func ping(c *commlib.Comm, sizes []int) {
	largest := sizes[len(sizes)-1]
	sendBuf := make([]byte, largest)
	recvBuf := make([]byte, largest)
	fmt.Printf("%10s %8s %12s %12s\n", "bytes", "reps", "latency(us)", "MB/s")
	var latency, bandwidth float64
	for _, size := range sizes {
		reps := repetitions(size)
		out, in := sendBuf[:size], recvBuf[:size]
		times := make([]float64, reps)
		// Repetition -1 warms up and is not timed.
		for rep := -1; rep < reps; rep++ {
			fill(out, size, rep)
			t0 := commlib.Wtime()
			c.Send(out, 1, tagPing)
			c.Recv(in, 1, tagPong)
			t1 := commlib.Wtime()
			progutil.Verify(c, bytes.Equal(in, out), "size %d repetition %d: echo differs from the message sent", size, rep)
			if rep >= 0 {
				times[rep] = t1 - t0
			}
		}
		oneWay := median(times) / 2 * 1e6 // µs
		mbps := float64(size) / oneWay    // bytes per µs = MB/s
		fmt.Printf("%10d %8d %12.3f %12.1f\n", size, reps, oneWay, mbps)
		if size == 1 {
			latency = oneWay
		}
		bandwidth = mbps
	}
	fmt.Printf("latency: %.3f us\n", latency)
	fmt.Printf("bandwidth: %.1f MB/s\n", bandwidth)
}

// pong is rank 1: it echoes every message back to rank 0.
func pong(c *commlib.Comm, sizes []int) {
	buf := make([]byte, sizes[len(sizes)-1])
	for _, size := range sizes {
		in := buf[:size]
		for rep := -1; rep < repetitions(size); rep++ {
			c.Recv(in, 0, tagPing)
			c.Send(in, 0, tagPong)
		}
	}
}

// payloadHash is FNV-64a over every size and the payload of its first timed
// repetition: what rank 0 sent and verified, independent of np and timing.
func payloadHash(sizes []int) uint64 {
	h := fnv.New64a()
	buf := make([]byte, sizes[len(sizes)-1])
	for _, size := range sizes {
		fmt.Fprintf(h, "%d:", size)
		fill(buf[:size], size, 0)
		h.Write(buf[:size])
	}
	return h.Sum64()
}

// median returns the median of v (v is reordered).
func median(v []float64) float64 {
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}
