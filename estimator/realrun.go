// This file defines real runs of a program for comparison with its
// predictions (predict validate): the plain build, which times the run
// from inside, and a run that returns the process's and the program's own
// times, and optionally its trace; in one process, or under an MPI
// launcher, one process a rank.

package estimator

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/predict-tools/predict/estimator/runclock"
	"github.com/predict-tools/predict/modelgen"
)

// PlainProgram is the program built without probes, with the run clock
// that times it from its first rank's start to its last rank's end.
type PlainProgram struct {
	Bin string // the executable
	// Threads, when above 0, is the threads per rank of its runs
	// (COMMLIB_THREADS), as predictions take them from --threads.
	Threads int
	// launcher, when set, runs the program under it with the number of
	// ranks of each run (built with the mpi tag).
	launcher *Launcher
	work     string
}

// BuildPlain builds the main package of l into work (a directory that
// exists), telling log (nil: nothing) how it goes. With launcher set
// (nil: none) it is built with the mpi tag, and its runs run under the
// launcher (Launcher.Check says whether they can).
func BuildPlain(l *modelgen.Loaded, work string, launcher *Launcher, log io.Writer) (*PlainProgram, error) {
	bin := filepath.Join(work, plainName)
	var tags []string
	if launcher != nil {
		tags = []string{mpiTag}
	}
	err := Step(log, "building "+l.Main.Pkg.Path(), func() error {
		return build(l, l.Main.Pkg.Path(), work, plainName, bin, tags, plainOverlay(l))
	})
	if err != nil {
		return nil, err
	}
	return &PlainProgram{Bin: bin, launcher: launcher, work: work}, nil
}

// RealRun is what one real run of a program took.
type RealRun struct {
	Process time.Duration // the process, from its start to its exit
	Span    time.Duration // the program's own run: first rank's start to last rank's end
	CPU     time.Duration // CPU time over the span, all threads (0 where not reported)
}

// Run runs the program with np ranks and its arguments (under the
// launcher, its number of ranks set to np); with traceFile set, it also
// writes the run's trace there (commlib's -trace; under MPI rank 0 merges
// the ranks' traces into it).
func (pp *PlainProgram) Run(np int, args []string, traceFile string, timeout time.Duration) (RealRun, error) {
	if timeout == 0 {
		timeout = 10 * time.Minute
	}
	// A fresh name the run writes (readRunTimes tells a run that never
	// started a rank by the file's absence).
	out, err := os.CreateTemp(pp.work, "span-*.json")
	if err != nil {
		return RealRun{}, err
	}
	out.Close()
	os.Remove(out.Name())
	defer func() {
		os.Remove(out.Name())
		if pp.launcher != nil {
			for r := range np {
				os.Remove(runclock.RankFile(out.Name(), r))
			}
		}
	}()
	env := []string{runclock.OutEnv + "=" + out.Name()}
	if pp.Threads > 0 {
		env = append(env, fmt.Sprintf("COMMLIB_THREADS=%d", pp.Threads))
	}
	if traceFile != "" {
		env = append(env, "COMMLIB_TRACE="+traceFile)
	}
	res, err := run(pp.launcher, pp.Bin, np, args, env, timeout)
	if err != nil {
		return RealRun{}, err
	}
	t, err := readTimes(pp.launcher, out.Name(), np)
	if err != nil {
		return RealRun{}, err
	}
	if t.WallNS <= 0 {
		return RealRun{}, fmt.Errorf("the run at np=%d recorded no span (did every rank start and end?)", np)
	}
	r := RealRun{Process: res.wall, Span: time.Duration(t.WallNS)}
	if t.CPUNS > 0 {
		r.CPU = time.Duration(t.CPUNS)
	}
	return r, nil
}
