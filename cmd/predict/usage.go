// This file defines usage errors: a wrong command line, as opposed to a
// command that ran and failed.

package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

// usageError is an error in the command line of cmd.
type usageError struct {
	cmd *cobra.Command
	err error
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// usagef returns a usageError of cmd.
func usagef(cmd *cobra.Command, format string, args ...any) error {
	return &usageError{cmd: cmd, err: fmt.Errorf(format, args...)}
}
