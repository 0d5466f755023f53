// Command calcoll runs one collective once on every rank, from buffers of
// float64: the program whose interpretation predicts what predict
// calibrate --collectives measures (calfigures -collectives sets the
// one against the other). It is a real program first:
//
//	go run ./estimator/internal/calcoll -np 4 -op allreduce -bytes 65536
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/predict-tools/predict/commlib"
)

var (
	op    = flag.String("op", "barrier", "the collective: barrier, bcast, reduce, allreduce, gather, allgather, alltoall")
	bytes = flag.Int("bytes", 8, "bytes of each rank's buffer (per pair for alltoall), in float64s of 8 B")
)

func main() {
	flag.Parse()
	commlib.Main(func(c *commlib.Comm) {
		n := max(*bytes/8, 1)
		np := c.Size()
		send, recv := make([]float64, n), make([]float64, n)
		switch *op {
		case "barrier":
			c.Barrier()
		case "bcast":
			c.Bcast(send, 0)
		case "reduce":
			c.Reduce(send, recv, commlib.Sum, 0)
		case "allreduce":
			c.Allreduce(send, recv, commlib.Sum)
		case "gather":
			c.Gather(send, make([]float64, n*np), 0)
		case "allgather":
			c.Allgather(send, make([]float64, n*np))
		case "alltoall":
			c.Alltoall(make([]float64, n*np), make([]float64, n*np))
		default:
			fmt.Fprintf(os.Stderr, "calcoll: -op %q: not one of barrier, bcast, reduce, allreduce, gather, allgather, alltoall\n", *op)
			os.Exit(2)
		}
	})
}
