// This file defines reading what a run wrote: one file, or under a
// launcher, where each rank is a process of its own, one file a rank
// (runclock.PerRankEnv), merged into what one process running every rank
// writes.

package estimator

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/predict-tools/predict/estimator/probe"
	"github.com/predict-tools/predict/estimator/runclock"
)

// readProbed reads what a probed run of np ranks wrote to path (under
// launcher l, nil if none, to its ranks' files).
func readProbed(l *Launcher, path string, np int) (*probe.Raw, error) {
	if l == nil {
		return readRaw(path)
	}
	ranks := make([]probe.Raw, np)
	for r := range np {
		file := runclock.RankFile(path, r)
		raw, err := decodeRaw(file)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, missingRank(l, r, np, file)
		}
		if err != nil {
			return nil, err
		}
		ranks[r] = *raw
	}
	merged, err := probe.Merge(ranks)
	if err != nil {
		return nil, fmt.Errorf("the ranks' measurements (%s): %v", runclock.RankFile(path, 0), err)
	}
	if merged.Error != "" {
		return nil, fmt.Errorf("the instrumented run failed: %s", merged.Error)
	}
	return &merged, nil
}

// readTimes reads what a plain run of np ranks wrote to path (under
// launcher l, nil if none, to its ranks' files).
func readTimes(l *Launcher, path string, np int) (runclock.Times, error) {
	if l == nil {
		return readRunTimes(path)
	}
	ranks := make([]runclock.Times, np)
	for r := range np {
		file := runclock.RankFile(path, r)
		t, err := runclock.Read(file)
		if errors.Is(err, fs.ErrNotExist) {
			return t, missingRank(l, r, np, file)
		}
		if err != nil {
			return t, fmt.Errorf("reading the plain run's times: %v", err)
		}
		ranks[r] = t
	}
	return runclock.Merge(ranks), nil
}

// missingRank is the error of a launched run whose rank r wrote nothing.
func missingRank(l *Launcher, r, np int, file string) error {
	return fmt.Errorf("rank %d of %d wrote no measurements (%s is missing): it crashed or did not finish commlib.Main, or --launcher %s did not start %d processes with this environment (%s must reach every rank)",
		r, np, file, l, np, runclock.PerRankEnv)
}
