package patterns_test

import (
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/predict-tools/predict/interp"
	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/patterns"
	"github.com/predict-tools/predict/patterns/internal/progcheck"
)

// predictMachine is the machine of the predicted runs. Local, the default
// of predict run, models the runtime the real traces come from (commlib's
// ranks as goroutines of one process), so a predicted trace should differ
// from a real one by modeled µs only; its nonzero costs also keep a
// message's arrival apart from its send's Enter, as in a real trace,
// where ideal would make them coincide.
const predictMachine = "local"

// profilePasses bounds the predictions (timing pass, model,
// interpretation) that run at once. The waits of a predicted trace come
// from the busy loops of progutil.Work as the timing pass measured them,
// and the model charges each call its trip count times the loop's mean
// time per iteration: a pass whose ranks share the CPUs with other work
// (another pass's ranks: 4 spinning ranks on 2 cores) skews the trip
// counts of its calls, and the waits with them. One at a time costs a few
// seconds over two: the passes are mostly builds.
const profilePasses = 1

// TestPredicted checks the analysis of predicted traces against the want
// lines, as TestPrograms does for real ones: for every pattern program, at
// the np of its want lines, each variant normally and with -near, the
// timing pass gives a profile, the interpreter a modeled trace on the
// local machine, and the analysis of the sorted trace (with the options of
// a real trace) must report the expected pattern at the expected line with
// the expected lost time, and nothing at the line of a near miss.
//
// An interpretation is deterministic but its profile is a measurement: on
// a loaded machine a busy loop's trip count says more about the CPU share
// of its rank than about its 10-50 ms. A variant whose check fails gets a
// fresh timing pass, up to attempts times, and every attempt is logged. It
// runs only with PREDICT_TIMING_TESTS=1; TestModeled is its exact form.
func TestPredicted(t *testing.T) {
	timingTests(t, "runs the timing pass of every pattern program, a measurement")
	root, dirs := patternPrograms(t)
	passes := make(chan struct{}, profilePasses)
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			wants := programWants(t, root, dir)
			// One model per program; its interpretations run one at a time.
			var mu sync.Mutex
			prepare := sync.OnceValues(func() (*interp.Program, error) {
				return interp.Prepare(root, progcheck.Package(dir))
			})
			predict := func(t *testing.T, k progcheck.Run, near bool) *patterns.Report {
				// The slot covers the model and the interpretation too:
				// they would take CPU from another pass's ranks.
				passes <- struct{}{}
				defer func() { <-passes }()
				prof, err := progcheck.Profile(root, dir, k, near)
				if err != nil {
					t.Fatalf("timing pass: %v", err)
				}
				m, err := machine.Preset(predictMachine)
				if err != nil {
					t.Fatal(err)
				}
				mu.Lock()
				defer mu.Unlock()
				prog, err := prepare()
				if err != nil {
					t.Fatal(err)
				}
				p, err := progcheck.Predict(prog, prof, m, k, near)
				if err != nil {
					t.Fatalf("interp: %v", err)
				}
				if len(p.Report.Warnings) > 0 {
					t.Errorf("warnings on a predicted trace: %v", p.Report.Warnings)
				}
				return p.Report
			}
			keys, runs := progcheck.Runs(wants)
			for _, k := range keys {
				for _, near := range []bool{false, true} {
					label := k.Label(near)
					t.Run(strings.ReplaceAll(label, " ", "_"), func(t *testing.T) {
						t.Parallel()
						var problems []string
						for attempt := 1; attempt <= attempts; attempt++ {
							rep := predict(t, k, near)
							problems = progcheck.Check(rep, runs[k], near, progcheck.Tolerance, func(format string, args ...any) {
								t.Logf("%s attempt %d: "+format, append([]any{label, attempt}, args...)...)
							})
							if len(problems) == 0 {
								break
							}
							t.Logf("%s attempt %d failed:\n  %s", label, attempt, strings.Join(problems, "\n  "))
						}
						if len(problems) > 0 {
							t.Errorf("%s: %s", label, strings.Join(problems, "; "))
						}
					})
				}
			}
		})
	}
}
