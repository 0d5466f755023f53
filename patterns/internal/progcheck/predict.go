// This file defines predicted runs of the pattern programs: the timing
// pass, the interpretation with a trace and the analysis of the trace.

package progcheck

import (
	"github.com/predict-tools/predict/estimator"
	"github.com/predict-tools/predict/interp"
	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/patterns"
	"github.com/predict-tools/predict/trace"
)

// Package returns the import pattern of program dir, relative to the
// module's root: "./testprogs/patterns/barrier".
func Package(dir string) string { return "./testprogs/" + dir }

// Profile runs the timing pass of program dir (relative to root/testprogs)
// for run r at its np, with the program's arguments of r. It builds and
// runs the program twice.
func Profile(root, dir string, r Run, near bool) (*estimator.ProfileFile, error) {
	return estimator.Run(estimator.Config{Dir: root, Pattern: Package(dir), NP: r.NP, Args: r.Args(near)})
}

// Prediction is one predicted run and the analysis of its trace.
type Prediction struct {
	Result *interp.Result
	Events []trace.Event // the modeled trace, sorted
	Report *patterns.Report
}

// Predict interprets prog for run r on machine m with profile prof,
// collects the modeled trace, sorts it and analyzes it with the options
// of a real trace (its np and eager limit; the default ε and Δ_SR).
//
// Interpretations of one Program are not known to be safe at once:
// callers run them one at a time.
func Predict(prog *interp.Program, prof *estimator.ProfileFile, m *machine.Machine, r Run, near bool) (*Prediction, error) {
	var events []trace.Event
	res, err := prog.Run(interp.Config{NP: r.NP, Machine: m, Profile: prof, Args: r.Args(near),
		Trace: func(e trace.Event) { events = append(events, e) }})
	if err != nil {
		return nil, err
	}
	trace.Sort(events)
	rep := patterns.Analyze(events, patterns.Options{NP: r.NP, EagerLimit: m.Inter.EagerLimit})
	return &Prediction{Result: res, Events: events, Report: rep}, nil
}
