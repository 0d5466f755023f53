// This file defines the root command.

package main

import (
	"strings"

	"github.com/spf13/cobra"
)

// newRoot returns the predict command with its subcommands.
func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "predict",
		Short: "Predict how a Go SPMD program scales, from its source",
		Long: `predict tells the author of a Go SPMD program (a main package written against
commlib) how the program will scale on a cluster before it runs there: it builds
a model of the program from its Go source, measures the cost of its fragments
once on one node, and interprets the model for any number of processes.

Commands: scale (the speedup sweep: table, Amdahl fit, plots), run (one
prediction and its modeled trace), model (the model of a program, or with
--reduced what decides its control flow), profile (the timing pass), patterns
(inefficiency patterns in a real or predicted trace), trace convert (Perfetto,
Paraver, GOAL, CSV), calibrate (this machine's machine file), validate
(predicted against measured), version, completion (shell completion scripts).`,
		SilenceUsage:               true,
		SuggestionsMinimumDistance: 2,
		SilenceErrors:              true,
		Args:                       unknownSubcommand(""),
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmd.Help()
		},
	}
	// --version prints the first line of predict version; cobra's
	// completion command writes shell completion scripts.
	root.Version = strings.TrimPrefix(strings.TrimSpace(versionText(false)), "predict ")
	root.SetVersionTemplate("predict {{.Version}}\n")
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return &usageError{cmd: cmd, err: err}
	})
	for _, c := range commands {
		root.AddCommand(c())
	}
	return root
}

// commands are the subcommands, each registered by the init function of
// its own file, in the order of the help text (sorted by cobra).
var commands []func() *cobra.Command

// unknownSubcommand is the Args check of a command with subcommands: an
// argument is an unknown subcommand (of what, for the message), with
// suggestions.
func unknownSubcommand(of string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return nil
		}
		hint := ""
		if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
			hint = " (did you mean " + strings.Join(s, " or ") + "?)"
		}
		return usagef(cmd, "unknown command %q%s%s", args[0], of, hint)
	}
}
