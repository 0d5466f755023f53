// This file defines Prepare: a program loaded, modeled and reduced once,
// which the timing pass and the interpreter both start from.

package reduce

import (
	"github.com/predict-tools/predict/model"
	"github.com/predict-tools/predict/modelgen"
	"golang.org/x/tools/go/ssa"
)

// Prepared is a program loaded (go/packages), built into SSA and its
// model, and reduced: its loop plan is Report.Plan.
type Prepared struct {
	Loaded *modelgen.Loaded
	Model  *model.Program
	SSA    map[*model.Function]*ssa.Function
	Report *Report
}

// Prepare loads the main package cfg names, builds its model and reduces
// it.
func Prepare(cfg modelgen.Config, opts Options) (*Prepared, error) {
	l, err := modelgen.Load(cfg)
	if err != nil {
		return nil, err
	}
	prog, ssaOf, err := modelgen.BuildWithSSA(l, modelgen.Options{})
	if err != nil {
		return nil, err
	}
	rep, err := Reduce(l, prog, ssaOf, opts)
	if err != nil {
		return nil, err
	}
	return &Prepared{Loaded: l, Model: prog, SSA: ssaOf, Report: rep}, nil
}
