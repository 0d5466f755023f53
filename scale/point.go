// This file defines the prediction at one process count, the unit a sweep
// is made of.

package scale

import "github.com/predict-tools/predict/trace"

// A Point is the prediction of one run at one process count.
//
// The breakdown is per rank, averaged over ranks: Compute + Comm + Wait +
// CoreWait is the mean over ranks of each rank's total time, at most Time
// (the run ends when its slowest rank does); the rest of Time is the mean
// time a rank is idle after it finishes.
type Point struct {
	NP      int        `json:"np"`
	Args    []string   `json:"args,omitempty"`     // the program's arguments at NP, when they depend on np
	Time    trace.Time `json:"time_ps"`            // predicted run time: the maximum over ranks
	Bound   trace.Time `json:"bound_ps,omitempty"` // ± of Time (interp.Result.Bound)
	Compute trace.Time `json:"compute_ps"`         // mean over ranks of the time spent computing
	Comm    trace.Time `json:"comm_ps"`            // mean over ranks of communication overhead (time busy in the library)
	Wait    trace.Time `json:"wait_ps"`            // mean over ranks of time waiting for other ranks
	// CoreWait is the mean over ranks of the time a rank was ready while
	// other ranks held every core of its node (interp.Result.CoreWait).
	CoreWait trace.Time `json:"core_wait_ps,omitempty"`
	Nodes    []NodeTime `json:"nodes,omitempty"`
	// Limits are what the model leaves out of Time (recursive calls,
	// ...): a sweep's Analysis.Limits are those of all its points.
	Limits []string `json:"limits,omitempty"`
}

// A NodeTime is the time spent in one node of the model, aggregated (summed)
// over ranks: the hot spots of a run. When nodes nest, the time of an inner
// node is part of the time of the nodes around it.
type NodeTime struct {
	ID   string     `json:"id"`      // stable model node ID
	Pos  string     `json:"pos"`     // file:line
	Time trace.Time `json:"time_ps"` // summed over ranks
	Freq int64      `json:"freq"`    // executions, summed over ranks
}

// rankTime is the mean over ranks of the total time of a rank.
func (p *Point) rankTime() trace.Time { return p.Compute + p.Comm + p.Wait + p.CoreWait }

// machineTime is the machine's time np × Time divided by np, the whole the
// shares of the breakdown are of: Time, or the mean total of a rank when
// rounding the means put it above Time.
func (p *Point) machineTime() trace.Time { return max(p.Time, p.rankTime()) }

// idle is the mean over ranks of the time a rank is idle after it
// finishes, until the slowest rank does.
func (p *Point) idle() trace.Time { return p.machineTime() - p.rankTime() }
