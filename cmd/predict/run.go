// This file defines the run command: one prediction.

package main

import (
	"bufio"
	"fmt"
	"os"

	"github.com/predict-tools/predict/interp"
	"github.com/predict-tools/predict/trace"
	"github.com/spf13/cobra"
)

func init() { commands = append(commands, newRunCmd) }

func newRunCmd() *cobra.Command {
	var (
		pf        predictFlags
		np        int
		traceFile string
		asJSON    bool
		top       int
		nodes     bool
	)
	cmd := &cobra.Command{
		Use:   "run PKG -np N [-- PROGRAM ARGS...]",
		Short: "Predict one run of the program at np ranks",
		Long: `Run interprets the reduced model of PKG for N logical processes on the target
machine: compute times come from the profile (measured once on this machine by
the timing pass, cached when not given), communication from the machine's
LogGOPS parameters. It prints the predicted time, per rank compute /
communication overhead / waiting (min, mean, max), the hot spots with
file:line, the opaque decisions replayed from the profile and the machine
parameters used; --trace writes the modeled event trace; --explain-node adds,
per node, the share of its cores in use, what its ranks and threads waited for
a core, and what sharing the node cost their compute. "{expr}" in a
program argument is replaced by the value of an integer expression in np
(see predict scale --help), at N and for the timing pass at --profile-np.

With --launcher (e.g. 'mpirun -np 2') the automatic timing pass runs under MPI,
one process a rank, as predict profile --launcher does: its ranks are the
launcher's, and its profile is cached apart from one measured in one process.`,
		Example: `  predict run ./testprogs/stencil -np 64 --machine infiniband-hdr
  predict run ./testprogs/cg -np 16 --trace cg16.jsonl -- -class W
  predict run ./testprogs/stencil -np 64 --launcher 'mpirun --oversubscribe -np 2' -- -class W`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			pkg, progArgs, err := splitArgs(cmd, args)
			if err != nil {
				return err
			}
			if np < 1 {
				return usagef(cmd, "-np %d: want at least 1 rank", np)
			}
			pf.progArgs = progArgs
			prog, prof, m, err := pf.setup(cmd, pkg, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			runArgs, err := pf.argsAt(np)
			if err != nil {
				return err
			}
			cfg := pf.noiseConfig(interp.Config{NP: np, Machine: m, Profile: prof, Args: runArgs, Threads: pf.threads, Nodes: nodes})
			var (
				events  []trace.Event
				dropped int64
			)
			if traceFile != "" {
				// The trace is held in memory to be sorted: past
				// maxTraceEvents, compute fragments (a program of tiny
				// fragments charges millions) are counted, not kept;
				// the calls are always kept.
				cfg.Trace = func(e trace.Event) {
					if e.Kind == trace.KindCompute && len(events) >= maxTraceEvents {
						dropped++
						return
					}
					events = append(events, e)
				}
			}
			r, err := prog.Run(cfg)
			if err != nil {
				return err
			}
			if dropped > 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "predict: WARNING: the trace keeps the first %d events: %d later compute fragments are left out of %s (its calls are all there)\n", maxTraceEvents, dropped, traceFile)
			}
			if traceFile != "" {
				if err := writeTrace(traceFile, pkg, prog.Model.Package, np, runArgs, m.Inter.EagerLimit, events); err != nil {
					return err
				}
			}
			r.About = interp.About{Package: prog.Model.Package, Args: runArgs, Profile: pf.profileUsed, MachineFile: pf.machineFile}
			if asJSON {
				return r.WriteJSON(cmd.OutOrStdout(), top)
			}
			return r.WriteText(cmd.OutOrStdout(), top)
		},
	}
	pf.add(cmd)
	fl := cmd.Flags()
	fl.IntVar(&np, "np", 0, "number of ranks to predict")
	fl.StringVar(&traceFile, "trace", "", "write the modeled trace to `FILE` (JSON lines, see the trace format)")
	fl.BoolVar(&asJSON, "json", false, "print the result as JSON")
	fl.IntVar(&top, "top", 10, "hot spots to show")
	fl.BoolVar(&nodes, "explain-node", false, "show how each node's cores were used: busy share, waiting for a core, the cost of sharing the node")
	return cmd
}

// maxTraceEvents is how many events a modeled trace holds before its
// compute fragments are left out (about 1 GB of memory).
const maxTraceEvents = 5_000_000

func writeTrace(path, pkg, importPath string, np int, args []string, eager int64, events []trace.Event) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	trace.Sort(events)
	bw := bufio.NewWriter(f)
	err = trace.WriteJSONL(bw, trace.Header{Format: trace.FormatName, Version: trace.FormatVersion, Source: "interp",
		Program: pkg, Package: importPath, NP: np, Args: args, Clock: "virtual", EagerLimit: int(eager)}, events)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
