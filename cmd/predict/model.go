// This file defines the model command: build the model of a package and
// print it.

package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/predict-tools/predict/interp"
	"github.com/predict-tools/predict/model"
	"github.com/predict-tools/predict/modelgen"
	"github.com/predict-tools/predict/reduce"
	"github.com/spf13/cobra"
)

// formats are the output formats of the model command.
var formats = map[string]func(*model.Program, io.Writer) error{
	"text": (*model.Program).WriteText,
	"json": (*model.Program).WriteJSON,
	"dot":  (*model.Program).WriteDOT,
}

func formatNames() string {
	var names []string
	for name := range formats {
		names = append(names, name)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

func init() { commands = append(commands, newModelCmd) }

func newModelCmd() *cobra.Command {
	var (
		funcID, format, output string
		tags                   []string
		reduced, exact         bool
	)
	cmd := &cobra.Command{
		Use:   "model PKG",
		Short: "Print the model of an SPMD program",
		Long: `Model loads PKG (one main package, a pattern such as ./testprogs/stencil),
builds the model of the SPMD body passed to commlib.Main or commlib.Run, of its
driver and of every function of the module they reach, and prints it: control
trees of loops, conditionals and leaves (cb computation, ufc/efc/cfc calls of the
program's, external and commlib functions, ret, ...), each with file:line.

With --func NAME it models one function of PKG (an ID as the model prints it:
main, main$1, (*grid).exchange) and what that function reaches; PKG then need
not be an SPMD program.

Formats: text (indented trees), json (the schema in model/SCHEMA.md, readable
by later commands), dot (Graphviz: predict model PKG --format dot | dot -Tsvg).

With --reduced it prints the reduction report instead (text or json): per
function, the instructions kept and dropped, the control parameters and
variables, the allocations kept as shapes only, the opaque decisions (whose
outcomes will come from the profile) with file:line and the reason, and the
loops with their trip-count formulas and whether they may be collapsed.
--exact keeps everything the decisions depend on (nothing is opaque).`,
		Example: `  predict model ./testprogs/stencil
  predict model ./testprogs/stencil --func sweep
  predict model ./testprogs/stencil --format dot -o stencil.dot
  predict model ./testprogs/stencil --reduced
  predict model ./testprogs/ft --reduced --format json`,
		Args: func(cmd *cobra.Command, args []string) error {
			switch len(args) {
			case 0:
				return usagef(cmd, "missing PKG: the package to model, e.g. predict model ./testprogs/stencil")
			case 1:
				return nil
			}
			return usagef(cmd, "want one package (PKG), got %d: %s", len(args), strings.Join(args, " "))
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			write, ok := formats[format]
			if !ok {
				return usagef(cmd, "--format %q: unknown format, want one of %s", format, formatNames())
			}
			if exact && !reduced {
				return usagef(cmd, "--exact applies to the reduction: use it with --reduced")
			}
			if reduced && format == "dot" {
				return usagef(cmd, "--reduced prints a report: --format text or json, not dot")
			}
			pattern := args[0]
			if err := checkDir(pattern); err != nil {
				return err
			}
			loaded, err := modelgen.Load(modelgen.Config{Pattern: pattern, Tags: tags})
			if err != nil {
				return err
			}
			prog, ssaOf, err := modelgen.BuildWithSSA(loaded, modelgen.Options{Func: funcID})
			if err != nil {
				return err
			}
			var rep *reduce.Report
			if reduced {
				if rep, err = reduce.Reduce(loaded, prog, ssaOf, reduce.Options{Exact: exact}); err != nil {
					return err
				}
			}
			if funcID == "" {
				// What run, scale and validate would refuse, said here
				// too, in the code the default reduction keeps.
				kept := rep
				if kept == nil || exact {
					if kept, err = reduce.Reduce(loaded, prog, ssaOf, reduce.Options{}); err != nil {
						return err
					}
				}
				if err := noteUnsupported(cmd.ErrOrStderr(), &reduce.Prepared{Loaded: loaded, Model: prog, SSA: ssaOf, Report: kept}); err != nil {
					return err
				}
			}
			var buf bytes.Buffer
			if reduced {
				if format == "json" {
					err = rep.WriteJSON(&buf)
				} else {
					err = rep.WriteText(&buf)
				}
				if err != nil {
					return err
				}
				return writeOutput(cmd, output, buf.Bytes())
			}
			if err := write(prog, &buf); err != nil {
				return err
			}
			return writeOutput(cmd, output, buf.Bytes())
		},
	}
	flags := cmd.Flags()
	flags.StringVar(&funcID, "func", "", "model the function with this `NAME` and what it reaches, instead of the SPMD body")
	flags.StringVar(&format, "format", "text", "output `FORMAT`: "+formatNames())
	flags.StringSliceVar(&tags, "tags", nil, "build `TAGS` (comma-separated), as for go build")
	flags.StringVarP(&output, "output", "o", "", "write to `FILE` instead of standard output")
	flags.BoolVar(&reduced, "reduced", false, "print the reduction report (text or json) instead of the model")
	flags.BoolVar(&exact, "exact", false, "with --reduced: keep everything, cut nothing as opaque (direct execution)")
	return cmd
}

// checkDir reports a package pattern that names a directory that does not
// exist, before go list says it less directly.
func checkDir(pattern string) error {
	if strings.Contains(pattern, "...") || !(filepath.IsAbs(pattern) || strings.HasPrefix(pattern, ".")) {
		return nil
	}
	info, err := os.Stat(pattern)
	switch {
	case err != nil:
		return fmt.Errorf("PKG %s: no such directory", pattern)
	case !info.IsDir():
		return fmt.Errorf("PKG %s: not a directory (PKG names a package: its directory or import path)", pattern)
	}
	return nil
}

// writeOutput writes data to the file named by the -o flag, or to the
// command's standard output when it is "" or "-".
func writeOutput(cmd *cobra.Command, file string, data []byte) error {
	if file == "" || file == "-" {
		_, err := cmd.OutOrStdout().Write(data)
		return err
	}
	if err := os.WriteFile(file, data, 0o666); err != nil {
		return fmt.Errorf("-o: %v", err)
	}
	return nil
}

// noteUnsupported tells w what the interpreter does not support in the
// code p keeps: run, scale and validate stop there before their timing
// pass.
func noteUnsupported(w io.Writer, p *reduce.Prepared) error {
	list, err := interp.New(p).Unsupported()
	if err != nil {
		return err
	}
	for _, u := range list {
		fmt.Fprintf(w, "note: not supported by the interpreter yet (run, scale and validate stop here before measuring; --allow-unsupported goes on): %s\n", u)
	}
	return nil
}
