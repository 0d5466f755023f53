package estimator

import (
	"bytes"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/predict-tools/predict/modelgen"
	"github.com/predict-tools/predict/reduce"
)

// plan instruments a test program (dir relative to the module root).
func plan(t *testing.T, dir string) (*modelgen.Loaded, *Plan) {
	t.Helper()
	l, err := modelgen.Load(modelgen.Config{Dir: "..", Pattern: "./" + dir})
	if err != nil {
		t.Fatal(err)
	}
	prog, ssaOf, err := modelgen.BuildWithSSA(l, modelgen.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reduce.Reduce(l, prog, ssaOf, reduce.Options{}); err != nil {
		t.Fatal(err)
	}
	p, err := Instrument(l, prog, ssaOf)
	if err != nil {
		t.Fatal(err)
	}
	return l, p
}

// TestInstrumentKeepsLines checks that the instrumented files parse and
// keep every line where it was.
func TestInstrumentKeepsLines(t *testing.T) {
	for _, dir := range []string{"testprogs/stencil", "testprogs/masterworker", "testprogs/hybrid", "testprogs/ft"} {
		t.Run(dir, func(t *testing.T) {
			_, p := plan(t, dir)
			if len(p.Fragments) == 0 {
				t.Fatal("no fragments")
			}
			kinds := map[FragmentKind]int{}
			for _, f := range p.Fragments {
				kinds[f.Kind]++
			}
			t.Logf("%d fragments: %v", len(p.Fragments), kinds)
			for file, text := range p.Overlay {
				if _, err := parser.ParseFile(token.NewFileSet(), file, text, 0); err != nil {
					t.Errorf("%s does not parse: %v", file, err)
				}
				orig, err := os.ReadFile(file)
				if os.IsNotExist(err) {
					continue // an added file
				}
				if bytes.Count(orig, []byte("\n")) != bytes.Count(text, []byte("\n")) {
					t.Errorf("%s: line count changed", filepath.Base(file))
				}
				if testing.Verbose() && strings.HasSuffix(file, "jacobi.go") {
					t.Logf("%s", text)
				}
			}
		})
	}
}
