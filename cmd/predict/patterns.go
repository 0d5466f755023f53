// This file defines the patterns command: inefficiency patterns and the
// time decomposition of a trace.

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/predict-tools/predict/patterns"
	"github.com/predict-tools/predict/trace"
	"github.com/spf13/cobra"
)

func init() { commands = append(commands, newPatternsCmd) }

func newPatternsCmd() *cobra.Command {
	var (
		eps, gap time.Duration
		asJSON   bool
		ideal    string
	)
	cmd := &cobra.Command{
		Use:   "patterns TRACE",
		Short: "Find inefficiency patterns in a trace, with file:line",
		Long: `Patterns reads a native trace (a real run's -trace file, or a predicted one)
and reports where time is lost, per pattern, rank, thread and call site, with
the lost time, the number of instances and advice:

  point-to-point (Scalasca): LateSender, LateSenderAtWait, WrongOrder,
    LateReceiver, LateReceiverAtWait; SendRecvPair (ParJava: a send closely
    followed by a receive from the same peer, lost 0);
  collectives: WaitAtBarrier, BarrierCompletion, WaitAtNxN, NxNCompletion,
    LateBroadcast, EarlyReduce, EarlyScan;
  threads: LockContention, WaitAtThreadBarrier.

A second table gives the same waits in the ParJava (early/late sends by mode,
waits of nonblocking pairs with the optimal distance of the Wait, wrong message
order) and UPC (wait inside a collective) catalogs. Then, per rank, the useful
time (outside communication calls) and the split of the rest into starvation,
latency and overhead, and the POP factors.

Wait instances shorter than the noise threshold are not counted: --eps, or by
default a millionth of the run's span, and at least 100µs in a real trace (the
noise of the runtime and the operating system; a modeled trace has none, and
its waits are often many of a µs or less). The report says which threshold it
used and why.

--ideal gives the trace of the same run on an ideal network, for POP's
serialization and transfer factors: the same program, np and program
arguments (commlib's -np, -trace and -eager aside), or it is refused.`,
		Example: `  go run ./testprogs/patterns/latesender -np 2 -trace ls.jsonl
  predict patterns ls.jsonl
  predict patterns ls.jsonl --eps 100us --json
  predict run ./testprogs/stencil -np 8 --trace s8.jsonl
  predict run ./testprogs/stencil -np 8 --machine ideal --trace s8-ideal.jsonl
  predict patterns s8.jsonl --ideal s8-ideal.jsonl`,
		Args: func(cmd *cobra.Command, args []string) error {
			switch len(args) {
			case 0:
				return usagef(cmd, "missing TRACE: the trace file to analyze, e.g. predict patterns run.jsonl")
			case 1:
				return nil
			}
			return usagef(cmd, "want one trace file (TRACE), got %d: %s", len(args), strings.Join(args, " "))
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if eps < 0 {
				return usagef(cmd, "--eps %v: want a duration of zero or more", eps)
			}
			if gap <= 0 {
				return usagef(cmd, "--sendrecv-gap %v: want a positive duration", gap)
			}
			h, events, err := readTrace(args[0])
			if err != nil {
				return err
			}
			opts := patterns.Options{
				SendRecvGap: trace.Time(gap.Nanoseconds()) * trace.Nanosecond,
				NP:          h.NP,
				EagerLimit:  int64(h.EagerLimit),
				Modeled:     h.Clock == "virtual" || h.Source == "interp",
			}
			if cmd.Flags().Changed("eps") {
				opts.Eps = max(trace.Time(eps.Nanoseconds())*trace.Nanosecond, 1) // 0: every wait
			}
			if ideal != "" {
				var ih trace.Header
				ih, opts.Ideal, err = readTrace(ideal)
				if err != nil {
					return err
				}
				caveat, err := patterns.SameRun(h, ih)
				if err != nil {
					return fmt.Errorf("--ideal %s: %v", ideal, err)
				}
				if caveat != "" {
					fmt.Fprintf(cmd.ErrOrStderr(), "predict: --ideal %s: %s\n", ideal, caveat)
				}
				if opts.Ideal == nil {
					opts.Ideal = []trace.Event{}
				}
			}
			rep := patterns.Analyze(events, opts)
			var buf bytes.Buffer
			if asJSON {
				err = rep.WriteJSON(&buf)
			} else {
				wd, _ := os.Getwd()
				err = rep.WriteText(&buf, wd)
			}
			if err != nil {
				return err
			}
			_, err = cmd.OutOrStdout().Write(buf.Bytes())
			return err
		},
	}
	flags := cmd.Flags()
	flags.DurationVar(&eps, "eps", 0,
		"noise threshold: waits shorter than `D` are not counted (0: count every wait; default: a millionth of the run's span, at least 100µs in a real trace)")
	flags.DurationVar(&gap, "sendrecv-gap", time.Duration(patterns.DefaultSendRecvGap/trace.Nanosecond),
		"Δ_SR: a receive entered less than `D` after a send to the same peer suggests Sendrecv")
	flags.BoolVar(&asJSON, "json", false, "print the report as JSON (times in picoseconds)")
	flags.StringVar(&ideal, "ideal", "", "trace `FILE` of the same run on an ideal network (POP serialization and transfer)")
	return cmd
}

// readTrace reads a native trace file.
func readTrace(name string) (trace.Header, []trace.Event, error) {
	f, err := os.Open(name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return trace.Header{}, nil, fmt.Errorf("TRACE %s: no such file", name)
		}
		return trace.Header{}, nil, err
	}
	defer f.Close()
	return trace.ReadJSONL(f, name)
}
