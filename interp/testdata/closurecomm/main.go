// Command closurecomm calls commlib through a closure that captures the
// communicator, a method value, an interface and a struct field (issue 19
// item 4): the model must follow each, and count their messages.
package main

import (
	"flag"
	"fmt"

	"github.com/predict-tools/predict/commlib"
)

var viaInterface = flag.Bool("iface", false, "call Barrier through an interface too")

// barrierer is what the program needs of a communicator in one place.
type barrierer interface{ Barrier() }

type solver struct {
	c     *commlib.Comm
	steps int
}

func (s *solver) run(exchange func([]int)) {
	for range s.steps {
		counts := make([]int, s.c.Size())
		exchange(counts)
	}
}

func main() {
	commlib.Main(func(c *commlib.Comm) {
		np := c.Size()
		send := make([]int, np)
		for i := range send {
			send[i] = c.Rank()
		}
		// A closure capturing c: np-1 messages per rank per call.
		exchange := func(recv []int) { c.Alltoall(send, recv) }
		s := &solver{c: c, steps: 3}
		s.run(exchange)
		// A method value.
		allreduce := c.Allreduce
		total := []int{0}
		allreduce([]int{c.Rank()}, total, commlib.Sum)
		// An interface holding the communicator.
		if *viaInterface {
			var b barrierer = c
			b.Barrier()
		}
		if c.Rank() == 0 {
			fmt.Println("total", total[0])
		}
	})
}
