// Command unsupported holds constructs the interpreter does not support
// yet, in code the model keeps: a goroutine started through an interface
// method, and a deferred interface method call. The tools say so before
// measuring anything.
package main

import (
	"sync"

	"github.com/predict-tools/predict/commlib"
)

// worker is what the program starts goroutines on.
type worker interface{ Run(wg *sync.WaitGroup) }

type exchange struct{ c *commlib.Comm }

func (e exchange) Run(wg *sync.WaitGroup) { defer wg.Done() }

type closer interface{ Close() }

type pool struct{}

func (pool) Close() {}

func main() {
	commlib.Main(func(c *commlib.Comm) {
		var w worker = exchange{c}
		var wg sync.WaitGroup
		wg.Add(1)
		go w.Run(&wg)
		wg.Wait()
		var p closer = pool{}
		defer p.Close()
		c.Barrier()
	})
}
