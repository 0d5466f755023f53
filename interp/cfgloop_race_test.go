package interp

import (
	"sync"
	"testing"
)

// TestCFGLoopConcurrent: the plan's natural-loop cache is read and filled
// by several runs at once (a Runner's compiled programs share the plan;
// the runaway and endless-loop reports ask it); run with -race.
func TestCFGLoopConcurrent(t *testing.T) {
	p := prepare(t, "./interp/testdata/batches")
	plan := p.Report.Plan
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for _, fn := range p.SSA {
				for _, b := range fn.Blocks {
					if loop := plan.CFGLoop(b); !loop[b.Index] {
						t.Errorf("%s block %d: not in its own natural loop", fn, b.Index)
					}
				}
			}
		})
	}
	wg.Wait()
}
