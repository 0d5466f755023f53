// This file defines the profile command: the timing pass.

package main

import (
	"bytes"
	"os"
	"time"

	"github.com/predict-tools/predict/estimator"
	"github.com/predict-tools/predict/scale"
	"github.com/spf13/cobra"
)

func init() { commands = append(commands, newProfileCmd) }

func newProfileCmd() *cobra.Command {
	var (
		np      int
		output  string
		alpha   float64
		timeout time.Duration
		tags    []string
		top     int
		fine    bool
		runs    int
		launch  string
	)
	cmd := &cobra.Command{
		Use:   "profile PKG [-- PROGRAM ARGS...]",
		Short: "Measure the program's fragments once on this machine (the timing pass)",
		Long: `Profile builds the model of PKG, reduces it, and builds an instrumented copy of
the program (probes are inserted into a copy of the sources, built with go build
-overlay: your tree is not touched). It runs the program without and with the
probes, alternately (--runs times each), at -np ranks and with the arguments after --, and writes the
profile: per fragment (straight-line code between control points, loops timed
whole) the executions, mean, standard deviation and extremes with the probe cost
subtracted, and the error bound of the mean; per loop its trip counts and
balance; per opaque decision its outcomes per rank. The profile is keyed by the
model's node IDs and the content hash of the sources.

Every function and iterated loop measured inside is also timed whole (a
region), so that the time between fragments (loop control, conditions, small
calls) is measured too and charged per call or per iteration. A pilot run with
probes finds the regions that take less than 40 probe pairs per execution: they
are timed whole with nothing timed inside (--fine keeps their fragments). The
fragment times are then scaled to the plain run's time outside commlib.

With --launcher (e.g. 'mpirun -np 2'), the programs are built with -tags mpi
(commlib's MPI runtime, which needs Open MPI's development files and cgo) and
every run of the pass runs under the launcher, one process a rank: the number
of ranks is the launcher's, changed in its words for the run that records the
decisions at a second np. Each rank writes its own measurements, merged into
one profile. The runs that measure the fragments alone or beside a memory load
need the in-process runtime: under a launcher they are skipped, and the profile
says so.`,
		Example: `  predict profile ./testprogs/stencil -np 1 -o stencil.profile.json -- -class W
  predict profile ./testprogs/stencil --launcher 'mpirun --oversubscribe -np 2' -o stencil.mpi.json -- -class W`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 || cmd.ArgsLenAtDash() == 0 {
				return usagef(cmd, "missing PKG: the program to profile, e.g. predict profile ./testprogs/stencil")
			}
			if dash := cmd.ArgsLenAtDash(); dash > 1 || (dash < 0 && len(args) > 1) {
				return usagef(cmd, "want one package before --, got %v (program arguments go after --)", args[:max(dash, len(args))])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if np < 1 {
				return usagef(cmd, "-np %d: want at least 1 rank", np)
			}
			var launcher *estimator.Launcher
			if cmd.Flags().Changed("launcher") {
				var err error
				if launcher, np, err = launcherFlag(cmd, launch, "np", np); err != nil {
					return err
				}
			}
			if runs < 1 {
				return usagef(cmd, "--runs %d: want at least 1 run", runs)
			}
			if alpha <= 0 || alpha >= 1 {
				return usagef(cmd, "--alpha %g: want a fraction between 0 and 1", alpha)
			}
			if err := checkDir(args[0]); err != nil {
				return err
			}
			var progArgs []string
			if dash := cmd.ArgsLenAtDash(); dash >= 0 {
				progArgs = args[dash:]
			}
			// Arguments in np ({np*65536}) are those of the profiled np,
			// as for run and scale.
			if err := scale.Args(progArgs).Check(); err != nil {
				return usagef(cmd, "program arguments: %v", err)
			}
			given := scale.Args(progArgs)
			progArgs, err := given.At(np)
			if err != nil {
				return usagef(cmd, "program arguments at -np %d: %v", np, err)
			}
			p, err := estimator.Run(estimator.Config{Pattern: args[0], Tags: tags, NP: np, Args: progArgs, ArgsAt: given.At,
				Alpha: alpha, Timeout: timeout, Fine: fine, Repeat: runs, Launcher: launcher, Log: cmd.ErrOrStderr()})
			if err != nil {
				return err
			}
			if output != "" {
				var buf bytes.Buffer
				if err := p.Write(&buf); err != nil {
					return err
				}
				if err := os.WriteFile(output, buf.Bytes(), 0o644); err != nil {
					return err
				}
			}
			return p.WriteSummary(cmd.OutOrStdout(), top)
		},
	}
	flags := cmd.Flags()
	flags.IntVar(&np, "np", 1, "number of ranks of the profiling run")
	flags.StringVarP(&output, "output", "o", "", "write the profile to `FILE` (JSON)")
	flags.Float64Var(&alpha, "alpha", 0.1, "balance threshold: a loop is balanced when D ≤ alpha·mean")
	flags.DurationVar(&timeout, "timeout", 10*time.Minute, "stop a run that takes longer than `DURATION`")
	flags.StringSliceVar(&tags, "tags", nil, "build `TAGS` (comma-separated), as for go build")
	flags.IntVar(&top, "top", 15, "print the `N` fragments that take most time")
	flags.IntVar(&runs, "runs", estimator.DefaultRuns, "runs of each program, plain and probed alternately: fragment means are medians over them")
	flags.StringVar(&launch, "launcher", "", "run the ranks under MPI with this launcher `COMMAND` (e.g. 'mpirun -np 2'; its -np/-n/-c sets the ranks), built with -tags mpi")
	flags.BoolVar(&fine, "fine", false, "time every fragment, even in regions cheaper than their probes (no pilot run)")
	return cmd
}
