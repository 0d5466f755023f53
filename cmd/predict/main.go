// This file defines the entry point: run the command line, print an error
// and map it to the exit status.

package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr))
}

// Exit statuses.
const (
	exitOK      = 0
	exitFailure = 1 // the command ran and failed: a package that does not load, ...
	exitUsage   = 2 // the command line is wrong: a flag, an argument
)

// Main runs predict with args and returns the exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	root := newRoot()
	root.SetArgs(longFlags(args))
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(stderr, "predict: %v\n", err)
	var usage *usageError
	if errors.As(err, &usage) {
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", usage.cmd.CommandPath())
		return exitUsage
	}
	return exitFailure
}

// longFlags accepts the MPI-style -np for --np (flags of predict itself,
// before a "--" that starts the program's arguments).
func longFlags(args []string) []string {
	out := make([]string, len(args))
	copy(out, args)
	for i, a := range out {
		if a == "--" {
			break
		}
		if a == "-np" || strings.HasPrefix(a, "-np=") {
			out[i] = "-" + a
		}
	}
	return out
}
