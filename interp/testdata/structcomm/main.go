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
		for i := 0; i < s.size()*3; i++ {
			c.Allreduce([]int{i}, sum, commlib.Sum)
		}
		if c.Rank() == 0 {
			fmt.Println("checksum:", sum[0])
		}
	})
}
