// This file defines a validation: real runs and predictions at each np,
// and the attribution of their difference.

package validate

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/predict-tools/predict/estimator"
	"github.com/predict-tools/predict/interp"
	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/profile"
	"github.com/predict-tools/predict/trace"
)

// Config describes a validation.
type Config struct {
	Program *interp.Program
	Profile *profile.File // the profile the predictions use
	Machine *machine.Machine
	NPs     []int
	Runs    int                   // real runs per np (default 5)
	Args    func(np int) []string // the program's arguments at np
	Threads int                   // --threads, as for predictions (0: the program's choice)
	// NoNoise and NoiseSeed: the predictions' noise (interp.Config).
	NoNoise   bool
	NoiseSeed uint64
	Timeout   time.Duration // per real run (default 10 minutes)
	// Attribute runs the program once more per np with its trace and sets
	// it against the modeled trace.
	Attribute bool
	// Launcher, when set, runs the real runs under an MPI launcher, one
	// process a rank (built with the mpi tag), its number of ranks set
	// to each np.
	Launcher *estimator.Launcher
	Log      io.Writer // progress, or nil
}

// Report is the result of a validation.
type Report struct {
	Package string `json:"package"`
	// Machine and ProfileSource say what the predictions used (set by
	// the caller: a preset's name or a file, and where the profile came
	// from).
	Machine       string `json:"machine"`
	ProfileSource string `json:"profile_source"`
	// Noise says the predictions drew the machine's noise
	// (interp.NoiseText; set by the caller), empty when they did not.
	Noise string `json:"noise,omitempty"`
	Runs  int    `json:"runs"`
	// Launcher is the MPI launcher of the real runs ("" in one process).
	Launcher string  `json:"launcher,omitempty"`
	Points   []Point `json:"points"`
	Profile  Quality `json:"profile"`
	// Drift is the machine's speed now against the timing pass's
	// (drift.go); DriftUnknown says why there is none.
	Drift        *Drift `json:"drift,omitempty"`
	DriftUnknown string `json:"drift_unknown,omitempty"`
}

// Point is the validation at one np.
type Point struct {
	NP   int      `json:"np"`
	Args []string `json:"args"`
	// Measured is the program's span (first rank's start to last rank's
	// end) over the real runs; Process the whole process's time.
	Measured Spread `json:"measured"`
	Process  Spread `json:"process"`
	// Predicted is the model's time; Error (Predicted − median) / median.
	Predicted trace.Time `json:"predicted_ps"`
	Bound     trace.Time `json:"bound_ps,omitempty"` // ± of Predicted (interp.Result.Bound)
	Error     float64    `json:"error"`
	// ErrorAtProfileSpeed is Error with the real runs at the timing
	// pass's speed (divided by the drift), where the drift is known.
	ErrorAtProfileSpeed *float64 `json:"error_at_profile_speed,omitempty"`
	// WithinNoise: the real runs' spread is larger than |Error|.
	WithinNoise bool `json:"within_noise"`
	// Regions are where the difference is, largest first (with
	// Config.Attribute): the traced run against the modeled trace.
	Regions []RegionTime `json:"regions"`
	// TracedSpan is the traced run's span, the measured side of Regions.
	TracedSpan trace.Time `json:"traced_span_ps,omitempty"`
	// Limits are what the prediction left out, as it said them
	// (interp.Result.Limits): an error there may be that.
	Limits []string `json:"limits,omitempty"`
	// Failed is the error of a real run or prediction at this np.
	Failed string `json:"failed,omitempty"`
}

// Spread is the min, median and max of a set of times.
type Spread struct {
	Min    trace.Time `json:"min_ps"`
	Median trace.Time `json:"median_ps"`
	Max    trace.Time `json:"max_ps"`
}

// Relative is (max − min) / median: how much the runs vary.
func (s Spread) Relative() float64 {
	if s.Median <= 0 {
		return 0
	}
	return float64(s.Max-s.Min) / float64(s.Median)
}

func spreadOf(ts []trace.Time) Spread {
	s := slices.Clone(ts)
	slices.Sort(s)
	n := len(s)
	med := s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return Spread{Min: s[0], Median: med, Max: s[n-1]}
}

// Quality is what limits the profile's reading: the share of the plain
// run no fragment measured, the disagreement of its probed and plain
// runs, its error bound.
type Quality struct {
	NP          int      `json:"np"`
	Coverage    float64  `json:"coverage"`    // measured fragments + commlib time, against the plain run
	Uncovered   float64  `json:"uncovered"`   // max(0, 1 − coverage)
	Disturbance float64  `json:"disturbance"` // probed run (less its probes) against plain run, ≥ 1
	ErrorBound  float64  `json:"error_bound"` // the program-level bound of the fragments' means
	Warnings    []string `json:"warnings"`
}

// Run validates cfg.Program: real runs and predictions at each np.
func Run(cfg Config) (*Report, error) {
	if cfg.Program == nil || cfg.Machine == nil || cfg.Profile == nil {
		return nil, fmt.Errorf("validate: want a program, a machine and a profile")
	}
	if len(cfg.NPs) == 0 {
		return nil, fmt.Errorf("validate: no process count")
	}
	if cfg.Runs == 0 {
		cfg.Runs = 5
	}
	if cfg.Runs < 1 {
		return nil, fmt.Errorf("--runs %d: want at least 1 run per np", cfg.Runs)
	}
	if cfg.Args == nil {
		cfg.Args = func(int) []string { return nil }
	}
	logf := func(format string, args ...any) {
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, format+"\n", args...)
		}
	}
	work, err := os.MkdirTemp("", "predict-validate-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	bin, err := estimator.BuildPlain(cfg.Program.Loaded, work, cfg.Launcher, cfg.Log)
	if err != nil {
		return nil, err
	}
	bin.Threads = cfg.Threads // the real runs run the threads the predictions model
	p := cfg.Profile
	rep := &Report{Package: cfg.Program.Model.Package, Runs: cfg.Runs, Launcher: cfg.Launcher.String(), Profile: Quality{
		NP: p.NP, Coverage: p.Coverage(), Uncovered: max(0, 1-p.Coverage()), Disturbance: p.Disturbance(),
		ErrorBound: p.ErrorRel, Warnings: append([]string{}, p.Warnings...)}}
	sites := Sites{Root: cfg.Program.Loaded.ModuleDir}
	// The real runs first, all np in turn, run after run, so that every
	// np sees the machine as the others do; with them, the runs that
	// measure the drift at the profile's np when it is not in the list.
	refNP, why := driftRef(p, cfg.Args)
	if why == "" && cfg.Threads > 0 {
		why = fmt.Sprintf("these runs use --threads %d, the timing pass the program's own choice", cfg.Threads)
	}
	if l := cfg.Launcher.String(); why == "" && l != p.Launcher {
		why = fmt.Sprintf("the timing pass ran %s, these runs %s: the runtimes differ", whereRun(p.Launcher), whereRun(l))
	}
	sets := make([]*runSet, len(cfg.NPs))
	var ref *runSet
	for i, np := range cfg.NPs {
		sets[i] = &runSet{np: np, args: append([]string{}, cfg.Args(np)...)}
		if why == "" && np == refNP && ref == nil {
			ref = sets[i]
		}
	}
	all := sets
	if why == "" && ref == nil {
		ref = &runSet{np: refNP, args: append([]string{}, cfg.Args(refNP)...), extra: true}
		all = append(slices.Clone(sets), ref)
	}
	measureAll(cfg, bin, all, logf)
	if why == "" && ref.err != nil {
		why = fmt.Sprintf("the runs at the profile's np=%d failed", refNP)
	}
	if why == "" {
		rep.Drift = driftOf(p, ref.spans)
	} else {
		rep.DriftUnknown = why
	}
	for _, set := range sets {
		pt := Point{NP: set.np, Args: set.args, Regions: []RegionTime{}}
		if set.err != nil {
			pt.Failed = set.err.Error()
			rep.Points = append(rep.Points, pt)
			continue
		}
		pt.Measured, pt.Process = spreadOf(set.spans), spreadOf(set.procs)
		var modeled []trace.Event
		pcfg := interp.Config{NP: set.np, Machine: cfg.Machine, Profile: p, Args: pt.Args, Threads: cfg.Threads, NoNoise: cfg.NoNoise, NoiseSeed: cfg.NoiseSeed}
		if cfg.Attribute {
			// Only the calls of the main threads: the regions are cut
			// at them, and a program of tiny fragments charges millions
			// of compute events.
			pcfg.Trace = func(e trace.Event) {
				if e.Kind == trace.KindOp && e.Thread == 0 {
					modeled = append(modeled, e)
				}
			}
		}
		res, err := cfg.Program.Run(pcfg)
		if err != nil {
			pt.Failed = "prediction: " + err.Error()
			rep.Points = append(rep.Points, pt)
			continue
		}
		pt.Predicted, pt.Bound, pt.Limits = res.Time, res.Bound, res.Limits
		pt.Error = float64(res.Time-pt.Measured.Median) / float64(pt.Measured.Median)
		pt.WithinNoise = pt.Measured.Relative() > math.Abs(pt.Error)
		rep.Drift.Adjust(&pt)
		if cfg.Attribute {
			if err := attribute(cfg, bin, &pt, work, modeled, res.Time, sites, logf); err != nil {
				pt.Failed = "traced run: " + err.Error()
			}
		}
		rep.Points = append(rep.Points, pt)
	}
	return rep, nil
}

// whereRun says where runs under the launcher l ran ("": one process).
func whereRun(l string) string {
	if l == "" {
		return "in one process"
	}
	return "under --launcher " + l
}

// runSet is the real runs at one np.
type runSet struct {
	np           int
	args         []string
	spans, procs []trace.Time
	err          error // the first failed run: no more runs
	extra        bool  // runs for the drift only, no point of the report
}

// measureAll runs the program cfg.Runs times at each set's np, the sets in
// turn: run 1 at every np, then run 2, and so on.
func measureAll(cfg Config, bin *estimator.PlainProgram, sets []*runSet, logf func(string, ...any)) {
	start := time.Now()
	for i := range cfg.Runs {
		for _, set := range sets {
			if set.err != nil {
				continue
			}
			what := fmt.Sprintf("running at np=%d (%d of %d)…", set.np, i+1, cfg.Runs)
			if set.extra {
				what = fmt.Sprintf("running at np=%d, the profile's, for the machine's drift (%d of %d)…", set.np, i+1, cfg.Runs)
			}
			logf("%s", what)
			r, err := bin.Run(set.np, set.args, "", cfg.Timeout)
			if err != nil {
				set.err = err
				continue
			}
			set.spans = append(set.spans, trace.Time(r.Span.Nanoseconds())*trace.Nanosecond)
			set.procs = append(set.procs, trace.Time(r.Process.Nanoseconds())*trace.Nanosecond)
		}
	}
	if took := time.Since(start); took >= time.Second {
		logf("%d runs at each of %d np in %v", cfg.Runs, len(sets), took.Round(10*time.Millisecond))
	}
}

// attribute runs the program once more with its trace and cuts it and the
// modeled trace into regions.
func attribute(cfg Config, bin *estimator.PlainProgram, pt *Point, work string, modeled []trace.Event, modeledEnd trace.Time, sites Sites, logf func(string, ...any)) error {
	path := filepath.Join(work, fmt.Sprintf("trace-np%d.jsonl", pt.NP))
	logf("running at np=%d with its trace…", pt.NP)
	r, err := bin.Run(pt.NP, pt.Args, path, cfg.Timeout)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	_, events, err := trace.ReadJSONL(bytes.NewReader(data), path)
	if err != nil {
		return err
	}
	pt.TracedSpan = trace.Time(r.Span.Nanoseconds()) * trace.Nanosecond
	pt.Regions = Attribute(pt.NP, events, modeled, pt.TracedSpan, modeledEnd, sites)
	return nil
}
