// This file defines reading what a run wrote: one file, or under a
// launcher, where each rank is a process of its own, one file a rank
// (runclock.PerRankEnv), merged into what one process running every rank
// writes.

package estimator

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/predict-tools/predict/estimator/probe"
	"github.com/predict-tools/predict/estimator/runclock"
)

// readProbed reads what a probed run of np ranks wrote to path (under
// launcher l, nil if none, to its ranks' files).
func readProbed(l *Launcher, path string, np int) (*probe.Raw, error) {
	var raw *probe.Raw
	if l == nil {
		var err error
		if raw, err = decodeRaw(path); err != nil {
			return nil, err
		}
	} else {
		ranks, err := readRanks(l, path, np, func(file string) (probe.Raw, error) {
			r, err := decodeRaw(file)
			if err != nil {
				return probe.Raw{}, err
			}
			return *r, nil
		})
		if err != nil {
			return nil, err
		}
		merged, err := probe.Merge(ranks)
		if err != nil {
			return nil, fmt.Errorf("the ranks' measurements (%s): %v", runclock.RankFile(path, 0), err)
		}
		raw = &merged
	}
	if raw.Error != "" {
		return nil, fmt.Errorf("the instrumented run failed: %s", raw.Error)
	}
	return raw, nil
}

// readTimes reads what a plain run of np ranks wrote to path (under
// launcher l, nil if none, to its ranks' files).
func readTimes(l *Launcher, path string, np int) (runclock.Times, error) {
	if l == nil {
		return readRunTimes(path)
	}
	ranks, err := readRanks(l, path, np, readRunTimes)
	if err != nil {
		return runclock.Times{}, err
	}
	return runclock.Merge(ranks), nil
}

// readRanks reads the file of each of np ranks that a launched run wrote
// beside path with read; a missing one is named (missingRank).
func readRanks[T any](l *Launcher, path string, np int, read func(string) (T, error)) ([]T, error) {
	ranks := make([]T, np)
	for r := range np {
		file := runclock.RankFile(path, r)
		if _, err := os.Stat(file); errors.Is(err, fs.ErrNotExist) {
			return nil, missingRank(l, r, np, file)
		}
		x, err := read(file)
		if err != nil {
			return nil, err
		}
		ranks[r] = x
	}
	return ranks, nil
}

// missingRank is the error of a launched run whose rank r wrote nothing.
func missingRank(l *Launcher, r, np int, file string) error {
	return fmt.Errorf("rank %d of %d wrote no measurements (%s is missing): it crashed or did not finish commlib.Main, or --launcher %s did not start %d processes with this environment (%s must reach every rank)",
		r, np, file, l, np, runclock.PerRankEnv)
}
