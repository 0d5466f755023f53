package interp

import (
	"maps"
	"slices"
	"testing"

	"github.com/predict-tools/predict/reduce"
)

// TestExecutedExternal holds reduce's list of the functions outside the
// program that the interpreter executes to the interpreter's own: each
// listed function has a version here (externalFunc, or exitOp's), and
// each function externalFunc knows is listed. A function executed but not
// listed would be opaque (recorded) for nothing; one listed but not
// executed would be computed as zero, a wrong answer.
func TestExecutedExternal(t *testing.T) {
	exits := map[string]bool{"os.Exit": true, "log.Fatal": true, "log.Fatalf": true, "log.Fatalln": true}
	c := &compiler{}
	for _, name := range slices.Sorted(maps.Keys(reduce.ExecutedExternal)) {
		if c.externalFunc(name, nil) == nil && !exits[name] {
			t.Errorf("reduce.ExecutedExternal lists %s, which the interpreter does not execute", name)
		}
	}
	known := append(slices.Collect(maps.Keys(mathFuncs)), slices.Collect(maps.Keys(mathFuncs2))...)
	known = append(known, switchCases(t)["compiler.externalFunc"]...)
	if len(known) < len(mathFuncs)+len(mathFuncs2)+10 {
		t.Fatalf("compiler.externalFunc has %d cases: renamed or moved? update this test", len(known)-len(mathFuncs)-len(mathFuncs2))
	}
	for _, name := range known {
		if !reduce.ExecutedExternal[name] {
			t.Errorf("the interpreter executes %s, which reduce.ExecutedExternal does not list (its result would be recorded, not computed)", name)
		}
	}
}
