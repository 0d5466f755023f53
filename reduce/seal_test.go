package reduce

import (
	"go/types"
	"strings"
	"testing"

	"golang.org/x/tools/go/ssa"
)

// TestSealed checks what sealing drops in testdata/want/nests, whose
// wants say which loops are sealed: the random construction and the
// sparse product's matrix are not kept, a count a later branch needs is;
// a perfect nest's inner bound, read in the inner header, is kept and
// known on entry; --exact seals nothing.
func TestSealed(t *testing.T) {
	const nests = "reduce/testdata/want/nests"
	prog, _, rep := reduceProgram(t, nests, Options{})
	for _, f := range rep.Functions {
		if f.ID == "positive" && !strings.Contains(strings.Join(f.ControlVars, ","), "c") {
			t.Errorf("positive: control variables %v, want c", f.ControlVars)
		}
	}
	for _, f := range prog.Functions {
		kept, _ := keptInstrs(f)
		switch f.ID {
		case "(*csr).mul":
			// Only the outer loop's test: len(out), the induction.
			if containsMatch(kept, "ptr") || containsMatch(kept, "col") {
				t.Errorf("mul keeps the matrix: %v", kept)
			}
		case "build":
			if containsMatch(kept, "rand") || containsMatch(kept, "append") {
				t.Errorf("build keeps the random construction: %v", kept)
			}
		case "positive":
			if !containsMatch(kept, "xs[") && !containsMatch(kept, "&xs") {
				t.Errorf("positive drops its data: %v", kept)
			}
		case "clear":
			if !containsMatch(kept, "cols") {
				t.Errorf("clear: the inner bound is not kept: %v", kept)
			}
		}
	}
	// clear's inner bound g.cols is read in the inner header but does not
	// change in the nest: the interpreter may compute it on entry.
	found := false
	for _, l := range rep.Plan.Loops {
		if l.Fn.Name() != "clear" || l.Inner == nil {
			continue
		}
		found = true
		if !readsCols(l.Inner.Bound) {
			t.Errorf("clear: inner induction %+v, want a bound on g.cols", l.Inner)
		}
	}
	if !found {
		t.Errorf("clear: the nest's inner count is not known on entry (plan: Inner)")
	}

	// --exact seals nothing.
	_, _, rep = reduceProgram(t, nests, Options{Exact: true})
	for _, l := range rep.Plan.Loops {
		if l.Sealed {
			t.Errorf("exact: %s sealed, want no sealed loop", l.Node.Pos)
		}
	}
}

// readsCols reports whether v reads the field cols (g.cols, directly or
// through g's address).
func readsCols(v ssa.Value) bool {
	switch v := v.(type) {
	case *ssa.Field:
		return v.X.Type().Underlying().(*types.Struct).Field(v.Field).Name() == "cols"
	case *ssa.UnOp:
		if fa, ok := v.X.(*ssa.FieldAddr); ok {
			return fa.X.Type().Underlying().(*types.Pointer).Elem().Underlying().(*types.Struct).Field(fa.Field).Name() == "cols"
		}
	}
	return false
}

// TestBoundWrittenByCall checks that a loop bound held in memory is
// invariant unless a function the loop calls may write it.
func TestBoundWrittenByCall(t *testing.T) {
	const src = `package main

var total int

func work(j int) int { total += j; return j * 2 }

func shrink(p *int) { *p-- }

// read: n lives in memory (a closure captures it) and work does not write it.
func read(n int) int {
	get := func() int { return n }
	s := 0
	for j := 0; j < n; j++ {
		s += work(j)
	}
	return s + get()
}

// written: shrink writes n through a pointer on every iteration.
func written(n int) int {
	s := 0
	for j := 0; j < n; j++ {
		shrink(&n)
		s += j
	}
	return s
}

func main() { _ = read(3) + written(4) }
`
	_, rep := reduceSource(t, src, "main", Options{})
	got := map[string]string{}
	for _, f := range rep.Functions {
		for _, l := range f.Loops {
			got[f.ID] = l.Formula
		}
	}
	if got["read"] != "max(0, n)" {
		t.Errorf("read: trips %q, want max(0, n) (work never writes n)", got["read"])
	}
	if got["written"] != "" {
		t.Errorf("written: trips %q, want no formula (shrink writes n)", got["written"])
	}
}
