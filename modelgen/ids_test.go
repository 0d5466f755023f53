package modelgen

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/predict-tools/predict/model"
)

// TestStableIDs checks that node IDs do not change when unrelated code
// changes: a function added above, and lines added to another function.
func TestStableIDs(t *testing.T) {
	const target = `
func work(xs []float64, n int) float64 {
	s := 0.0
	for i := 0; i < n; i++ {
		if xs[i] > 0 {
			s += xs[i]
		} else {
			s -= xs[i]
		}
	}
	return s
}
`
	before := "package main\n\nfunc main() { _ = work(nil, 0) }\n" + target
	after := "package main\n\n// A comment and a new function above.\nfunc helper(a, b int) int {\n\tif a > b {\n\t\treturn a\n\t}\n\treturn b\n}\n\nfunc main() {\n\t_ = helper(1, 2)\n\t_ = work(nil, 0)\n}\n" + target
	ids := func(src string) []string {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module stable\n\ngo 1.26\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644)
		l, err := Load(Config{Dir: dir, Pattern: "."})
		if err != nil {
			t.Fatal(err)
		}
		prog, err := Build(l, Options{Func: "work"})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		model.Walk(prog.Func("work").Tree, func(n *model.Node) bool {
			out = append(out, n.ID)
			return true
		})
		return out
	}
	a, b := ids(before), ids(after)
	if !slices.Equal(a, b) {
		t.Errorf("IDs changed with unrelated code:\nbefore %v\nafter  %v", a, b)
	}
	if len(a) < 10 {
		t.Errorf("only %d nodes: %v", len(a), a)
	}
	seen := map[string]bool{}
	for _, id := range a {
		if seen[id] {
			t.Errorf("duplicate ID %s", id)
		}
		seen[id] = true
	}
}
