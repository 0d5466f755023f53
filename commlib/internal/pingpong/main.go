// Command pingpong measures commlib's point-to-point latency and bandwidth
// between ranks 0 and 1, from 1 byte to 4 MiB: one-way time, the median of
// five repetitions of a batch of round trips. testdata/pingpong.c is the
// same exchange in C, the reference for commlib over MPI (testdata/compare.sh
// runs both, alternately, and prints the overhead):
//
//	go build -tags mpi ./commlib/internal/pingpong && mpirun -np 2 ./pingpong
//	mpicc -O2 -o pingpong-c commlib/internal/pingpong/testdata/pingpong.c && mpirun -np 2 ./pingpong-c
//	mpirun -np 2 ./pingpong-c -thread funneled   # C at commlib's thread level
//	go run ./commlib/internal/pingpong -np 2     # the in-process runtime
//
// -min and -max restrict the sizes; -cpuprofile writes each rank's CPU
// profile to FILE.rankN (go tool pprof).
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"runtime/pprof"
	"slices"

	"github.com/predict-tools/predict/commlib"
)

var (
	minSize    = flag.Int("min", 1, "smallest message in `BYTES`")
	maxSize    = flag.Int("max", 4<<20, "largest message in `BYTES`")
	cpuprofile = flag.String("cpuprofile", "", "write each rank's CPU profile to `FILE`.rankN")
	raw        = flag.String("raw", "", "bypass commlib (build tag mpi): `cgo` calls MPI_Send and MPI_Recv from Go, c runs each batch in C")
)

// rawLoops are the -raw variants: iters round trips of msg (raw_mpi.go).
var rawLoops = map[string]func(msg []byte, rank, peer, iters int){}

func main() {
	flag.Parse()
	commlib.Main(func(c *commlib.Comm) {
		const reps = 5
		if *cpuprofile != "" {
			f, err := os.Create(fmt.Sprintf("%s.rank%d", *cpuprofile, c.Rank()))
			if err != nil {
				log.Fatal(err)
			}
			defer f.Close()
			if err := pprof.StartCPUProfile(f); err != nil {
				log.Fatal(err)
			}
			defer pprof.StopCPUProfile()
		}
		loop, ok := rawLoops[*raw]
		if *raw != "" && !ok {
			log.Fatalf("-raw %s: not in this build (build tag mpi: cgo, c)", *raw)
		}
		// At one rank, rank 0 sends to itself (messages up to the eager
		// limit): the cost of the calls without a peer's.
		peer := (c.Rank() + 1) % c.Size()
		buf := make([]byte, *maxSize)
		if c.Rank() == 0 {
			fmt.Printf("%10s %12s %12s\n", "bytes", "latency_us", "MB/s")
		}
		for size := *minSize; size <= *maxSize; size *= 2 {
			iters := 100
			if size <= 65536 {
				iters = 2000
			}
			msg := buf[:size]
			times := make([]float64, reps)
			for r := range times {
				c.Barrier()
				t0 := commlib.Wtime()
				if loop != nil {
					loop(msg, c.Rank(), peer, iters)
				}
				for range iters * btoi(loop == nil) {
					switch c.Rank() {
					case 0:
						c.Send(msg, peer, 0)
						c.Recv(msg, peer, 0)
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

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
