// Command fib computes Fibonacci numbers by naive recursion, a different
// one on each rank, and sums them with Allreduce. Its work is in a
// recursive function whose blocks are each too small to time alone: the
// interpreter's test of the warning that recursive calls' time is not
// modeled.
package main

import (
	"flag"
	"fmt"

	"github.com/predict-tools/predict/commlib"
)

var n = flag.Int("n", 24, "the Fibonacci number rank 0 computes; rank r computes n+r")

func main() {
	commlib.Main(func(c *commlib.Comm) {
		total := []int64{0}
		c.Allreduce([]int64{int64(fib(*n + c.Rank()))}, total, commlib.Sum)
		if c.Rank() == 0 {
			want := int64(0)
			a, b := int64(0), int64(1) // fib(0), fib(1)
			for k := 0; k < *n+c.Size(); k++ {
				if k >= *n {
					want += a
				}
				a, b = b, a+b
			}
			if total[0] != want {
				c.Abort(fmt.Errorf("sum of fib(%d..%d) = %d, want %d", *n, *n+c.Size()-1, total[0], want))
			}
			fmt.Printf("sum of fib(%d..%d) = %d\n", *n, *n+c.Size()-1, total[0])
		}
	})
}

func fib(k int) int {
	if k < 2 {
		return k
	}
	return fib(k-1) + fib(k-2) // mark:recurse
}
