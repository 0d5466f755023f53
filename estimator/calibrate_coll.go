// This file defines the collective timings of a calibration: each
// collective of a fixed size and root, launched in time slots on every
// rank of the job (no barrier before a launch), its time the maximum over
// ranks (seed-001 §6.9), for validating the interpreter's collective
// models against what the runtime does.

package estimator

import (
	"errors"
	"fmt"

	"github.com/predict-tools/predict/commlib"
)

// CollectiveCase is one collective measured: its name (as machine's
// collectives are named), the bytes of each rank's buffer, the root 0.
type CollectiveCase struct {
	Op    string `json:"op"`
	Bytes int    `json:"bytes"`
}

// CalibrationCollectives are the collectives a calibration times: small
// and large where size matters, with buffers of float64 (8 B elements).
var CalibrationCollectives = []CollectiveCase{
	{"barrier", 0},
	{"bcast", 8}, {"bcast", 64 << 10},
	{"reduce", 8}, {"reduce", 64 << 10},
	{"allreduce", 8}, {"allreduce", 64 << 10},
	{"gather", 8}, {"allgather", 8},
	{"alltoall", 8}, {"alltoall", 8 << 10},
}

// CollectiveTiming is what a collective took at the job's np: the
// max-over-ranks time of synchronised launches, each rank's own trimmed
// mean, and the slot counts. Converged is false when the interval did
// not narrow to the rule's within its budget: the timing is then only
// indicative (collectives validate the interpreter's models; they are not
// written to the machine file, so they do not refuse a calibration).
type CollectiveTiming struct {
	CollectiveCase
	NP        int        `json:"np"`
	Time      Estimate   `json:"time"`
	Converged bool       `json:"converged"`
	RankMeans []float64  `json:"rank_means_ns"`
	Slots     SlotCounts `json:"slots"`
}

// collectiveOp returns rank c's launch of case i of CalibrationCollectives,
// its buffers allocated (and touched) before any launch. Every element
// count is Bytes/8 per rank (per pair for alltoall), at least 1.
func collectiveOp(c *commlib.Comm, i int) func(int) {
	cc := CalibrationCollectives[i]
	n := max(cc.Bytes/8, 1)
	np := c.Size()
	send, recv := make([]float64, n), make([]float64, n)
	switch cc.Op {
	case "barrier":
		return func(int) { c.Barrier() }
	case "bcast":
		return func(int) { c.Bcast(send, 0) }
	case "reduce":
		return func(int) { c.Reduce(send, recv, commlib.Sum, 0) }
	case "allreduce":
		return func(int) { c.Allreduce(send, recv, commlib.Sum) }
	case "gather":
		all := make([]float64, n*np)
		return func(int) { c.Gather(send, all, 0) }
	case "allgather":
		all := make([]float64, n*np)
		return func(int) { c.Allgather(send, all) }
	case "alltoall":
		out, in := make([]float64, n*np), make([]float64, n*np)
		return func(int) { c.Alltoall(out, in) }
	}
	panic(fmt.Sprintf("calibrate: unknown collective %q", cc.Op))
}

// measureCollectives times every case of CalibrationCollectives in slots,
// each on clocks sync has just synchronised.
func (cal *Calibration) measureCollectives(w leader, sync clockSync, cfg SlotConfig, rule StopRule, logf func(string, ...any)) error {
	for i, cc := range CalibrationCollectives {
		offsets, err := sync()
		if err != nil {
			return err
		}
		s := newSlotSampler(leaderStage{w, len(selfTestNames) + i}, offsets, cfg)
		e, _, err := measureUntil(fmt.Sprintf("%s of %d B at np=%d", cc.Op, cc.Bytes, w.np()), s, rule, sinceNow())
		var noisy *NoisyError
		if err != nil && !errors.As(err, &noisy) {
			return err
		}
		logf("%-9s %6d B at np=%d: %s ± %.1f %% (max over ranks; %d of %d launches valid)", cc.Op, cc.Bytes, w.np(), nsText(e.Mean),
			100*e.RelHalfWidth(), s.counts.Valid, s.counts.Runs)
		cal.Collectives = append(cal.Collectives, CollectiveTiming{CollectiveCase: cc, NP: w.np(), Time: e, Converged: err == nil,
			RankMeans: s.rankMeans(rule.Trim), Slots: s.counts})
	}
	return nil
}
