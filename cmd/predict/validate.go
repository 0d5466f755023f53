// This file defines the validate command: predicted against measured.

package main

import (
	"fmt"
	"slices"
	"time"

	"github.com/predict-tools/predict/scale"
	"github.com/predict-tools/predict/validate"
	"github.com/spf13/cobra"
)

func init() { commands = append(commands, newValidateCmd) }

func newValidateCmd() *cobra.Command {
	var (
		pf       predictFlags
		npList   string
		runs     int
		asJSON   bool
		maxError float64
		top      int
		noTrace  bool
		timeout  time.Duration
	)
	cmd := &cobra.Command{
		Use:   "validate PKG -np LIST [-- PROGRAM ARGS...]",
		Short: "Run the program for real and compare with the prediction, per np",
		Long: `Validate builds the program once, runs it for real --runs times at every np of
LIST on this machine, predicts the same np with the same profile and machine
(default: the cached or a fresh timing pass, and this machine's calibration), and prints per
np the measured time (the program's span, from its first rank's start to its last
rank's end: median, min, max, spread; and the whole process), the predicted time
and the error.

Where the difference is: one more run per np writes commlib's trace, which is
cut, like the modeled trace, into regions (per rank, the time inside the calls
at each call site, and the compute between two consecutive calls); the regions
whose measured and predicted times differ most are listed. The profile's quality
is stated (coverage: the time no fragment measured; probed against plain run;
error bound), and an error smaller than the real runs' own spread is marked as
within noise. The np are run in turn, run after run, so that each sees the
machine as the others do.

The machine's drift: among them the program runs at the profile's np and
arguments (runs of their own when LIST lacks it), and their median is set
against the timing pass's own plain runs. A machine that now runs the program
slower or faster than when it was profiled is said (a WARNING beyond the runs'
noise), and the column "at profile speed" gives each error with the real runs
divided by that drift: the model's error, apart from the machine's. Exit status 0
whatever the error, unless --max-error is exceeded (which reads the error, not
the error at profile speed).

With --launcher (e.g. 'mpirun --oversubscribe -np 2') the program is built with
-tags mpi and every real run runs under the launcher, one process a rank, its
number of ranks changed to each np of LIST; the automatic timing pass runs
under it too, at the launcher's number of ranks.`,
		Example: `  predict validate ./testprogs/stencil -np 1,2
  predict validate ./app -np 1,2,4 --runs 9 --max-error 10 -- -n 4096
  predict validate ./testprogs/stencil -np 1,2 --launcher 'mpirun --oversubscribe -np 2' -- -class S`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			pkg, progArgs, err := splitArgs(cmd, args)
			if err != nil {
				return err
			}
			if npList == "" {
				return usagef(cmd, "missing -np LIST, e.g. -np 1,2")
			}
			nps, err := scale.ParseRange(npList)
			if err != nil {
				return usagef(cmd, "%v", err)
			}
			if runs < 1 {
				return usagef(cmd, "--runs %d: want at least 1 real run per np", runs)
			}
			if maxError < 0 {
				return usagef(cmd, "--max-error %g: want a percentage of at least 0", maxError)
			}
			pf.progArgs = progArgs
			prog, prof, m, err := pf.setup(cmd, pkg, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			// The arguments at each np, and at the profile's, where the
			// runs that measure the machine's drift run.
			argsAt := map[int][]string{}
			for _, np := range append(slices.Clone(nps), max(prof.NP, 1)) {
				if argsAt[np], err = pf.argsAt(np); err != nil {
					return err
				}
			}
			rep, err := validate.Run(validate.Config{Program: prog, Profile: prof, Machine: m, NPs: nps, Runs: runs,
				Args: func(np int) []string { return argsAt[np] }, Threads: pf.threads, NoNoise: pf.noNoise, NoiseSeed: pf.noiseSeed, Timeout: timeout,
				Attribute: !noTrace, Launcher: pf.launcher, Log: cmd.ErrOrStderr()})
			if err != nil {
				return err
			}
			rep.Machine = m.Name
			if m.Name == "" {
				rep.Machine = pf.machine
			}
			rep.ProfileSource = pf.profileUsed
			rep.Noise = pf.noiseText(m)
			out := cmd.OutOrStdout()
			if asJSON {
				err = rep.WriteJSON(out)
			} else {
				err = rep.WriteText(out, top)
			}
			if err != nil {
				return err
			}
			failed := 0
			for _, p := range rep.Points {
				if p.Failed != "" && p.Predicted == 0 {
					failed++
					continue
				}
				if cmd.Flags().Changed("max-error") && 100*max(p.Error, -p.Error) > maxError {
					return fmt.Errorf("np=%d: error %+.1f%% is beyond --max-error %g%%", p.NP, 100*p.Error, maxError)
				}
			}
			if failed == len(rep.Points) {
				return fmt.Errorf("no np could be validated")
			}
			return nil
		},
	}
	pf.realRuns = true // --launcher runs the real runs too
	pf.add(cmd)
	fl := cmd.Flags()
	fl.StringVar(&npList, "np", "", "process counts: a list or range as for scale (1,2,4 or 1..8)")
	fl.IntVar(&runs, "runs", 5, "real runs per np (the median is compared)")
	fl.BoolVar(&asJSON, "json", false, "print the report as JSON (times in ps)")
	fl.Float64Var(&maxError, "max-error", 0, "fail (exit status 1) when an np's |error| is above `PERCENT`")
	fl.IntVar(&top, "top", 8, "regions listed per np")
	fl.BoolVar(&noTrace, "no-attribution", false, "skip the traced run and the regions")
	fl.DurationVar(&timeout, "timeout", 10*time.Minute, "stop a real run that takes longer than `DURATION`")
	return cmd
}
