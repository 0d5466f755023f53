// This file defines the scale command: the speedup sweep.

package main

import (
	"context"
	"fmt"
	"os"

	"github.com/predict-tools/predict/interp"
	"github.com/predict-tools/predict/scale"
	"github.com/spf13/cobra"
)

func init() { commands = append(commands, newScaleCmd) }

func newScaleCmd() *cobra.Command {
	var (
		pf       predictFlags
		npRange  string
		baseline int
		asJSON   bool
		asCSV    bool
		plotDir  string
		workers  int
	)
	cmd := &cobra.Command{
		Use:   "scale PKG -np RANGE [-- PROGRAM ARGS...]",
		Short: "Predict the speedup of the program over a range of np",
		Long: `Scale predicts the program at every np of the range (interpreted in parallel
across cores) and prints np, predicted time, speedup, efficiency and the
compute / communication / waiting shares; Amdahl's serial fraction f fitted and
S_max = 1/f; the np where speedup peaks and where efficiency falls below 50 %;
the fragment whose share grows fastest, with file:line; and a verdict. With no
--profile the timing pass runs once on this machine and is cached; with no
--machine this machine's quick calibration is used (measured on first use, a
few seconds, and cached; the local preset when it is refused). Ranges: 8..256 (doubling), 8..256:8
(step), 1,2,4,12 (list).

Program arguments may depend on np: "{expr}" in an argument is replaced at
each np by the value of an integer expression in np (+ - * / and
parentheses; {{ and }} are literal braces), for the prediction at that np
and for the timing pass at --profile-np. The sweep is then a weak-scaling
one: efficiency is T(1)/T(np), speedup the scaled speedup np·T(1)/T(np),
and the serial fraction follows the weak law T(np) = T(1)·(1 + f·(np−1)).

The breakdown is of the machine's time np × time: compute, communication
overhead, waiting for other ranks, and idle time after a rank finishes,
summing to 100 %. A np whose prediction fails (the program aborts there, a
limit of the model) is reported in the table and the others are finished;
the exit status is non-zero only when every np, or the baseline, failed.

With --launcher (e.g. 'mpirun -np 2') the automatic timing pass runs under MPI,
one process a rank, as predict profile --launcher does: its ranks are the
launcher's, and its profile is cached apart from one measured in one process.`,
		Example: `  predict scale ./testprogs/stencil -np 8..256
  predict scale ./testprogs/amdahl -np 1..1024 --machine infiniband-hdr --plot plots -- -serial 0.0083
  predict scale ./testprogs/amdahl -np 1..64 -- -work '{np*100000}'    # weak scaling
  predict scale ./testprogs/stencil -np 8..256 --launcher 'mpirun --oversubscribe -np 2'`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			pkg, progArgs, err := splitArgs(cmd, args)
			if err != nil {
				return err
			}
			if npRange == "" {
				return usagef(cmd, "missing -np RANGE, e.g. -np 8..256")
			}
			nps, err := scale.ParseRange(npRange)
			if err != nil {
				return usagef(cmd, "%v", err)
			}
			if asJSON && asCSV {
				return usagef(cmd, "--json and --csv: choose one")
			}
			pf.progArgs = progArgs
			prog, prof, m, err := pf.setup(cmd, pkg, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			runner := prog.Runner(prof, m) // compiled once per worker, run at every np
			predict := func(ctx context.Context, np int) (scale.Point, error) {
				args, err := pf.argsAt(np)
				if err != nil {
					return scale.Point{}, err
				}
				r, err := runner.Run(pf.noiseConfig(interp.Config{NP: np, Args: args, RankDetail: -1, Threads: pf.threads}))
				if err != nil {
					return scale.Point{}, err
				}
				pt := scale.Point{NP: np, Args: args, Time: r.Time, Bound: r.Bound, Compute: r.Compute.Mean, Comm: r.Comm.Mean, Wait: r.Wait.Mean, CoreWait: r.CoreWait.Mean, Limits: r.Limits}
				for _, h := range r.Hot {
					pt.Nodes = append(pt.Nodes, scale.NodeTime{ID: h.Node, Pos: h.Pos, Time: h.Time, Freq: h.Freq})
				}
				return pt, nil
			}
			a, err := scale.Sweep(cmd.Context(), scale.SweepOptions{NPs: nps, Baseline: baseline, Weak: scale.Args(progArgs).DependOnNP(),
				Workers: workers, Progress: scale.TerminalProgress(os.Stderr)}, predict)
			if err != nil {
				return err
			}
			a.Name, a.Machine, a.Profile = prog.Model.Package, pf.machineInfo(m), pf.profileUsed
			a.Noise = pf.noiseText(m)
			a.Args = append([]string{}, progArgs...)
			out := cmd.OutOrStdout()
			switch {
			case asJSON:
				err = a.WriteJSON(out)
			case asCSV:
				err = a.WriteCSV(out)
			default:
				err = a.WriteText(out)
			}
			if err != nil {
				return err
			}
			if plotDir != "" {
				files, err := scale.Plot(a, plotDir)
				if err != nil {
					return err
				}
				for _, f := range files {
					fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s\n", f)
				}
			}
			return nil
		},
	}
	pf.add(cmd)
	fl := cmd.Flags()
	fl.StringVar(&npRange, "np", "", "ranks to predict: 8..256 (doubling), 8..256:8 (step) or 1,2,4,12")
	fl.IntVar(&baseline, "baseline", 0, "np of the baseline time for speedups, predicted even when outside the range (default 1)")
	fl.BoolVar(&asJSON, "json", false, "print the analysis as JSON")
	fl.BoolVar(&asCSV, "csv", false, "print the table as CSV")
	fl.StringVar(&plotDir, "plot", "", "write speedup, efficiency and breakdown plots (PNG and SVG) to `DIR`")
	fl.IntVar(&workers, "workers", 0, "np values interpreted at once (default: the number of CPUs)")
	return cmd
}
