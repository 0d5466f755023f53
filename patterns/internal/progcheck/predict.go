// This file defines predicted runs of the pattern programs: the timing
// pass, the interpretation with a trace and the analysis of the trace.

package progcheck

import (
	"github.com/predict-tools/predict/estimator"
	"github.com/predict-tools/predict/interp"
	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/patterns"
	"github.com/predict-tools/predict/profile"
	"github.com/predict-tools/predict/trace"
)

// Package returns the import pattern of program dir, relative to the
// module's root: "./testprogs/patterns/barrier".
func Package(dir string) string { return "./testprogs/" + dir }

// Profile runs the timing pass of program dir (relative to root/testprogs)
// for run r at its np, with the program's arguments of r. It builds and
// runs the program twice.
func Profile(root, dir string, r Run, near bool) (*profile.File, error) {
	return estimator.Run(estimator.Config{Dir: root, Pattern: Package(dir), NP: r.NP, Args: r.Args(near)})
}

// SyntheticProfile returns a profile of prog for run r that times nothing:
// every compute fragment costs 0, so a modeled run's only time is that of
// its busy-waits (progutil.Work's "for Wtime() < end" loops take exactly
// their duration in modeled time) and of the machine's costs of the calls.
// A prediction from it is exact and does not depend on this machine or its
// load.
func SyntheticProfile(prog *interp.Program, r Run, near bool) (*profile.File, error) {
	hash, err := profile.ContentHash(prog.Loaded)
	if err != nil {
		return nil, err
	}
	return &profile.File{Format: profile.Format, Version: profile.Version,
		Package: prog.Model.Package, Module: prog.Model.Module, ContentHash: hash, NP: r.NP, Args: r.Args(near),
		Host: "synthetic", Created: "2026-01-01T00:00:00Z", Alpha: 0.1}, nil
}

// Eps is the noise threshold the want lines assume
// (testprogs/patterns/README.md): near misses wait at most 75 µs.
const Eps = trace.Millisecond

// Prediction is one predicted run and the analysis of its trace.
type Prediction struct {
	Result *interp.Result
	Events []trace.Event // the modeled trace, sorted
	Report *patterns.Report
}

// Predict interprets prog for run r on machine m with profile prof,
// collects the modeled trace, sorts it and analyzes it with the options
// of a real trace (its np and eager limit, the default Δ_SR) and the ε of
// the want lines, [Eps].
//
// Interpretations of one Program are not known to be safe at once:
// callers run them one at a time.
func Predict(prog *interp.Program, prof *profile.File, m *machine.Machine, r Run, near bool) (*Prediction, error) {
	var events []trace.Event
	res, err := prog.Run(interp.Config{NP: r.NP, Machine: m, Profile: prof, Args: r.Args(near),
		Trace: func(e trace.Event) { events = append(events, e) }})
	if err != nil {
		return nil, err
	}
	trace.Sort(events)
	rep := patterns.Analyze(events, patterns.Options{NP: r.NP, EagerLimit: m.Inter.EagerLimit, Eps: Eps})
	return &Prediction{Result: res, Events: events, Report: rep}, nil
}
