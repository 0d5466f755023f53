// Command pingpong is the interpreter's hand-computed test: rank 0 sends
// -bytes bytes to rank 1, which sends them back, -reps times; then a ring
// of one message per rank, a Bcast from rank 0, an Allreduce and an
// Alltoall; and a
// nonblocking ring (Irecv, Isend, Waitall; -reps times) for benchmarks.
package main

import (
	"flag"

	"github.com/predict-tools/predict/commlib"
)

var (
	bytes = flag.Int("bytes", 8, "message size")
	reps  = flag.Int("reps", 1, "round trips")
	part  = flag.String("part", "pingpong", "pingpong, ring, bcast, allreduce, alltoall, iring or split")
)

func main() {
	commlib.Main(func(c *commlib.Comm) {
		rank, np := c.Rank(), c.Size()
		buf := make([]byte, *bytes)
		switch *part {
		case "pingpong":
			for range *reps {
				if rank == 0 {
					c.Send(buf, 1, 0)
					c.Recv(buf, 1, 0)
				} else if rank == 1 {
					c.Recv(buf, 0, 0)
					c.Send(buf, 0, 0)
				}
			}
		case "ring":
			if rank == 0 {
				c.Send(buf, 1%np, 0)
				c.Recv(buf, np-1, 0)
			} else {
				c.Recv(buf, rank-1, 0)
				c.Send(buf, (rank+1)%np, 0)
			}
		case "iring":
			in := make([]byte, *bytes)
			reqs := make([]*commlib.Request, 2)
			for range *reps {
				reqs[0] = c.Irecv(in, (rank+np-1)%np, 0)
				reqs[1] = c.Isend(buf, (rank+1)%np, 0)
				c.Waitall(reqs)
			}
		case "bcast":
			c.Bcast(buf, 0)
		case "allreduce":
			x := make([]float64, *bytes/8)
			y := make([]float64, *bytes/8)
			c.Allreduce(x, y, commlib.Sum)
		case "alltoall":
			// -bytes to each rank, itself included.
			send := make([]byte, *bytes*np)
			recv := make([]byte, *bytes*np)
			c.Alltoall(send, recv)
		case "split":
			// Members call Split from two sites: each gets its own
			// communicator back.
			var sub *commlib.Comm
			if rank%2 == 0 {
				sub = c.Split(0, rank)
			} else {
				sub = c.Split(1, rank)
			}
			x := make([]float64, *bytes/8)
			y := make([]float64, *bytes/8)
			sub.Allreduce(x, y, commlib.Sum)
		}
	})
}
