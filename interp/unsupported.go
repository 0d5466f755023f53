// This file finds, before any run, what the interpreter does not support
// in the code the model keeps: the same constructs a run stops at, found
// by compiling every function reachable from the program's main without
// running it.

package interp

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Unsupported is a construct of the kept code that the interpreter does
// not support: a run that reaches it stops there.
type Unsupported struct {
	Pos  string // file:line:col
	What string
}

func (u Unsupported) String() string { return u.Pos + ": " + u.What }

// Unsupported compiles every function the program's init and main reach
// through the kept code (static calls, closures and function values; not
// calls through interfaces the model resolves only when it runs) and
// returns what the interpreter does not support in them, by position.
// The timing pass measures for minutes what a prediction then cannot use
// when one of them is reached: run, scale and validate say them before
// it. One in code no run reaches is harmless, which the caller cannot
// know; the prediction's own run stops at the first one it reaches.
func (prog *Program) Unsupported() ([]Unsupported, error) {
	cp, err := prog.compile(nil, nil, nil, false)
	if err != nil {
		return nil, err
	}
	c := cp.comp
	c.listUnsupported = true
	for _, name := range []string{"init", "main"} {
		if f := prog.Loaded.Main.Func(name); f != nil {
			c.fn(f)
		}
	}
	c.drain()
	out := slices.Clone(c.unsupported)
	slices.SortFunc(out, func(a, b Unsupported) int {
		return cmp.Or(cmp.Compare(a.Pos, b.Pos), cmp.Compare(a.What, b.What))
	})
	return slices.Compact(out), nil
}

// UnsupportedError is the error of a program whose kept code holds
// constructs the interpreter does not support.
type UnsupportedError struct {
	Package string
	List    []Unsupported
}

func (e *UnsupportedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: the model holds %d construct(s) the interpreter does not support yet; a prediction stops at the first one its run reaches, so nothing was measured:", e.Package, len(e.List))
	for _, u := range e.List {
		fmt.Fprintf(&b, "\n  %s", u)
	}
	b.WriteString("\nwhat to do: write these another way (the README's \"Go inside a rank\" lists what the model follows), or, if no run reaches these, --allow-unsupported measures and predicts anyway")
	return b.String()
}
