package estimator

import (
	"math"
	"testing"
	"time"
)

// TestLoadedStarved: a loaded run beside one co-runner at np = 1 keeps
// two cores busy (the rank's and the co-runner's); 1.1 means the two took
// turns on one core. The need is the co-runners plus half the ranks' own
// busy cores in the plain run, at most three quarters of the CPUs (a
// rank's threads filled both cores of 2); unknown times and runs shorter
// than 100 ms are not judged.
func TestLoadedStarved(t *testing.T) {
	s := func(cpu, wall float64) runResult {
		return runResult{cpu: time.Duration(cpu * float64(time.Second)), wall: time.Duration(wall * float64(time.Second))}
	}
	for _, c := range []struct {
		loaded, plain runResult
		loaders, cpus int
		need          float64
		starved       bool
	}{
		{s(0.39, 0.2), s(0.19, 0.2), 1, 2, 1.475, false}, // 1.95 cores busy
		{s(0.44, 0.4), s(0.19, 0.2), 1, 2, 1.475, true},  // 1.1: turns on one core
		{s(0.39, 0.2), s(0.39, 0.2), 1, 2, 1.5, false},   // threads filled both cores
		{s(1.2, 0.2), s(0.36, 0.2), 4, 16, 4.9, false},   // np = 2 beside 4: 6 cores
		{s(0.9, 0.2), s(0.36, 0.2), 4, 16, 4.9, true},    // 4.5
		{s(0.44, 0.4), runResult{}, 1, 2, 0, false},      // the plain run's times unknown
		{runResult{wall: time.Second}, s(0.19, 0.2), 1, 2, 0, false},
		{s(0.011, 0.01), s(0.008, 0.01), 1, 2, 0, false}, // 10 ms: its start weighs in
	} {
		_, need, starved := loadedStarved(c.loaded, c.plain, c.loaders, c.cpus)
		if starved != c.starved || math.Abs(need-c.need) > 1e-9 {
			t.Errorf("loaded %v/%v, plain %v/%v, %d co-runners: need %v starved %v, want %v %v",
				c.loaded.cpu, c.loaded.wall, c.plain.cpu, c.plain.wall, c.loaders, need, starved, c.need, c.starved)
		}
	}
}
