// This file defines the trace command and its convert subcommand: native
// traces to the formats of other tools.

package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/trace"
	"github.com/spf13/cobra"
)

func init() { commands = append(commands, newTraceCmd) }

func newTraceCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "trace COMMAND",
		Short: "Work with trace files (convert them to other tools' formats)",
		Long: `Trace works with trace files in the native format (JSON lines, written by a
program run with -trace FILE, or by predict for a prediction).

Commands: convert (to Chrome/Perfetto JSON, Paraver, GOAL for LogGOPSim, CSV,
or native JSON lines).`,
		SuggestionsMinimumDistance: 2,
		Args:                       unknownSubcommand(" for predict trace"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmd.Help()
		},
	}
	cmd.AddCommand(newTraceConvertCmd())
	return cmd
}

func newTraceConvertCmd() *cobra.Command {
	var to, machineName, goalUnit string
	cmd := &cobra.Command{
		Use:   "convert IN OUT [--to FORMAT]",
		Short: "Convert a native trace to another format",
		Long: `Convert reads the native trace IN (JSON lines; - is standard input) and writes
it to OUT in FORMAT:

  chrome   Chrome Trace Event JSON, for Perfetto (ui.perfetto.dev) and
           chrome://tracing: a process per rank, a thread track per rank
           thread, requests of Isend/Irecv on tracks of their own, messages
           as flow arrows from send to receive
  paraver  Paraver: writes BASE.prv, BASE.pcf and BASE.row, where BASE is
           OUT without .prv
  goal     a GOAL schedule for LogGOPSim (txt2bin, then LogGOPSim -f);
           collectives are expanded into the point-to-point messages of
           their algorithm: the one the interpreter ran (modeled traces
           record it), else the one --machine selects for the operation,
           size and np (MPICH's default selection without --machine);
           --goal-unit ps writes calc in picoseconds; the comments at the
           top of the file give the LogGOPSim command line (with
           --machine) and list the algorithms and approximations
  csv      one row per event, every field, times in picoseconds
  jsonl    the native format, sorted

Without --to the format comes from OUT's extension: .json chrome, .prv
paraver, .goal goal, .csv csv, .jsonl jsonl. OUT - writes to standard output
(not for paraver). Nothing is written when the command fails; errors in IN
name its line.`,
		Example: `  go run ./testprogs/stencil2d -np 4 -trace s.jsonl
  predict trace convert s.jsonl s.json            # open in ui.perfetto.dev
  predict trace convert s.jsonl s.prv             # s.prv, s.pcf, s.row for Paraver
  predict trace convert s.jsonl s.goal            # txt2bin -i s.goal -o s.bin; LogGOPSim -f s.bin
  predict trace convert s.jsonl s.goal --machine infiniband-hdr --goal-unit ps
  predict trace convert s.jsonl - --to csv`,
		Args: func(cmd *cobra.Command, args []string) error {
			switch len(args) {
			case 0:
				return usagef(cmd, "missing IN and OUT: the trace to read and the file to write")
			case 1:
				return usagef(cmd, "missing OUT: the file to write, e.g. %s.json", strings.TrimSuffix(args[0], ".jsonl"))
			case 2:
				return nil
			}
			return usagef(cmd, "want IN and OUT, got %d arguments: %s", len(args), strings.Join(args, " "))
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			in, out := args[0], args[1]
			format := to
			if format == "" {
				f, ok := trace.FormatOf(out)
				if !ok {
					return usagef(cmd, "OUT %s: cannot tell the format from its extension (.json, .jsonl, .prv, .goal, .csv); give --to, one of %s",
						out, strings.Join(trace.Formats, ", "))
				}
				format = f
			}
			if !slices.Contains(trace.Formats, format) {
				return usagef(cmd, "--to %q: unknown format, want one of %s", format, strings.Join(trace.Formats, ", "))
			}
			if out == "-" && format == "paraver" {
				return usagef(cmd, "OUT -: the paraver format is three files (.prv, .pcf, .row); give a file name")
			}
			goal, err := goalOptions(cmd, format, machineName, goalUnit)
			if err != nil {
				return err
			}
			r, name := io.Reader(cmd.InOrStdin()), "standard input"
			if in != "-" {
				f, err := os.Open(in)
				if err != nil {
					var pathErr *os.PathError
					if errors.As(err, &pathErr) {
						err = pathErr.Err
					}
					return fmt.Errorf("IN %s: %v", in, err)
				}
				defer f.Close()
				r, name = f, in
			}
			if out != "-" {
				return trace.ConvertGOALOptions(r, name, out, format, goal)
			}
			h, events, err := trace.ReadJSONL(r, name)
			if err != nil {
				return err
			}
			if format == "goal" {
				return trace.WriteGOALOptions(cmd.OutOrStdout(), h, events, goal)
			}
			return trace.Encode(cmd.OutOrStdout(), format, h, events)
		},
	}
	cmd.Flags().StringVar(&to, "to", "", "output `FORMAT`: "+strings.Join(trace.Formats, ", ")+" (default: from OUT's extension)")
	cmd.Flags().StringVar(&machineName, "machine", "", "goal: the `MACHINE` (a preset or a machine file) whose collective algorithms expand the collectives a trace does not record, and whose LogGOPS parameters the header's LogGOPSim command line gives")
	cmd.Flags().StringVar(&goalUnit, "goal-unit", "ns", "goal: the time `UNIT` of calc and of the LogGOPSim parameters, ns or ps (ps keeps every picosecond and per-byte costs under 1 ns/B)")
	return cmd
}

// goalOptions returns the GOAL writer's options of the flags, refusing
// them for other formats.
func goalOptions(cmd *cobra.Command, format, machineName, unitName string) (trace.GOALOptions, error) {
	var o trace.GOALOptions
	for _, f := range []string{"machine", "goal-unit"} {
		if cmd.Flags().Changed(f) && format != "goal" {
			return o, usagef(cmd, "--%s applies to the goal format only, not %s", f, format)
		}
	}
	unit, err := trace.ParseGOALUnit(unitName)
	if err != nil {
		return o, usagef(cmd, "--goal-unit %q: want ns or ps", unitName)
	}
	o.Unit = unit
	m := &machine.Machine{} // no overrides: the automatic choice
	o.Chooser = "MPICH's default selection (no --machine)"
	if machineName != "" {
		if m, err = machine.Resolve(machineName); err != nil {
			return o, usagef(cmd, "--machine %s: %v", machineName, err)
		}
		o.Chooser = "the machine " + machineName
		p := m.Inter
		o.Params = &trace.GOALParams{L: p.Latency, O: p.Overhead, Gap: p.GapPerMessage,
			G: float64(p.GapPerByte) / float64(machine.PicosecondPerByte), OPerByte: float64(p.OverheadPerByte) / float64(machine.PicosecondPerByte),
			EagerLimit: p.EagerLimit, Description: "the machine " + machineName, MultipleLevels: m.Intra != m.Inter}
	}
	o.Algorithm = func(op string, bytes int64, n int) (string, error) {
		a, err := m.CollectiveAlgorithm(op, bytes, n)
		return string(a), err
	}
	return o, nil
}
