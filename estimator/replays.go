// This file defines the run that records the replayed values at a second
// np: the decisions, opaque loops' trip counts and opaque commlib
// arguments belong to the decomposition of the run that recorded them, so
// the timing pass records them at two np and the interpreter follows
// their trend between the two (profile.Replay).

package estimator

import (
	"fmt"
	"path/filepath"

	"github.com/predict-tools/predict/estimator/probe"
	"github.com/predict-tools/predict/profile"
)

// replayNP is the np of the second record: 2 beside a pass at np = 1,
// else np/4 and at least 1 (1 beside the usual pass at np = 2: a rank
// owns the whole problem). Not always 1: beside a pass at np = 64 one rank
// would carry 64 ranks' data, probes on, in a run that may not fit.
func replayNP(np int) int {
	if np == 1 {
		return 2
	}
	return max(1, np/4)
}

// replays reports whether a run recorded a value the interpreter replays.
func replays(raw *probe.Raw) bool {
	for _, rf := range raw.Fragments {
		if len(rf.Branches) > 0 || len(rf.Args) > 0 || len(rf.RankTrips) > 0 {
			return true
		}
	}
	return false
}

// decisionsRun runs the instrumented program at np with args, recording
// its decisions (what says more of why), and reads what it wrote to path.
func decisionsRun(cfg Config, instr, path string, np int, args []string, what string) (*probe.Raw, error) {
	err := Step(cfg.Log, fmt.Sprintf("running at np=%d with probes, recording its decisions%s", np, what), func() error {
		_, err := run(cfg.Launcher, instr, np, args, []string{probe.OutEnv + "=" + path}, cfg.Timeout)
		return err
	})
	if err != nil {
		return nil, err
	}
	raw, err := readProbed(cfg.Launcher, path, np)
	if err != nil {
		return nil, fmt.Errorf("reading the decisions at np=%d: %v", np, err)
	}
	return raw, nil
}

// recordReplay runs the instrumented program at np, recording its
// decisions and timing nothing it keeps, and returns what it recorded
// of the replayed values.
func recordReplay(cfg Config, plan *Plan, instr, work string, np int) (*profile.Replay, error) {
	args := cfg.Args
	if cfg.ArgsAt != nil {
		var err error
		if args, err = cfg.ArgsAt(np); err != nil {
			return nil, fmt.Errorf("the program's arguments at np=%d: %v", np, err)
		}
	}
	raw, err := decisionsRun(cfg, instr, filepath.Join(work, fmt.Sprintf("decisions-np%d.json", np)), np, args, " at a second np")
	if err != nil {
		return nil, err
	}
	p := &profile.File{NP: np, Alpha: cfg.Alpha}
	fill(p, plan, raw)
	r := &profile.Replay{NP: np, Args: args, Decisions: p.Decisions, CommArgs: p.CommArgs}
	for _, l := range p.Loops {
		if len(l.Ranks) > 0 {
			r.Loops = append(r.Loops, profile.LoopTrips{Node: l.Node, Ranks: l.Ranks})
		}
	}
	return r, nil
}
