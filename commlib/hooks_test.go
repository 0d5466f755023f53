package commlib_test

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/predict-tools/predict/commlib"
)

func TestHooks(t *testing.T) {
	var mu sync.Mutex
	var started, finished []int
	ended, endedBeforeRanks := 0, 0
	commlib.AddHooks(commlib.Hooks{
		RankStart: func(rank, np int) {
			mu.Lock()
			defer mu.Unlock()
			if np == 3 {
				started = append(started, rank)
			}
		},
		RankEnd: func(rank int) {
			mu.Lock()
			defer mu.Unlock()
			finished = append(finished, rank)
		},
		RunEnd: func(err error) {
			mu.Lock()
			defer mu.Unlock()
			ended++
			if len(finished) < 3 {
				endedBeforeRanks++
			}
		},
	})
	if err := commlib.Run(3, func(c *commlib.Comm) { c.Barrier() }); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(started)
	slices.Sort(finished)
	if !slices.Equal(started, []int{0, 1, 2}) || !slices.Equal(finished, []int{0, 1, 2}) || ended < 1 || endedBeforeRanks > 0 {
		t.Errorf("RankStart saw %v, RankEnd %v, RunEnd ran %d times (%d before the ranks ended)", started, finished, ended, endedBeforeRanks)
	}
}

func TestCallTimeHook(t *testing.T) {
	var mu sync.Mutex
	calls := map[int]int{}
	var total time.Duration
	commlib.AddHooks(commlib.Hooks{CallTime: func(rank int, d time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		calls[rank]++
		total += d
	}})
	err := commlib.Run(2, func(c *commlib.Comm) {
		if c.Rank() == 1 {
			time.Sleep(20 * time.Millisecond) // rank 0 waits in Barrier
		}
		c.Barrier()
	})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if calls[0] < 1 || calls[1] < 1 || total < 15*time.Millisecond {
		t.Errorf("calls %v, total %v: want each rank's Barrier, rank 0's waiting at least 15ms", calls, total)
	}
}
