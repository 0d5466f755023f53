// Commargs sends each rank's batch to a peer and of a length drawn from a
// generator over a source of the program's own, which the model does not
// run: the timing pass records the Isend's peer and length per rank, and
// the receives' decisions (`if n == 0`), and a prediction at np = 2 (or
// at np = 1, from the record made there) replays them.
package main

import (
	"fmt"
	"math/rand/v2"

	"github.com/predict-tools/predict/commlib"
)

// lcg is a source of the program's own, a linear congruential generator.
type lcg struct{ x uint64 }

func (s *lcg) Uint64() uint64 {
	s.x = s.x*6364136223846793005 + 1442695040888963407
	return s.x ^ s.x>>29
}

func main() {
	commlib.Main(func(c *commlib.Comm) {
		np, rank := c.Size(), c.Rank()
		rng := rand.New(&lcg{x: uint64(rank)*7919 + 1})
		dest := rank
		if np > 1 {
			dest = (rank + 1 + rng.IntN(np-1)) % np // another rank
		}
		count := 1 + rng.IntN(16)
		batch := make([]int, count)
		for i := range batch {
			batch[i] = rank
		}
		sendCounts, recvCounts := make([]int, np), make([]int, np)
		sendCounts[dest] = count
		c.Alltoall(sendCounts, recvCounts)
		req := c.Isend(batch, dest, 1)
		got := 0
		for r, n := range recvCounts {
			if n == 0 {
				continue
			}
			in := make([]int, n)
			c.Recv(in, r, 1)
			if in[0] != r {
				c.Abort(fmt.Errorf("rank %d received %d from rank %d", rank, in[0], r))
			}
			got += n
		}
		c.Wait(req)
		total := []int{0}
		c.Allreduce([]int{got}, total, commlib.Sum)
		if rank == 0 {
			fmt.Println("checksum:", total[0] > 0)
		}
	})
}
