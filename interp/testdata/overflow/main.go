// Command overflow is the interpreter's test of the picosecond clock's
// limit (≈ 106 days): with a machine file at its bounds, a message, a
// collective or a computation costs more than the clock holds, and the
// modeled run must stop with an error naming the line, never print a
// wrapped time. spin(u) costs u units of a synthetic profile.
package main

import (
	"flag"

	"github.com/predict-tools/predict/commlib"
)

var (
	bytes = flag.Int("bytes", 8, "message size")
	reps  = flag.Int("reps", 1, "messages, collectives or spin calls")
	units = flag.Int("units", 1, "units of work per spin call")
	part  = flag.String("part", "send", "send, isend, bcast or compute")
)

var sink int

// spin is the unit of work: the profile times its loop.
func spin(units int) {
	for i := 0; i < units; i++ {
		sink += i
	}
}

func main() {
	commlib.Main(func(c *commlib.Comm) {
		rank, np := c.Rank(), c.Size()
		buf := make([]byte, *bytes)
		for range *reps {
			switch *part {
			case "send":
				if rank == 0 && np > 1 {
					c.Send(buf, 1, 0)
				} else if rank == 1 {
					c.Recv(buf, 0, 0)
				}
			case "isend":
				if rank == 0 && np > 1 {
					c.Wait(c.Isend(buf, 1, 0))
				} else if rank == 1 {
					c.Wait(c.Irecv(buf, 0, 0))
				}
			case "bcast":
				c.Bcast(buf, 0)
			case "compute":
				spin(*units)
			}
		}
	})
}
