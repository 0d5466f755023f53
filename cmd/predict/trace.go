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
	var to string
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
           collectives are expanded into point-to-point messages, and the
           comments at the top of the file list the approximations made
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
				return trace.Convert(r, name, out, format)
			}
			h, events, err := trace.ReadJSONL(r, name)
			if err != nil {
				return err
			}
			return trace.Encode(cmd.OutOrStdout(), format, h, events)
		},
	}
	cmd.Flags().StringVar(&to, "to", "", "output `FORMAT`: "+strings.Join(trace.Formats, ", ")+" (default: from OUT's extension)")
	return cmd
}
