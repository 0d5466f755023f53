// This file defines calibration under an MPI launcher (predict calibrate
// --launcher 'mpirun -np 2'): the tester built with the mpi tag, run by
// the launcher one process a rank, and its measurements read back.

package estimator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// testerPackage is the tester's main package, in predict's module.
const testerPackage = "./estimator/internal/caltester"

// launchTimeout bounds the tester's run under the launcher.
const launchTimeout = 10 * time.Minute

// launchedNetwork measures the network part under opt.Launcher and puts it
// into cal.
func (cal *Calibration) launchedNetwork(opt CalibrateOptions, logf func(string, ...any)) error {
	l := opt.Launcher
	if err := l.Check(); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "predict-calibrate-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "caltester")
	logf("building the tester with -tags mpi")
	if err := testerBuilder(bin); err != nil {
		return err
	}
	out := filepath.Join(dir, "network.json")
	args := []string{"-o", out, fmt.Sprintf("-quick=%t", opt.Quick), fmt.Sprintf("-ci=%g", opt.RelCI),
		fmt.Sprintf("-budget=%s", opt.Budget), fmt.Sprintf("-max-bytes=%d", opt.MaxBytes), fmt.Sprintf("-collectives=%t", opt.Collectives), fmt.Sprintf("-cold=%t", opt.Cold)}
	logf("running the tester: %s %s %s", l, bin, strings.Join(args, " "))
	ctx, cancel := context.WithTimeout(context.Background(), launchTimeout)
	defer cancel()
	cmd, done := l.command(ctx, cancel, l.NP, bin, args, nil)
	log := opt.Log
	if log == nil {
		log = io.Discard
	}
	cmd.Stdout, cmd.Stderr = log, log
	runErr := cmd.Run()
	done()
	data, err := os.ReadFile(out)
	if err != nil {
		if runErr != nil {
			return fmt.Errorf("the tester under %s: %v", l, runErr)
		}
		return fmt.Errorf("the tester under %s wrote nothing: %v", l, err)
	}
	var net Calibration
	if err := json.Unmarshal(data, &net); err != nil {
		return fmt.Errorf("the tester's measurements: %v", err)
	}
	cal.Ranks, cal.RankHosts, cal.Timer, cal.EagerLimit = net.Ranks, net.RankHosts, net.Timer, net.EagerLimit
	cal.ClockSync, cal.SlotLead, cal.SelfTests, cal.PingPong = net.ClockSync, net.SlotLead, net.SelfTests, net.PingPong
	cal.SendCall, cal.SendCallBytes, cal.SendCall1, cal.CallCost, cal.StreamGap = net.SendCall, net.SendCallBytes, net.SendCall1, net.CallCost, net.StreamGap
	cal.Collectives = net.Collectives
	if net.Error != "" {
		return errors.New(net.Error)
	}
	if runErr != nil {
		return fmt.Errorf("the tester under %s: %v", l, runErr)
	}
	return nil
}

// testerBuilder builds the tester (tests replace it).
var testerBuilder = buildTester

// buildTester builds the tester with the mpi tag from predict's module,
// which go list finds from the current directory (a checkout of predict,
// or a module that requires it).
func buildTester(bin string) error {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/predict-tools/predict").Output()
	mod := strings.TrimSpace(string(out))
	if err != nil || mod == "" {
		return fmt.Errorf("--launcher: the tester is built from predict's sources, and go list does not find them from here "+
			"(run predict calibrate --launcher inside predict's module, or a module that requires it): %v", errText(err))
	}
	cmd := exec.Command("go", "build", "-tags", "mpi", "-o", bin, testerPackage)
	cmd.Dir = mod
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building the tester with -tags mpi (commlib's MPI runtime needs cgo and Open MPI's development files: "+
			"apt-get install openmpi-bin libopenmpi-dev pkg-config): %v\n%s", err, out)
	}
	return nil
}

func errText(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) && len(ee.Stderr) > 0 {
		return strings.TrimSpace(string(ee.Stderr))
	}
	if err == nil {
		return "no module directory"
	}
	return err.Error()
}

// nodesOf is the number of distinct hosts of the ranks (1 for none).
func nodesOf(hosts []string) int {
	h := slices.Clone(hosts)
	slices.Sort(h)
	return max(len(slices.Compact(h)), 1)
}
