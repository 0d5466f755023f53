// This file defines the calibrate command: the machine file of this
// machine's in-process runtime.

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/predict-tools/predict/estimator"
	"github.com/predict-tools/predict/machine"
	"github.com/spf13/cobra"
)

func init() { commands = append(commands, newCalibrateCmd) }

func newCalibrateCmd() *cobra.Command {
	var (
		output  string
		quick   bool
		asJSON  bool
		ci      float64
		budget  time.Duration
		maxSize string
		launch  string
		colls   bool
		buffers string
	)
	cmd := &cobra.Command{
		Use:   "calibrate [-o FILE] [--quick] [--json] [--launcher 'mpirun -np 2']",
		Short: "Measure this machine's communication, thread and memory costs into a machine file",
		Long: `Calibrate measures this machine's in-process runtime (ranks as goroutines of one
process, commlib.Run) by MPIPerf's method (seed-001) and writes a machine file with
origin "calibrated" that run, scale and validate take with --machine.

It first synchronises the ranks' clocks (offsets by the fastest round trip) and runs
the self-tests WaitPatternNull and WaitPatternUp in a schedule of time slots (no
barrier before timed launches; an operation's time is the maximum over ranks; late
or overrunning launches are left out and the window grows): if they fail, nothing
is written. It then measures a ping-pong table from 1 B to 4 MiB (powers of 2;
--quick: of 4), each size's first round trip apart, every mean a trimmed mean (25 %
cut at each tail) repeated until its 95 % confidence interval is within --ci or its
--budget is spent, when the machine is declared too noisy and nothing is written.
It fits LogGOPS (L, o, G, O) to the table by least squares on relative residuals,
with the eager limit S the runtime's (in-process exactly, COMMLIB_EAGER_LIMIT or
64 KiB; under MPI where the table jumps, a change of protocol), g from streams of
messages and O from the Send call; measures the thread primitives and the wake-up
of blocked ranks, the node's memory bandwidth (a STREAM triad,
one stream per core up to 8 (--quick: 4) within 1 GiB and a quarter of the memory
available, and one alone), the cost of allocating fresh memory per byte, and the
timer's and the probes' own costs; a memory figure that does not converge is
marked, not refused. With --collectives it also times
collectives at the job's np in time slots (max over ranks), for validating the
interpreter's collective models: they are reported, not written to the machine
file, and one that does not converge is marked, not refused.

The machine file holds the LogGOPS parameters, the table (which the interpreter
uses for transfer times) with its piecewise LogGP fit (the fewest size ranges, each
a line by relative least squares, within 5 % of every size, breaking at the eager
limit; the last range's cost per byte extends the table beyond its largest size),
the thread costs, the wake-up curve and the memory bandwidth; its source says how, when and where it was measured (host, CPU model, Go
version, load). Progress goes to stderr; the summary, or with --json the tables and
the fit, to stdout.

With --launcher (e.g. 'mpirun -np 2', or 'mpirun -np 2 --host a,b' between nodes),
the network part runs under MPI instead: a tester built with -tags mpi from predict's
module (go list must find it from the current directory; commlib's MPI runtime needs
cgo and Open MPI's development files) runs one process a rank under the launcher, and
ranks 0 and 1 are measured; the thread costs, the memory and the allocation are
measured in this process, on this node. The machine file is then named "mpi", with
the job's nodes, MPI's collectives (auto) and no wake-up curve.`,
		Example: `  predict calibrate -o local.machine.json
  predict calibrate --quick --json -o /tmp/quick.machine.json > calibration.json
  predict calibrate --launcher 'mpirun --oversubscribe -np 2' -o mpi.machine.json
  predict run ./testprogs/stencil -np 8 --machine local.machine.json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef(cmd, "calibrate takes no arguments, got %q (the machine file is -o FILE)", args)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if output == "" {
				return usagef(cmd, "-o \"\": want the machine file to write")
			}
			if !(ci > 0 && ci <= 50) {
				return usagef(cmd, "--ci %g: want a percentage above 0 and at most 50 (the half-width of the 95 %% interval of every mean)", ci)
			}
			if budget <= 0 {
				return usagef(cmd, "--budget %s: want a positive duration (the time each quantity may take)", budget)
			}
			maxBytes, err := machine.ParseBytes(maxSize)
			if err != nil || maxBytes < 2 || maxBytes > 1<<30 {
				return usagef(cmd, "--max-size %q: want a size from 2 B to 1 GiB (e.g. 4MiB)", maxSize)
			}
			if buffers != "hot" && buffers != "cold" {
				return usagef(cmd, "--buffers %q: want hot (one buffer per size, reused) or cold (a rotation beyond the caches)", buffers)
			}
			opt := estimator.CalibrateOptions{Quick: quick, RelCI: ci / 100, MaxBytes: maxBytes, Collectives: colls, Cold: buffers == "cold",
				Log: cmd.ErrOrStderr()}
			if cmd.Flags().Changed("launcher") {
				l, err := estimator.ParseLauncher(launch)
				if err != nil {
					return usagef(cmd, "%v", err)
				}
				if l.NP < 2 {
					return usagef(cmd, "--launcher %s: %d rank: calibration measures between ranks 0 and 1, want at least 2", l, l.NP)
				}
				opt.Launcher = l
			}
			if err := checkWritable(output); err != nil {
				return usagef(cmd, "-o %s: %v", output, err)
			}
			if cmd.Flags().Changed("budget") {
				opt.Budget = budget
			}
			cal, err := estimator.Calibrate(opt)
			if err != nil {
				if asJSON && cal != nil {
					_ = cal.WriteJSON(cmd.OutOrStdout()) // what was measured, for the diagnosis
				}
				return fmt.Errorf("calibrate: %v", err)
			}
			if err := cal.Machine.WriteFile(output); err != nil {
				return err
			}
			if asJSON {
				return cal.WriteJSON(cmd.OutOrStdout())
			}
			if err := cal.WriteSummary(cmd.OutOrStdout()); err != nil {
				return err
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "wrote %s\n", output)
			return err
		},
	}
	flags := cmd.Flags()
	flags.StringVarP(&output, "output", "o", "local.machine.json", "write the machine file to `FILE`")
	flags.BoolVar(&quick, "quick", false, "fewer sizes (powers of 4) to ±5 % in 0.5 s a quantity: a few seconds")
	flags.BoolVar(&asJSON, "json", false, "print the tables, the fit and the other measurements as JSON instead of the summary")
	flags.Float64Var(&ci, "ci", 2, "every mean's 95 % confidence interval within ± `PERCENT` of it (5 with --quick)")
	flags.DurationVar(&budget, "budget", 3*time.Second, "how long each quantity may take before the machine is declared too noisy (0.5s with --quick)")
	flags.StringVar(&maxSize, "max-size", "4MiB", "largest ping-pong message `SIZE`")
	flags.StringVar(&buffers, "buffers", "hot", "buffer `POLICY` of the ping-pongs: hot (one buffer per size, reused, as iterative programs do) or cold (a rotation through 64 MiB, beyond the caches)")
	flags.BoolVar(&colls, "collectives", false, "also time collectives (barrier, bcast, reduce, allreduce, gather, allgather, alltoall) at the job's np in time slots, max over ranks, to validate the interpreter's models")
	flags.StringVar(&launch, "launcher", "", "measure the network under MPI with this launcher `COMMAND` (e.g. 'mpirun -np 2'; at least 2 ranks)")
	cmd.PreRun = func(cmd *cobra.Command, args []string) {
		if quick && !cmd.Flags().Changed("ci") {
			ci = 5
		}
	}
	return cmd
}

// checkWritable reports whether a file can be written at path, without
// leaving one there: a calibration that fails must write nothing.
func checkWritable(path string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("is a directory")
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".predict-calibrate-*")
	if err != nil {
		return fmt.Errorf("cannot write there: %v", err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}
