package estimator

import (
	"testing"

	"github.com/predict-tools/predict/interp"
	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/profile"
)

// profileCorpus prepares the corpus program name, profiles it at np 2
// with args, and returns both with the local preset, for the tests that
// check what a timing pass records by what the model then predicts.
func profileCorpus(t *testing.T, name string, args []string) (*interp.Program, *profile.File, *machine.Machine) {
	t.Helper()
	return profileProgram(t, "./testprogs/corpus/"+name, args)
}

// profileProgram is profileCorpus for the program at pattern (relative
// to the module's root).
func profileProgram(t *testing.T, pattern string, args []string) (*interp.Program, *profile.File, *machine.Machine) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs a program")
	}
	prog, err := interp.Prepare("..", pattern)
	if err != nil {
		t.Fatal(err)
	}
	p := profileWith(t, Config{Dir: "..", Pattern: pattern, Prepared: prog.Prepared, NP: 2, Args: args})
	m, err := machine.Preset("local")
	if err != nil {
		t.Fatal(err)
	}
	return prog, p, m
}
