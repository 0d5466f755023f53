// This file defines the entry point: run the command line, print an error
// and map it to the exit status.

package main

import (
	"errors"
	"fmt"
	"io"
	"os"
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
	root.SetArgs(args)
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
