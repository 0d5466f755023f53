// Structcomm keeps its communicator in a struct field and asks it for the
// size in a method (s.c.Size()), the way programs that bundle a rank's
// state write it: 3·np Allreduces, whose sum it checks.
package main

import (
	"fmt"

	"github.com/predict-tools/predict/commlib"
)

type state struct {
	c *commlib.Comm
	n int
}

func (s *state) size() int { return s.c.Size() }

func main() {
	commlib.Main(func(c *commlib.Comm) {
		s := &state{c: c, n: 10}
		sum := []int{0}
		last := 0
		for i := 0; i < s.size()*3; i++ {
			c.Allreduce([]int{i}, sum, commlib.Sum)
			last = i
		}
		if sum[0] != last*c.Size() {
			c.Abort(fmt.Errorf("sum %d, want %d", sum[0], last*c.Size()))
		}
		if c.Rank() == 0 {
			fmt.Println("checksum:", sum[0])
		}
	})
}
