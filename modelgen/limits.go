// This file defines modeling limits: an internal failure of predict on a
// program (a panic while its model is built, reduced, planned or
// interpreted) is caught and reported with the file:line of the program
// that was being worked on, never as a Go panic and its stack.

package modelgen

import (
	"fmt"
	"go/token"
)

// LimitError is an internal failure of predict on a program: a construct
// the model does not handle, or a bug of predict.
type LimitError struct {
	Pos  string // the program's file:line being worked on ("" when unknown)
	What string // the failure
}

func (e *LimitError) Error() string {
	if e.Pos == "" {
		return fmt.Sprintf("modeling limit: %s; please report it", e.What)
	}
	return fmt.Sprintf("modeling limit at %s: %s; please report it", e.Pos, e.What)
}

// CatchLimit, deferred, turns a panic into a *LimitError in *err; where
// (called only then) says which position of the program was being
// worked on.
func CatchLimit(err *error, where func() string) {
	r := recover()
	if r == nil {
		return
	}
	if le, ok := r.(*LimitError); ok {
		*err = le
		return
	}
	*err = &LimitError{Pos: where(), What: fmt.Sprint(r)}
}

// PosString is the file:line:col of p relative to the module, or "" when p
// is not a position.
func (l *Loaded) PosString(p token.Pos) string {
	if !p.IsValid() {
		return ""
	}
	return l.Pos(p).String()
}
