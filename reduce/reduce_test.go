package reduce

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/predict-tools/predict/model"
	"github.com/predict-tools/predict/modelgen"
)

// reduceSource writes src as the main package of a temporary module,
// models function fn and reduces it.
func reduceSource(t *testing.T, src, fn string, opts Options) (*model.Program, *Report) {
	t.Helper()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example\n\ngo 1.26\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644)
	l, err := modelgen.Load(modelgen.Config{Dir: dir, Pattern: "."})
	if err != nil {
		t.Fatal(err)
	}
	prog, ssaOf, err := modelgen.BuildWithSSA(l, modelgen.Options{Func: fn})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Reduce(l, prog, ssaOf, opts)
	if err != nil {
		t.Fatal(err)
	}
	return prog, rep
}

// keptInstrs returns the kept and dropped instruction texts of f.
func keptInstrs(f *model.Function) (kept, dropped []string) {
	model.Walk(f.Tree, func(n *model.Node) bool {
		if lf := n.Leaf; lf != nil {
			for i, text := range lf.Instrs {
				if slices.Contains(lf.Keep, i) {
					kept = append(kept, text)
				} else {
					dropped = append(dropped, text)
				}
			}
		}
		return true
	})
	return
}

func containsMatch(xs []string, sub string) bool {
	return slices.ContainsFunc(xs, func(x string) bool { return strings.Contains(x, sub) })
}

// TestSeedExample is the worked example of ParJava's model cleaning
// (seed-003 §4.2, figure 4), written in Go.
func TestSeedExample(t *testing.T) {
	const src = `package main

var gvar1, gvar2 int

func sink(int) {}

func f() {
	a := 2
	b := 3
	g(a, b)
}

func g(p1, p2 int) {
	a := p2 + 1
	sink(a)
	b := h(p1)
	sink(b)
	if gvar1 > 0 {
		sink(1)
	}
}

func h(p1 int) int {
	gvar1 = p1 + 5
	gvar2 = 6
	return gvar1 + gvar2
}

func main() { f() }
`
	prog, _ := reduceSource(t, src, "f", Options{})
	f, g, h := prog.Func("f"), prog.Func("g"), prog.Func("h")
	if f == nil || g == nil || h == nil {
		t.Fatalf("functions missing from the model: %v %v %v", f, g, h)
	}
	// g's p1 is a control parameter (it becomes gvar1 in h), p2 is not.
	if !slices.Equal(g.ControlParams, []int{0}) {
		t.Errorf("g control params %v, want [0] (p1)", g.ControlParams)
	}
	if !slices.Equal(h.ControlParams, []int{0}) {
		t.Errorf("h control params %v, want [0] (p1)", h.ControlParams)
	}
	if len(h.ControlResults) != 0 {
		t.Errorf("h's result is control (%v); the figure replaces it by a constant", h.ControlResults)
	}
	// In f, the call g(a, b) passes b as a constant.
	var callG *model.Leaf
	model.Walk(f.Tree, func(n *model.Node) bool {
		if n.Leaf != nil && n.Leaf.Callee == "g" {
			callG = n.Leaf
		}
		return true
	})
	if callG == nil || !slices.Equal(callG.ZeroArgs, []int{1}) {
		t.Errorf("f's call of g: zero args %v, want [1] (b)", callG)
	}
	// In g, a = p2 + 1 is deleted; b = h(p1) and the test of gvar1 stay.
	kept, dropped := keptInstrs(g)
	if !containsMatch(dropped, "p2 + 1") {
		t.Errorf("g keeps a = p2 + 1: kept %q", kept)
	}
	if !containsMatch(kept, "h(p1)") || !containsMatch(kept, "*gvar1") {
		t.Errorf("g drops b = h(p1) or the load of gvar1: kept %q dropped %q", kept, dropped)
	}
	// In h, gvar1 = p1 + 5 stays, gvar2 = 6 and the sum go.
	kept, dropped = keptInstrs(h)
	if !containsMatch(kept, "p1 + 5") || !containsMatch(kept, "*gvar1 = ") {
		t.Errorf("h drops gvar1 = p1 + 5: kept %q", kept)
	}
	if !containsMatch(dropped, "*gvar2 = 6") {
		t.Errorf("h keeps gvar2 = 6: kept %q", kept)
	}
	if containsMatch(kept, "+ t") {
		t.Errorf("h keeps the sum gvar1 + gvar2: kept %q", kept)
	}
}

// TestNests: trip counts of a rectangular and a triangular nest.
func TestNests(t *testing.T) {
	const src = `package main

func rect(a [][]float64, n, m int) float64 {
	s := 0.0
	for i := 0; i < n; i++ {
		for j := 0; j < m; j++ {
			s += a[i][j]
		}
	}
	return s
}

func tri(a [][]float64, n int) float64 {
	s := 0.0
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			s += a[i][j]
		}
	}
	return s
}

func main() { _ = rect(nil, 0, 0) + tri(nil, 0) }
`
	for fn, want := range map[string]string{
		"rect": "(max(0, n)) × (max(0, m))",
		"tri":  "Σ_{i: max(0, n) iterations} (max(0, n - (i + 1)))",
	} {
		_, rep := reduceSource(t, src, fn, Options{})
		var got string
		for _, f := range rep.Functions {
			if f.ID == fn && len(f.Loops) > 0 {
				got = f.Loops[0].Nest
				if !f.Loops[0].Candidate || !f.Loops[1].Candidate {
					t.Errorf("%s: the nest is not a collapse candidate: %+v", fn, f.Loops)
				}
			}
		}
		if got != want {
			t.Errorf("%s: nest %q, want %q", fn, got, want)
		}
	}
}
