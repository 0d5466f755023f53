// This file defines the profile file: what the timing pass measured, keyed
// by model node IDs, and its writing and reading.

package profile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
)

// ThisHost is File.Host for this machine: GOOS/GOARCH and its CPUs.
func ThisHost() string {
	return fmt.Sprintf("%s/%s, %d CPUs", runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
}

// Profile file identification.
const (
	Format  = "predict-profile"
	Version = 1
)

// The clocks of [File.Clock], as the probes name them (probe.ClockWall
// and probe.ClockThread).
const (
	ClockWall   = "wall"
	ClockThread = "thread"
)

// FragmentKind says what a fragment's probes measure.
type FragmentKind string

// Fragment kinds.
const (
	FragSegment FragmentKind = "seg"    // straight-line statements between control points
	FragLoop    FragmentKind = "loop"   // a whole loop statement (a collapse candidate nest)
	FragBranch  FragmentKind = "branch" // an opaque decision: its outcomes per rank
	// FragRegion is a function body or a loop the timing pass measured
	// inside: its time that no fragment inside it measured (loop control,
	// conditions, small calls), per entry of a function (Node is its
	// root) or per iteration of a loop (Node is the loop).
	FragRegion FragmentKind = "region"
	// FragArg is an opaque argument of a commlib call: its values per
	// rank (File.CommArgs).
	FragArg FragmentKind = "arg"
)

// File is the result of a timing pass. Times are picoseconds.
type File struct {
	Format      string   `json:"format"`
	Version     int      `json:"version"`
	Package     string   `json:"package"`
	Module      string   `json:"module"`
	ContentHash string   `json:"content_hash"`
	NP          int      `json:"np"`
	Args        []string `json:"args,omitempty"`
	// Launcher is the MPI launcher the runs ran under (predict profile
	// --launcher), one process a rank; absent: one process ran every rank.
	Launcher string  `json:"launcher,omitempty"`
	Host     string  `json:"host"`    // GOOS/GOARCH and CPUs of the machine measured
	Created  string  `json:"created"` // RFC 3339
	Alpha    float64 `json:"alpha"`   // balance threshold: D ≤ alpha·mean

	// Clock is the clock the fragments were timed by: "wall" (or absent),
	// or "thread", the CPU time of the OS thread that ran the fragment, for
	// a program that runs pool or Parallel threads (the time with a core to
	// itself, which the interpreter charges a logical thread).
	Clock       string   `json:"clock,omitempty"`
	Overhead    Overhead `json:"overhead"`      // probe costs subtracted from the measurements
	WallPS      int64    `json:"wall_ps"`       // the instrumented run's process
	PlainWallPS int64    `json:"plain_wall_ps"` // the same run's process without probes
	PlainCPUPS  int64    `json:"plain_cpu_ps"`  // its CPU time (user + system), all threads
	// RunPS and PlainRunPS are the instrumented and the plain run's wall
	// time measured inside the process, from the first rank's start to the
	// run's end: without the process's start-up (the probes' calibration
	// included) and exit, which no fragment covers. PlainRunCPUPS is the
	// CPU time over that span. Absent in profiles written before they were
	// measured (v1 readers take the process times then).
	RunPS         int64 `json:"run_ps,omitempty"`
	PlainRunPS    int64 `json:"plain_run_ps,omitempty"`
	PlainRunCPUPS int64 `json:"plain_run_cpu_ps,omitempty"`
	// PlainSpansPS are every plain run's span (as PlainRunPS, which is
	// their minimum), in the order they ran: what predict validate sets
	// its own runs of the same program against, to tell the machine's
	// drift since the timing pass from the model's error. Absent in
	// profiles written before they were kept.
	PlainSpansPS []int64 `json:"plain_spans_ps,omitempty"`

	MeasuredPS int64 `json:"measured_ps"` // sum of the compensated fragment times
	// PlainComputePS is the plain run's time outside commlib, summed over
	// the ranks (each from its start to its end). Where the fragments
	// account for every nanosecond (Regions), their times are scaled by
	// Scale so that they sum to it: the plain run is the measurement, the
	// probes only share it out (what is left of their cost after
	// compensation and what they perturb is spread evenly). Scale is 0
	// where nothing was scaled.
	PlainComputePS int64 `json:"plain_compute_ps,omitempty"`
	// PlainRankComputePS is that time per rank (index: rank), the median
	// over the plain runs: what the model's ranks are checked against at
	// the profile's np (the ranks' balance). Empty in profiles of earlier
	// versions.
	PlainRankComputePS []int64 `json:"plain_rank_compute_ps,omitempty"`
	// Runs is how many times each program ran (plain and probed,
	// alternately); SpreadRel the spread of the plain runs' compute,
	// (median − min)/min.
	Runs      int     `json:"runs,omitempty"`
	SpreadRel float64 `json:"spread_rel,omitempty"`
	Regions   bool    `json:"regions,omitempty"`
	Scale     float64 `json:"scale,omitempty"`
	// AloneRel is the fragments' time-weighted alone/shared ratio (see
	// FragmentStats.AloneRel); 0 when the timing pass ran no alone run.
	AloneRel float64 `json:"alone_rel,omitempty"`
	// LoadedRel is the fragments' time-weighted loaded/measured ratio
	// (FragmentStats.LoadedRel), LoadedBy the streaming co-runners of the
	// loaded runs (commlib's COMMLIB_STREAM, on the CPUs the ranks left
	// idle); 0 when the timing pass ran none (its ranks used every CPU).
	LoadedRel float64 `json:"loaded_rel,omitempty"`
	LoadedBy  int     `json:"loaded_by,omitempty"`
	// ProbesPS is what the probes of the instrumented run cost in all,
	// as the calibration says (File.ProbeCostPS).
	ProbesPS int64 `json:"probes_ps,omitempty"`
	CommPS   int64 `json:"comm_ps"` // time spent inside commlib calls (not compute), summed over ranks
	// ErrorRel is the program-level bound: the time-weighted mean of the
	// fragments' relative error bounds.
	ErrorRel float64 `json:"error_rel"`

	// OtherCores is the mean number of cores that other processes kept
	// busy during the kept runs (the larger of the two; estimator/load.go).
	OtherCores float64 `json:"other_cores,omitempty"`
	CPUs       int     `json:"cpus,omitempty"` // of the machine measured; with OtherCores, 0 where the system did not say
	// Runtime is what the Go runtime and the system did during the kept
	// plain run (goruntime.go); absent in profiles written before it was
	// measured, and under a launcher that merged no rank's.
	Runtime *Runtime `json:"runtime,omitempty"`
	// Warnings are what the timing pass found doubtful in its own
	// measurement (a run disturbed by the machine's other load).
	Warnings []string `json:"warnings,omitempty"`

	Fragments []FragmentStats `json:"fragments"`
	Loops     []LoopStats     `json:"loops,omitempty"`
	Decisions []DecisionStats `json:"decisions,omitempty"`
	// CommArgs are the opaque arguments of commlib calls (a peer, a count, a
	// buffer's length that the model does not compute), recorded per rank
	// in the order of the calls: the interpreter replays them.
	CommArgs []ArgStats `json:"comm_args,omitempty"`
	// Replays are what the timing pass recorded of the same decisions,
	// opaque loops and arguments in runs at other np (replay.go): the
	// interpreter replays a record at its own np, and between records
	// follows their trend.
	Replays []Replay `json:"replays,omitempty"`
}

// Overhead is the cost of the probes, measured when the program started.
type Overhead struct {
	SegPS     int64 `json:"seg_ps"`               // a Now/Seg pair around nothing
	IterPS    int64 `json:"iter_ps"`              // one sampled-iteration probe
	CounterPS int64 `json:"counter_ps"`           // the per-iteration counter of a loop whose trip count is not known before it runs
	TestPS    int64 `json:"test_ps,omitempty"`    // the per-iteration counter and test of a loop's sampled copy
	SampledPS int64 `json:"sampled_ps,omitempty"` // recording the trip count of an entry that ran a loop's sampled copy
}

// FragmentStats is the measured time of one fragment per execution.
type FragmentStats struct {
	Node       string       `json:"node"`
	Kind       FragmentKind `json:"kind"`
	Pos        string       `json:"pos"` // file:line-line
	Covers     []string     `json:"covers,omitempty"`
	Executions int64        `json:"executions"`
	MeanPS     int64        `json:"mean_ps"`
	SDPS       int64        `json:"sd_ps"`
	MinPS      int64        `json:"min_ps"`
	MaxPS      int64        `json:"max_ps"`
	ErrorPS    int64        `json:"error_ps"`  // |Δ| ≤ 3σ/√N
	ErrorRel   float64      `json:"error_rel"` // δ ≤ 3σ/(√N(mean − σ)); 1 when mean ≤ σ
	// SpreadRel is (max − min)/median of the fragment's means over the
	// timing pass's runs (Runs); MeanPS is their median.
	SpreadRel float64 `json:"spread_rel,omitempty"`
	// AloneRel is its mean in the alone run (the ranks taking turns, each
	// computing with no other rank beside it) over its mean in the shared
	// runs; 0 where not measured (np = 1, or too little time to tell).
	AloneRel float64 `json:"alone_rel,omitempty"`
	// LoadedRel is its mean in the loaded runs (File.LoadedBy goroutines
	// streaming through memory on the CPUs the ranks left idle) over its
	// mean in the other runs; 0 where not measured (the ranks used every
	// CPU, or too little time to tell).
	LoadedRel float64 `json:"loaded_rel,omitempty"`
}

// LoopStats describes a loop timed as a whole.
type LoopStats struct {
	Node      string      `json:"node"`
	Trips     []TripCount `json:"trips"`       // trip count → how many entries had it
	PerIterPS int64       `json:"per_iter_ps"` // mean time of one iteration
	Samples   int         `json:"samples"`     // per-iteration times sampled
	D         float64     `json:"d"`           // max |T_k − T̄| / T̄, T_k iteration k's time (see balance)
	Balanced  bool        `json:"balanced"`    // D ≤ alpha
	// Innermost: the loop heads a perfect nest and Trips and PerIterPS
	// count iterations of its innermost body.
	Innermost bool `json:"innermost,omitempty"`
	// FirstItersPS and LaterIterPS are, for an unbalanced loop whose
	// iterations differ by their index within an entry (its first ones
	// warm its caches, or its work grows with the index), the time of
	// each of its first K = len(FirstItersPS) iterations and of each
	// iteration after them: an entry of t trips costs
	// Σ FirstItersPS[:min(t, K)] + max(t − K, 0)·LaterIterPS, and the
	// profiled entries their measured total. Empty: every iteration
	// costs PerIterPS.
	FirstItersPS []int64 `json:"first_iters_ps,omitempty"`
	LaterIterPS  int64   `json:"later_iter_ps,omitempty"`
	// Ranks are, for a loop whose bound is opaque, each rank's sequence of
	// trip counts as (trips, entries) runs: the interpreter replays them.
	Ranks []RankTrips `json:"ranks,omitempty"`
}

// Scale multiplies the loop's times per iteration by k.
func (l *LoopStats) Scale(k float64) {
	scale := func(x int64) int64 { return int64(math.Round(float64(x) * k)) }
	l.PerIterPS, l.LaterIterPS = scale(l.PerIterPS), scale(l.LaterIterPS)
	for i, t := range l.FirstItersPS {
		l.FirstItersPS[i] = scale(t)
	}
}

// RankTrips is one rank's sequence of trip counts.
type RankTrips struct {
	Rank      int        `json:"rank"`
	Runs      [][2]int64 `json:"runs"`
	Truncated bool       `json:"truncated,omitempty"`
}

// TripCount is one value of a trip-count distribution.
type TripCount struct {
	Trips int64 `json:"trips"`
	Count int64 `json:"count"`
}

// DecisionStats are the outcomes of an opaque decision per rank.
type DecisionStats struct {
	Node  string         `json:"node"`
	Pos   string         `json:"pos"`
	Ranks []RankOutcomes `json:"ranks"`
}

// RankOutcomes are one rank's outcomes of a decision: counts and the
// sequence as runs of equal outcomes (true first when Runs[0] > 0 counts
// trues; see FirstTrue).
type RankOutcomes struct {
	Rank      int     `json:"rank"`
	True      int64   `json:"true"`
	False     int64   `json:"false"`
	FirstTrue bool    `json:"first_true"`
	Runs      []int64 `json:"runs,omitempty"` // lengths of alternating runs, starting with FirstTrue's value
	Truncated bool    `json:"truncated,omitempty"`
}

// ArgStats are the values of one opaque argument of a commlib call per
// rank.
type ArgStats struct {
	Node  string     `json:"node,omitempty"` // the call's leaf in the model
	Site  string     `json:"site"`           // the call's position, file:line:col
	Arg   int        `json:"arg"`            // its position among the call's arguments (0: a method's receiver)
	Part  string     `json:"part"`           // "value", "length" or "elements" (reduce.ArgPart)
	Ranks []RankArgs `json:"ranks"`
}

// RankArgs are one rank's values of an argument, in the order of its
// calls, as runs of calls that passed the same: an integer's value, or a
// slice's length and (part "elements") its elements.
type RankArgs struct {
	Rank      int      `json:"rank"`
	Runs      []ArgRun `json:"runs"`
	Truncated bool     `json:"truncated,omitempty"` // the record stops before the rank's last call
}

// ArgRun is a run of N calls that passed the same values.
type ArgRun struct {
	N    int64   `json:"n"`
	Vals []int64 `json:"vals"`
}

// Write writes the profile as indented JSON.
func (p *File) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(p)
}

// Read reads a profile file and checks that it is one, of this
// version.
func Read(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("profile: %w", err)
	}
	var head struct {
		Format  string `json:"format"`
		Version int    `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("profile %s: not a JSON profile: %v", path, jsonErrorPos(data, err))
	}
	if head.Format != Format {
		return nil, fmt.Errorf("profile %s: format %q, want %q (write one with predict profile)", path, head.Format, Format)
	}
	if head.Version != Version {
		return nil, fmt.Errorf("profile %s: version %d, this predict reads version %d: run predict profile again", path, head.Version, Version)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var p File
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("profile %s: %v", path, jsonErrorPos(data, err))
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("profile %s: %v", path, err)
	}
	return &p, nil
}

// jsonErrorPos adds line:col to a JSON syntax or type error.
func jsonErrorPos(data []byte, err error) error {
	var off int64 = -1
	switch e := err.(type) {
	case *json.SyntaxError:
		off = e.Offset
	case *json.UnmarshalTypeError:
		off = e.Offset
	}
	if off < 0 {
		return err
	}
	line, col := 1, 1
	for _, c := range data[:min(int(off), len(data))] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Errorf("line %d col %d: %v", line, col, err)
}
