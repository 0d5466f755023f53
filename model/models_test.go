// This file defines the real models the tests of this package print and
// read: built by modelgen, once per test binary.

package model_test

import (
	"sync"
	"testing"

	"github.com/predict-tools/predict/model"
	"github.com/predict-tools/predict/modelgen"
)

// realModel is a program modelgen builds from a package of this module.
type realModel struct {
	pattern string
	opts    modelgen.Options
	once    sync.Once
	loaded  *modelgen.Loaded
	err     error
}

var (
	// stencil is an SPMD test program: loops, calls of every kind.
	stencil = &realModel{pattern: "../testprogs/stencil"}
	// shapes has what stencil lacks: a region, break, continue, a
	// switch, a recover tree.
	shapes = &realModel{pattern: "./testdata/shapes", opts: modelgen.Options{Func: "main"}}
)

// build returns a fresh model of m (each call builds anew, so tests may
// change it); the package is loaded once.
func (m *realModel) build(t *testing.T) *model.Program {
	t.Helper()
	m.once.Do(func() {
		m.loaded, m.err = modelgen.Load(modelgen.Config{Pattern: m.pattern})
	})
	if m.err != nil {
		t.Fatalf("loading %s: %v", m.pattern, m.err)
	}
	p, err := modelgen.Build(m.loaded, m.opts)
	if err != nil {
		t.Fatalf("building %s: %v", m.pattern, err)
	}
	return p
}
