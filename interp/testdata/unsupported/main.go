// Command unsupported holds a construct the interpreter does not support
// yet, in code the model keeps: a goroutine that runs a function outside
// the program. The tools say so before measuring anything.
package main

import (
	"fmt"

	"github.com/predict-tools/predict/commlib"
)

func main() {
	commlib.Main(func(c *commlib.Comm) {
		done := make(chan struct{})
		go fmt.Println("rank", c.Rank())
		go func() { close(done) }()
		<-done
		c.Barrier()
	})
}
