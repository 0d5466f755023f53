package patterns_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/predict-tools/predict/interp"
	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/patterns/internal/progcheck"
)

// TestModeled checks the analysis of exact modeled traces against the want
// lines: for every pattern program, at the np of its want lines, each
// variant normally and with -near, the interpreter runs the program's model
// on the local machine with a profile that times nothing
// (progcheck.SyntheticProfile: the waits are exactly those of the
// busy-waits), and the analysis must report the expected pattern at the
// expected line with the expected lost time within 10 µs, and nothing at
// the line of a near miss. Unlike TestPrograms and TestPredicted it
// measures nothing, so it runs in every go test and cannot fail under load.
func TestModeled(t *testing.T) {
	root, dirs := patternPrograms(t)
	m, err := machine.Preset(predictMachine)
	if err != nil {
		t.Fatal(err)
	}
	// Exact waits: without the wake-up delays of the local preset, which
	// shift each wait by up to 17 us after the partner's own wait (the
	// real-run checks, TestPrograms and TestPredicted, meet them).
	m.Wakeup = nil
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			wants := programWants(t, root, dir)
			prog, err := interp.Prepare(root, progcheck.Package(dir))
			if err != nil {
				t.Fatal(err)
			}
			keys, runs := progcheck.Runs(wants)
			for _, k := range keys {
				for _, near := range []bool{false, true} {
					label := k.Label(near)
					prof, err := progcheck.SyntheticProfile(prog, k, near)
					if err != nil {
						t.Fatal(err)
					}
					p, err := progcheck.Predict(prog, prof, m, k, near)
					if err != nil {
						t.Fatalf("%s: interp: %v", label, err)
					}
					if len(p.Report.Warnings) > 0 {
						t.Errorf("%s: warnings on a modeled trace: %v", label, p.Report.Warnings)
					}
					problems := progcheck.Check(p.Report, runs[k], near, progcheck.ModeledTolerance, func(format string, args ...any) {
						t.Logf("%s: "+format, append([]any{label}, args...)...)
					})
					if len(problems) > 0 {
						t.Errorf("%s: %s", label, strings.Join(problems, "; "))
					}
				}
			}
		})
	}
}
