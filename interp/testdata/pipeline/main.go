// Command pipeline passes a rank's values through a buffered channel
// between two goroutines, which close it and a second channel, on which
// the rank's main goroutine waits in a select: channels in the model
// (issue 19 item 2).
package main

import (
	"fmt"

	"github.com/predict-tools/predict/commlib"
)

func main() {
	commlib.Main(func(c *commlib.Comm) {
		vals := make(chan int, 4)
		done := make(chan struct{})
		go func() {
			for i := range 16 {
				vals <- i * (c.Rank() + 1)
			}
			close(vals)
		}()
		sum := 0
		go func() {
			for v := range vals {
				sum += v
			}
			close(done)
		}()
		select {
		case <-done:
		}
		total := []int{0}
		c.Allreduce([]int{sum}, total, commlib.Sum)
		if c.Rank() == 0 {
			fmt.Println("total", total[0])
		}
	})
}
