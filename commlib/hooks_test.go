package commlib_test

import (
	"slices"
	"sync"
	"testing"

	"github.com/predict-tools/predict/commlib"
)

func TestHooks(t *testing.T) {
	var mu sync.Mutex
	var started []int
	ended := 0
	commlib.AddHooks(commlib.Hooks{
		RankStart: func(rank, np int) {
			mu.Lock()
			defer mu.Unlock()
			if np == 3 {
				started = append(started, rank)
			}
		},
		RunEnd: func(err error) {
			mu.Lock()
			defer mu.Unlock()
			ended++
		},
	})
	if err := commlib.Run(3, func(c *commlib.Comm) { c.Barrier() }); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(started)
	if !slices.Equal(started, []int{0, 1, 2}) || ended < 1 {
		t.Errorf("RankStart saw %v, RunEnd ran %d times", started, ended)
	}
}
