//go:build mpi

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/predict-tools/predict/validate"
)

// TestValidateUnderLauncher runs predict validate --launcher on the
// stencil (class S) at np 1 and 2 under mpirun: with no profile given,
// the timing pass runs under the launcher at its np (2), and every real
// run, the traced ones included, runs one process a rank with the
// launcher's -np changed to the np measured. Each np must come out with
// a prediction, a measured span, and regions from the traced run merged
// from the ranks' files. Structure and non-zero times, not timings: the
// machine is shared.
func TestValidateUnderLauncher(t *testing.T) {
	words := "mpirun --oversubscribe -np 2"
	if os.Geteuid() == 0 {
		words += " --allow-run-as-root"
	}
	t.Chdir("../..")
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // the profile cache: measured now, kept apart
	var stdout, stderr bytes.Buffer
	status := Main([]string{"validate", "./testprogs/stencil", "-np", "1,2", "--runs", "1", "--profile-runs", "1",
		"--launcher", words, "--json", "--", "-class", "S"}, &stdout, &stderr)
	if status != exitOK {
		t.Fatalf("status %d\n%s", status, stderr.String())
	}
	var rep validate.Report
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	if rep.Launcher != words || !strings.Contains(rep.ProfileSource, "under --launcher "+words) || rep.Profile.NP != 2 {
		t.Errorf("launcher %q, profile %q at np=%d: want the real runs and the timing pass (np 2) under %q", rep.Launcher, rep.ProfileSource, rep.Profile.NP, words)
	}
	if len(rep.Points) != 2 {
		t.Fatalf("%d points, want np 1 and 2\n%s", len(rep.Points), stdout.String())
	}
	for i, p := range rep.Points {
		if p.NP != i+1 || p.Failed != "" || p.Predicted <= 0 || p.Measured.Median <= 0 || p.Process.Median < p.Measured.Median {
			t.Errorf("np=%d: predicted %v, measured %v, process %v, failed %q", p.NP, p.Predicted, p.Measured.Median, p.Process.Median, p.Failed)
		}
		if p.TracedSpan <= 0 || len(p.Regions) == 0 {
			t.Errorf("np=%d: traced span %v, %d regions: want the traced run's regions", p.NP, p.TracedSpan, len(p.Regions))
		}
	}
	// The drift: the runs at np 2 against the timing pass's plain runs,
	// both under the launcher.
	if rep.Drift == nil {
		t.Errorf("no drift (%s)", rep.DriftUnknown)
	}
	if !strings.Contains(stderr.String(), "running the timing pass of ./testprogs/stencil at np=2 under --launcher "+words) {
		t.Errorf("stderr does not say the timing pass ran under the launcher:\n%s", stderr.String())
	}
	t.Logf("np=1: predicted %v, measured %v; np=2: predicted %v, measured %v", rep.Points[0].Predicted, rep.Points[0].Measured.Median,
		rep.Points[1].Predicted, rep.Points[1].Measured.Median)
}
