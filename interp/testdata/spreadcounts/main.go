// Spreadcounts exchanges, by Alltoallv, counts that depend on data the
// model does not compute (the contents of a problem-sized array): at an np
// the timing pass did not record, the interpreter spreads a rank's total
// evenly over the peers, and the send buffer, as long as the counts'
// total, is as long as the spread counts' sum.
package main

import (
	"flag"
	"fmt"

	"github.com/predict-tools/predict/commlib"
)

var size = flag.Int("n", 64, "problem size")

func main() {
	commlib.Main(func(c *commlib.Comm) {
		np := c.Size()
		data := make([]int, *size)
		for i := range data {
			data[i] = i * 7919 % 13
		}
		send, sdispls := make([]int, np), make([]int, np)
		total := 0
		for j := range np {
			send[j] = data[j%len(data)]%5 + 1
			sdispls[j] = total
			total += send[j]
		}
		recv, rdispls := make([]int, np), make([]int, np)
		c.Alltoall(send, recv)
		in := 0
		for j := range np {
			rdispls[j] = in
			in += recv[j]
		}
		got := make([]float64, in)
		c.Alltoallv(make([]float64, total), send, sdispls, got, recv, rdispls) // mark:exchange
		if c.Rank() == 0 {
			fmt.Println("received", len(got))
		}
	})
}
