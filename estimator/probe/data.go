// This file defines the raw data the probes write, and writing it.

package probe

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
)

// RawVersion is the version of the raw data format.
const RawVersion = 1

// Raw is what a probed run measured. Times are nanoseconds.
type Raw struct {
	Version   int           `json:"version"`
	NP        int           `json:"np"`
	Args      []string      `json:"args,omitempty"`
	WallNS    int64         `json:"wall_ns"` // from the first rank's start to the end of the run
	Error     string        `json:"error,omitempty"`
	Overhead  RawOverhead   `json:"overhead"`
	Fragments []RawFragment `json:"fragments"`
}

// RawOverhead are the costs of the probes, in nanoseconds.
type RawOverhead struct {
	SegNS     float64 `json:"seg_ns"`
	IterNS    float64 `json:"iter_ns"`
	CounterNS float64 `json:"counter_ns"`
}

// RawFragment are the statistics of one fragment.
type RawFragment struct {
	ID          int32       `json:"id"`
	Kind        string      `json:"kind"`
	Count       int64       `json:"count"`
	SumNS       float64     `json:"sum_ns"`
	SumSqNS     float64     `json:"sum_sq_ns"`
	MinNS       int64       `json:"min_ns"`
	MaxNS       int64       `json:"max_ns"`
	Trips       [][2]int64  `json:"trips,omitempty"` // (trip count, entries), by trip count
	TripsOther  *tripOther  `json:"trips_other,omitempty"`
	IterSamples []int64     `json:"iter_samples,omitempty"`
	Branches    []RawBranch `json:"branches,omitempty"`
}

// RawBranch are one rank's outcomes of a decision.
type RawBranch struct {
	Rank      int      `json:"rank"`
	True      int64    `json:"true"`
	False     int64    `json:"false"`
	Runs      []RawRun `json:"runs,omitempty"`
	Truncated bool     `json:"truncated,omitempty"`
}

// RawRun is a run of equal outcomes.
type RawRun struct {
	Value bool  `json:"value"`
	Len   int64 `json:"len"`
}

// Snapshot returns the data measured so far.
func Snapshot() Raw {
	raw := Raw{Version: RawVersion, NP: int(np.Load()), Args: os.Args[1:]}
	if t0 := wallT0.Load(); t0 > 0 {
		raw.WallNS = Now() - t0
	}
	seg, iter, counter := Overhead()
	raw.Overhead = RawOverhead{SegNS: seg, IterNS: iter, CounterNS: counter}
	fragsMu.RLock()
	defer fragsMu.RUnlock()
	for id, f := range frags {
		f.mu.Lock()
		if f.count > 0 || len(f.samples) > 0 {
			rf := RawFragment{ID: int32(id), Kind: f.kind, Count: f.count, SumNS: f.sum, SumSqNS: f.sumSq,
				MinNS: f.min, MaxNS: f.max, IterSamples: slices.Clone(f.samples)}
			for t, n := range f.trips {
				rf.Trips = append(rf.Trips, [2]int64{t, n})
			}
			slices.SortFunc(rf.Trips, func(a, b [2]int64) int { return int(a[0] - b[0]) })
			if f.tripsOther.Count > 0 {
				o := f.tripsOther
				rf.TripsOther = &o
			}
			for r, b := range f.branches {
				rf.Branches = append(rf.Branches, RawBranch{Rank: r, True: b.trueN, False: b.falseN,
					Runs: slices.Clone(b.runs), Truncated: b.truncated})
			}
			slices.SortFunc(rf.Branches, func(a, b RawBranch) int { return a.Rank - b.Rank })
			if rf.Kind == "" {
				rf.Kind = "loop"
			}
			raw.Fragments = append(raw.Fragments, rf)
		}
		f.mu.Unlock()
	}
	return raw
}

// Flush writes the data to $PREDICT_PROBE_OUT, if it is set.
func Flush() error { return write(Snapshot()) }

func flushAtEnd(err error) {
	raw := Snapshot()
	if err != nil {
		raw.Error = err.Error()
	}
	if werr := write(raw); werr != nil {
		fmt.Fprintf(os.Stderr, "predict probes: %v\n", werr)
	}
}

func write(raw Raw) error {
	path := os.Getenv("PREDICT_PROBE_OUT")
	if path == "" {
		return nil
	}
	data, err := json.Marshal(raw)
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("writing the measurements: %v", err)
	}
	return nil
}
