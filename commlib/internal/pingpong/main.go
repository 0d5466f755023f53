// Command pingpong measures commlib's point-to-point latency and bandwidth
// between ranks 0 and 1, from 1 byte to 4 MiB: one-way time, the median of
// five repetitions of a batch of round trips. testdata/pingpong.c is the
// same exchange in C, the reference for commlib over MPI:
//
//	go build -tags mpi ./commlib/internal/pingpong && mpirun -np 2 ./pingpong
//	mpicc -O2 -o pingpong-c commlib/internal/pingpong/testdata/pingpong.c && mpirun -np 2 ./pingpong-c
//	go run ./commlib/internal/pingpong -np 2     # the in-process runtime
package main

import (
	"fmt"
	"slices"

	"github.com/predict-tools/predict/commlib"
)

func main() {
	commlib.Main(func(c *commlib.Comm) {
		const reps = 5
		buf := make([]byte, 4<<20)
		if c.Rank() == 0 {
			fmt.Printf("%10s %12s %12s\n", "bytes", "latency_us", "MB/s")
		}
		for size := 1; size <= 4<<20; size *= 2 {
			iters := 100
			if size <= 65536 {
				iters = 2000
			}
			msg := buf[:size]
			times := make([]float64, reps)
			for r := range times {
				c.Barrier()
				t0 := commlib.Wtime()
				for range iters {
					switch c.Rank() {
					case 0:
						c.Send(msg, 1, 0)
						c.Recv(msg, 1, 0)
					case 1:
						c.Recv(msg, 0, 0)
						c.Send(msg, 0, 0)
					}
				}
				times[r] = (commlib.Wtime() - t0) / float64(iters) / 2
			}
			slices.Sort(times)
			lat := times[reps/2]
			if c.Rank() == 0 {
				fmt.Printf("%10d %12.3f %12.1f\n", size, lat*1e6, float64(size)/lat/1e6)
			}
		}
	})
}
