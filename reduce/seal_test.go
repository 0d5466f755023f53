package reduce

import (
	"go/types"
	"strings"
	"testing"

	"github.com/predict-tools/predict/model"
	"golang.org/x/tools/go/ssa"
)

const sealSrc = `package main

import ("flag"; "math/rand")

type csr struct {
	ptr []int
	col []int
	val []float64
}

// build makes a random sparse matrix: the retry loop and the row lengths
// depend on random numbers.
func build(n int) *csr {
	m := &csr{ptr: make([]int, n+1)}
	for i := 0; i < n; i++ {
		k := rand.Intn(4)
		for j := 0; j < k; j++ {
			m.col = append(m.col, rand.Intn(n))
			m.val = append(m.val, 1)
		}
		m.ptr[i+1] = len(m.col)
	}
	return m
}

// mul is a sparse product: its inner bound is the row pointers.
func (m *csr) mul(v, out []float64) {
	for i := range out {
		s := 0.0
		for k := m.ptr[i]; k < m.ptr[i+1]; k++ {
			s += m.val[k] * v[m.col[k]]
		}
		out[i] = s
	}
}

// positive counts what a later branch needs: it must run.
func positive(xs []float64) int {
	c := 0
	for i := 0; i < len(xs); i++ {
		if xs[i] > 0 {
			c++
		}
	}
	return c
}

// find leaves early: it must run.
func find(xs []int, x int) int {
	for i := 0; i < len(xs); i++ {
		if xs[i] == x {
			return i
		}
	}
	return -1
}

// rect is a perfect nest whose inner bound is a field of a parameter,
// read in the inner loop's header.
type grid struct{ rows, cols int }

func rect(g grid, a []float64) {
	for i := 0; i < g.rows; i++ {
		for j := 0; j < g.cols; j++ {
			a[i*g.cols+j] = 1
		}
	}
}

func sink(int) {}

func main() {
	n := *size
	m := build(n)
	v, out := make([]float64, n), make([]float64, n)
	for it := 0; it < 10; it++ {
		m.mul(v, out)
	}
	if positive([]float64{1, -1, 2}) > 1 {
		sink(1)
	}
	sink(find([]int{1, 2, 3}, 2))
	rect(grid{3, 4}, make([]float64, 12))
}

var size = flag.Int("n", 100, "problem size")
`

// TestSealed checks which loops are sealed and what sealing drops.
func TestSealed(t *testing.T) {
	prog, rep := reduceSource(t, sealSrc, "main", Options{})
	sealed := map[string]bool{}
	for _, l := range rep.Plan.Loops {
		if l.Sealed {
			sealed[l.Node.Pos.String()] = true
		}
	}
	loops := map[string]*model.Node{}
	for _, f := range prog.Functions {
		model.Walk(f.Tree, func(n *model.Node) bool {
			if n.Kind == model.KindLoop {
				loops[f.ID+" "+n.Pos.String()] = n
			}
			return true
		})
	}
	want := map[string]bool{
		"build main.go:15-22":      true,  // nothing it computes is needed: mul is sealed
		"build main.go:17-20":      false, // inside a sealed loop
		"(*csr).mul main.go:28-34": true,  // the sparse product
		"(*csr).mul main.go:30-32": false, // inside it
		"positive main.go:40-44":   false, // c decides a branch after it
		"find main.go:50-54":       false, // left by a return
		"rect main.go:63-67":       true,  // a perfect nest
		"main main.go:76-78":       false, // calls mul, which has a loop
		"rect main.go:64-66":       false, // inside it
	}
	for key, n := range loops {
		w, ok := want[key]
		if !ok {
			t.Errorf("unexpected loop %s", key)
			continue
		}
		if got := n.Loop.Trip.Sealed; got != w || rep.Plan.Loop(n).Sealed != w {
			t.Errorf("%s: sealed %v (plan %v), want %v", key, got, rep.Plan.Loop(n).Sealed, w)
		}
	}
	if len(loops) != 9 {
		t.Errorf("%d loops, want 9: %v", len(loops), loops)
	}
	for _, f := range rep.Functions {
		switch f.ID {
		case "build", "(*csr).mul":
			// The random row lengths and the row pointers decide nothing.
			if len(f.Opaque) > 0 {
				t.Errorf("%s: opaque decisions %+v, want none (inside sealed loops)", f.ID, f.Opaque)
			}
		case "positive":
			if !strings.Contains(strings.Join(f.ControlVars, ","), "c") {
				t.Errorf("positive: control variables %v, want c", f.ControlVars)
			}
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
		}
	}
	// rect's inner bound g.cols is read in the inner header but does not
	// change in the nest: the interpreter may compute it on entry, so it
	// is kept.
	found := false
	for _, l := range rep.Plan.Loops {
		in := l.Inner
		if l.Node.Pos.String() != "main.go:63-67" || in == nil {
			continue
		}
		found = true
		if in == nil || !readsCols(in.Bound) {
			t.Errorf("rect: inner induction %+v, want a bound on g.cols", in)
		}
		for _, f := range prog.Functions {
			if kept, _ := keptInstrs(f); f.ID == "rect" && !containsMatch(kept, "cols") {
				t.Errorf("rect: the inner bound is not kept: %v", kept)
			}
		}
	}
	if !found {
		t.Errorf("rect: the nest's inner count is not known on entry (plan: Inner)")
	}

	// --exact seals nothing.
	_, rep = reduceSource(t, sealSrc, "main", Options{Exact: true})
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
