package modelgen

import (
	"bytes"
	"github.com/predict-tools/predict/internal/golden"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/predict-tools/predict/model"
	"github.com/predict-tools/predict/testprogs"
)

// testPrograms lists every test program, relative to this directory
// ("../testprogs/stencil", ...).
func testPrograms(t testing.TB) []string {
	dirs, err := testprogs.Dirs("../testprogs")
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range dirs {
		dirs[i] = "../testprogs/" + d
	}
	return dirs
}

// TestTestPrograms builds the model of every test program and checks it
// against its golden text form (go test ./modelgen -update rewrites them),
// the coverage property and random walks against the CFG.
func TestTestPrograms(t *testing.T) {
	for _, dir := range testPrograms(t) {
		name := strings.TrimPrefix(dir, "../testprogs/")
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			l, err := Load(Config{Dir: "..", Pattern: "./" + strings.TrimPrefix(dir, "../")})
			if err != nil {
				t.Fatal(err)
			}
			prog, ssaOf, err := BuildWithSSA(l, Options{})
			if err != nil {
				t.Fatal(err)
			}
			// A bound on real time: only where timing checks are asked
			// for (PREDICT_TIMING_TESTS=1), a loaded machine exceeds it.
			if d := time.Since(start); d > 5*time.Second && os.Getenv("PREDICT_TIMING_TESTS") == "1" {
				t.Errorf("building the model took %v", d)
			}
			for _, f := range prog.Functions {
				if r := f.Regions(); r > 0 {
					t.Errorf("%s: %d unstructured regions in a test program", f.ID, r)
				}
				checkCoverage(t, f, ssaOf[f])
				checkWalks(t, f, ssaOf[f], 30)
				checkLoopPositions(t, f)
			}
			var buf bytes.Buffer
			if err := prog.WriteText(&buf); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "golden", strings.ReplaceAll(name, "/", "_")+".txt"), buf.Bytes())
		})
	}
}

// TestDeterministic builds one model twice and compares the JSON forms.
func TestDeterministic(t *testing.T) {
	var outs []string
	for range 2 {
		l, err := Load(Config{Dir: "..", Pattern: "./testprogs/hybrid"})
		if err != nil {
			t.Fatal(err)
		}
		prog, err := Build(l, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		prog.WriteText(&buf)
		outs = append(outs, buf.String())
	}
	if outs[0] != outs[1] {
		t.Errorf("two builds differ:\n%s", golden.FirstDiff(outs[0], outs[1]))
	}
}

var _ = model.KindSeq

// checkLoopPositions checks that no two loops of f start at the same
// position: each has its own statement (the timing pass keys loops by
// where they start). A range over an integer whose body is only another
// loop has no positioned instruction of its own, and once took the inner
// loop's statement.
func checkLoopPositions(t *testing.T, f *model.Function) {
	t.Helper()
	at := map[model.Pos]string{}
	for _, tree := range []*model.Node{f.Tree, f.Recover} {
		model.Walk(tree, func(n *model.Node) bool {
			if n.Kind != model.KindLoop || !n.Pos.Start.IsValid() {
				return true
			}
			if other, ok := at[n.Pos.Start]; ok {
				t.Errorf("%s: loops %s and %s both start at %s", f.ID, other, n.ID, n.Pos.Start)
			}
			at[n.Pos.Start] = n.ID
			return true
		})
	}
}
