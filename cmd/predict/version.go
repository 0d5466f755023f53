// This file defines the version command and --version: which predict this
// is, from the build information the go command records.

package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

func init() { commands = append(commands, newVersionCmd) }

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print predict's version, VCS revision and Go version",
		Long: `Version prints the module version of predict (a release for go install
…@version and go tool, "(devel)" for a build in a checkout), the VCS revision it
was built from (with "modified" when the tree had uncommitted changes), and the
Go version and platform. predict --version prints the first line.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprint(cmd.OutOrStdout(), versionText(true))
			return err
		},
	}
}

// versionText describes this build: one line, or with long the module,
// revision and Go lines.
func versionText(long bool) string {
	version, module, revision := "(unknown)", "github.com/predict-tools/predict", ""
	if info, ok := debug.ReadBuildInfo(); ok {
		if info.Main.Path != "" {
			module = info.Main.Path
		}
		if info.Main.Version != "" {
			version = info.Main.Version
		}
		settings := map[string]string{}
		for _, s := range info.Settings {
			settings[s.Key] = s.Value
		}
		if r := settings["vcs.revision"]; r != "" {
			revision = r
			var notes []string
			if t := settings["vcs.time"]; t != "" {
				notes = append(notes, t)
			}
			if settings["vcs.modified"] == "true" {
				notes = append(notes, "modified")
			}
			if len(notes) > 0 {
				revision += " (" + strings.Join(notes, ", ") + ")"
			}
		}
	}
	first := fmt.Sprintf("predict %s\n", version)
	if !long {
		return first
	}
	if revision == "" {
		revision = "not recorded (built without VCS information, e.g. go run or go test)"
	}
	return first + fmt.Sprintf("  module    %s %s\n  revision  %s\n  go        %s %s/%s\n",
		module, version, revision, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
