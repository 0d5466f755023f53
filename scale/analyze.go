// This file defines the analysis of a sweep: speedup, efficiency, breakdown
// and the figures that summarise them.

package scale

import (
	"cmp"
	"fmt"
	"github.com/predict-tools/predict/machine"
	"slices"

	"github.com/predict-tools/predict/trace"
)

// An Analysis is what a sweep says about the scaling of a program. It is
// plain data: Analyze fills it, the writers and Plot print it, and its JSON
// form reads back into an equal Analysis.
type Analysis struct {
	// Name says what was predicted (a package import path); it heads the
	// text report and the plots. Analyze leaves it empty.
	Name string `json:"package,omitempty"`
	// What the prediction used, for the record; Analyze leaves them
	// empty. Args are the program's arguments as given, "{expr}"
	// included (see [Args]); Profile says where the fragments' times
	// came from (a file, or the cached timing pass).
	Machine *machine.Info `json:"machine,omitempty"`
	Args    []string      `json:"args"`
	Profile string        `json:"profile,omitempty"`
	// Limits are what the model leaves out of the predicted times
	// (interp.Result.Limits over every np: recursive calls, ...), said
	// with the report; the caller fills them.
	Limits []string `json:"limits"`
	// Noise says the machine's noise was drawn (interp.NoiseText); the
	// caller fills it, empty when it was not.
	Noise string `json:"noise,omitempty"`

	// Scaling is "strong" (the same problem at every np) or "weak" (the
	// arguments, hence the problem, grow with np: Options.Weak).
	Scaling string `json:"scaling"`

	// Speedups and efficiencies are relative to the run at BaselineNP,
	// which took Baseline.
	BaselineNP int        `json:"baseline_np"`
	Baseline   trace.Time `json:"baseline_ps"`

	Rows []Row `json:"rows"` // one per process count predicted, by increasing np
	// Failed are the process counts whose prediction failed, by
	// increasing np: they have no row.
	Failed []Failure `json:"failed"`

	// SerialFraction is the fraction f of the baseline's work that is
	// done serially, fitted to the rows. In strong scaling it is
	// Amdahl's: T(np) = Baseline·(f + (1−f)/r) with r = np/BaselineNP.
	// In weak scaling the serial work grows with the problem, as the
	// parallel work does: T(np) = Baseline·(1 + f·(r−1)) (fitSerialFraction
	// says why). The fit is a closed-form least-squares fit of the
	// relative errors of the times (a line through the origin, gonum's
	// stat.LinearRegression), clamped to [0, 1] (strong) or [0, ∞)
	// (weak); exact data give f back. It is 0 when no row is at another
	// np than the baseline's.
	SerialFraction float64 `json:"serial_fraction"`
	// FitError is the root mean square of the relative error of the
	// fitted times over the rows: large when the time does not follow
	// the law (communication that grows with np, for one).
	FitError float64 `json:"fit_error"`
	// SMax is the bound on the speedup (scaled speedup in weak scaling)
	// that f implies, 1/SerialFraction; 0 when SerialFraction is 0 (no
	// bound).
	SMax float64 `json:"s_max"`

	// PeakNP is the process count of the largest speedup, PeakSpeedup
	// (the smallest such np on a tie).
	PeakNP      int     `json:"peak_np"`
	PeakSpeedup float64 `json:"peak_speedup"`
	// HalfEfficiencyNP is the first process count above BaselineNP whose
	// efficiency is below 0.5, or 0 if there is none.
	HalfEfficiencyNP int `json:"half_efficiency_np"`

	// Growing is the model node whose share of the time grows fastest
	// across the sweep; nil when no node's share grows.
	Growing *Growth `json:"growing,omitempty"`

	// Verdict is one line that says how far the program scales and what
	// stops it, derived from the figures above.
	Verdict string `json:"verdict"`
}

// A Failure is a process count whose prediction failed, with why: the
// program aborts at that np, a limit of the model, not enough memory.
type Failure struct {
	NP    int    `json:"np"`
	Error string `json:"error"`
}

// The values of Analysis.Scaling.
const (
	Strong = "strong"
	Weak   = "weak"
)

// A Row is the analysis at one process count.
type Row struct {
	NP    int        `json:"np"`
	Time  trace.Time `json:"time_ps"`
	Bound trace.Time `json:"bound_ps,omitempty"` // ± of Time
	// Args are the program's arguments at this np, in weak scaling (they
	// differ from np to np); nil otherwise.
	Args []string `json:"args,omitempty"`
	// Speedup is Baseline/Time, or in weak scaling the scaled speedup
	// r·Baseline/Time with r = NP/BaselineNP (the baseline's work per
	// rank done at NP ranks, relative to the baseline's time);
	// Efficiency is Speedup/r, 1 for perfect scaling: in weak scaling
	// Baseline/Time.
	Speedup    float64 `json:"speedup"`
	Efficiency float64 `json:"efficiency"`
	// The mean per-rank breakdown, as in Point; Idle is the mean time a
	// rank waits for the run to end after it finishes (Time minus the
	// rank's own total). The shares are of the machine's time np × Time:
	// they sum to 1 (or are all 0 when Time is 0).
	Compute      trace.Time `json:"compute_ps"`
	Comm         trace.Time `json:"comm_ps"`
	Wait         trace.Time `json:"wait_ps"`
	Idle         trace.Time `json:"idle_ps"`
	ComputeShare float64    `json:"compute_share"`
	CommShare    float64    `json:"comm_share"`
	WaitShare    float64    `json:"wait_share"`
	IdleShare    float64    `json:"idle_share"`
	// CoreWait and its share: ready while other ranks held every core of
	// the node (absent when no node has more ranks than cores).
	CoreWait      trace.Time `json:"core_wait_ps,omitempty"`
	CoreWaitShare float64    `json:"core_wait_share,omitempty"`
}

// HalfEfficiency is the efficiency below which a process count no longer
// counts as scaling.
const HalfEfficiency = 0.5

// Options say how to analyse a sweep.
type Options struct {
	// The baseline is the run speedups are relative to. When
	// BaselineTime is positive, it is the time of a run at BaselineNP
	// processes, measured or predicted elsewhere. Otherwise the baseline
	// is the point at BaselineNP when BaselineNP is positive, else the
	// point at np=1 if there is one, else the point of the smallest np.
	BaselineNP   int
	BaselineTime trace.Time
	// Weak says that the problem grows with np (the program's arguments
	// depend on it): efficiency is then Baseline/Time, speedups are
	// scaled speedups, and the serial fraction follows the weak law.
	Weak bool
}

// Analyze analyses the points of a sweep (in any order) and the process
// counts whose prediction failed.
//
// Errors are for points or baselines that cannot be analysed: no points,
// a process count below 1 or given twice, a time that is not positive, a
// negative breakdown, a baseline np without a point.
func Analyze(points []Point, failed []Failure, o Options) (Analysis, error) {
	points = slices.Clone(points)
	slices.SortFunc(points, func(a, b Point) int { return cmp.Compare(a.NP, b.NP) })
	if err := checkPoints(points); err != nil {
		return Analysis{}, err
	}
	base, err := findBaseline(points, o.BaselineNP, o.BaselineTime)
	if err != nil {
		return Analysis{}, err
	}

	a := Analysis{Scaling: Strong, BaselineNP: base.NP, Baseline: base.Time, Args: []string{}, Limits: []string{}}
	if o.Weak {
		a.Scaling = Weak
	}
	a.Failed = slices.Clone(failed)
	if a.Failed == nil {
		a.Failed = []Failure{}
	}
	slices.SortFunc(a.Failed, func(x, y Failure) int { return cmp.Compare(x.NP, y.NP) })
	a.Rows = make([]Row, len(points))
	for i, p := range points {
		r := Row{NP: p.NP, Time: p.Time, Bound: p.Bound, Compute: p.Compute, Comm: p.Comm, Wait: p.Wait, CoreWait: p.CoreWait, Idle: p.idle()}
		if o.Weak {
			r.Args = slices.Clone(p.Args)
		}
		scale := float64(p.NP) / float64(base.NP)
		r.Speedup = float64(base.Time) / float64(p.Time)
		if o.Weak {
			r.Speedup *= scale
		}
		r.Efficiency = r.Speedup / scale
		if total := p.machineTime(); total > 0 {
			r.ComputeShare = float64(p.Compute) / float64(total)
			r.CommShare = float64(p.Comm) / float64(total)
			r.WaitShare = float64(p.Wait) / float64(total)
			r.CoreWaitShare = float64(p.CoreWait) / float64(total)
			r.IdleShare = float64(r.Idle) / float64(total)
		}
		a.Rows[i] = r
		if r.Speedup > a.PeakSpeedup {
			a.PeakNP, a.PeakSpeedup = r.NP, r.Speedup
		}
		if a.HalfEfficiencyNP == 0 && r.NP > base.NP && r.Efficiency < HalfEfficiency {
			a.HalfEfficiencyNP = r.NP
		}
	}
	a.SerialFraction, a.FitError = fitSerialFraction(a.Rows, base.NP, base.Time, o.Weak)
	if a.SerialFraction > 0 {
		a.SMax = 1 / a.SerialFraction
	}
	a.Growing = fastestGrowing(points)
	a.Verdict = verdict(&a, base)
	return a, nil
}

// Weak reports whether the analysis is of weak scaling.
func (a Analysis) Weak() bool { return a.Scaling == Weak }

// checkPoints checks points sorted by np.
func checkPoints(points []Point) error {
	if len(points) == 0 {
		return fmt.Errorf("no predictions to analyse")
	}
	for i, p := range points {
		switch {
		case p.NP < 1:
			return fmt.Errorf("np=%d: process count less than 1", p.NP)
		case i > 0 && points[i-1].NP == p.NP:
			return fmt.Errorf("np=%d: two predictions", p.NP)
		case p.Time <= 0:
			return fmt.Errorf("np=%d: predicted time %v is not positive", p.NP, p.Time)
		case p.Compute < 0 || p.Comm < 0 || p.Wait < 0 || p.CoreWait < 0:
			return fmt.Errorf("np=%d: negative time in the breakdown (compute %v, comm %v, wait %v)",
				p.NP, p.Compute, p.Comm, p.Wait)
		}
	}
	return nil
}

// findBaseline returns the baseline run as a point. A baseline given by
// its time alone has no breakdown of its own: it counts as all
// computation.
func findBaseline(points []Point, np int, time trace.Time) (Point, error) {
	switch {
	case np < 0:
		return Point{}, fmt.Errorf("baseline np=%d: process count less than 1", np)
	case time < 0:
		return Point{}, fmt.Errorf("baseline time %v is negative", time)
	case time > 0 && np == 0:
		return Point{}, fmt.Errorf("baseline time %v given without its process count", time)
	}
	at := func(np int) (Point, bool) {
		i, ok := slices.BinarySearchFunc(points, np, func(p Point, np int) int { return cmp.Compare(p.NP, np) })
		if !ok {
			return Point{}, false
		}
		return points[i], true
	}
	switch {
	case time > 0:
		if p, ok := at(np); ok && p.Time == time {
			return p, nil
		}
		return Point{NP: np, Time: time, Compute: time}, nil
	case np > 0:
		p, ok := at(np)
		if !ok {
			return Point{}, fmt.Errorf("baseline np=%d: no prediction at that process count", np)
		}
		return p, nil
	}
	if p, ok := at(1); ok {
		return p, nil
	}
	return points[0], nil
}
