// This file defines the runs of a program whose ranks are processes of
// their own (under an MPI launcher): each process writes its rank's file,
// and the estimator merges them into what one process running every rank
// would have written.

package runclock

import (
	"fmt"
	"os"
	"strconv"
)

// PerRankEnv, set in a run's environment, makes each process write its
// data to its rank's file (RankFile) instead of the named one: under an
// MPI launcher every rank is a process of its own, with the same
// environment, and they would all write the one file. Package probe
// follows it too.
const PerRankEnv = "PREDICT_PER_RANK"

// RankFile is the file the process running rank writes instead of path.
func RankFile(path string, rank int) string { return path + ".rank" + strconv.Itoa(rank) }

// launcherRankEnvs name the rank in the environment MPI launchers give
// their processes (Open MPI, PMIx, MPICH's Hydra, Slurm): the rank of a
// process that failed before commlib started its rank.
var launcherRankEnvs = []string{"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"}

// OutPath returns the file this process writes the data meant for path to:
// path, or with PerRankEnv set its rank's file; rank is the rank commlib
// started in this process (-1: none), else the launcher's environment
// says it.
func OutPath(path string, rank int) (string, error) {
	if os.Getenv(PerRankEnv) == "" {
		return path, nil
	}
	if rank < 0 {
		for _, env := range launcherRankEnvs {
			if r, err := strconv.Atoi(os.Getenv(env)); err == nil && r >= 0 {
				rank = r
				break
			}
		}
	}
	if rank < 0 {
		return "", fmt.Errorf("%s is set but no rank started in this process and the launcher's environment names none (%v)", PerRankEnv, launcherRankEnvs)
	}
	return RankFile(path, rank), nil
}

// Merge returns the times of a run whose ranks wrote ranks (by rank, one
// a process): what one process running them all writes. The span runs
// from the earliest rank's start to the latest one's end, by the clock
// every process of a node shares (StartUnixNS; the longest span where a
// rank did not say when it started); CPU and compute times add up (CPU is
// -1 where a rank's system did not report it).
func Merge(ranks []Times) Times {
	var out Times
	starts, walls := make([]int64, len(ranks)), make([]int64, len(ranks))
	for i, t := range ranks {
		starts[i], walls[i] = t.StartUnixNS, t.WallNS
		if t.CPUNS < 0 || out.CPUNS < 0 {
			out.CPUNS = -1
		} else {
			out.CPUNS += t.CPUNS
		}
		out.ComputeNS += t.ComputeNS
		if len(t.RankComputeNS) > len(out.RankComputeNS) {
			out.RankComputeNS = append(out.RankComputeNS, make([]int64, len(t.RankComputeNS)-len(out.RankComputeNS))...)
		}
		for r, c := range t.RankComputeNS {
			out.RankComputeNS[r] += c // each process ran its own ranks
		}
		switch {
		case t.Runtime == nil:
		case out.Runtime == nil:
			rt := *t.Runtime
			out.Runtime = &rt
		default:
			rt := out.Runtime.plus(*t.Runtime)
			out.Runtime = &rt
		}
	}
	out.WallNS, out.StartUnixNS = Span(starts, walls)
	return out
}

// Span returns the span of processes' runs that began at starts (Unix
// ns, by the wall clock the processes of a node share; 0: not said) and
// lasted walls (ns): from the earliest start to the latest end, and that
// start. Where a start is not said, it is the longest run, and start 0.
func Span(starts, walls []int64) (wall, start int64) {
	var last int64
	stamped := len(starts) > 0
	for i, s := range starts {
		if s <= 0 {
			stamped = false
		}
		if i == 0 || s < start {
			start = s
		}
		last = max(last, s+walls[i])
		wall = max(wall, walls[i])
	}
	if !stamped {
		return wall, 0
	}
	return last - start, start
}
