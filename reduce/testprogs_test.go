package reduce

import (
	"bytes"
	"github.com/predict-tools/predict/internal/golden"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/predict-tools/predict/model"
	"github.com/predict-tools/predict/modelgen"
	"github.com/predict-tools/predict/testprogs"
	"golang.org/x/tools/go/ssa"
)

// reduceProgram models and reduces a test program (dir relative to the
// module root).
func reduceProgram(t *testing.T, dir string, opts Options) (*model.Program, map[*model.Function]*ssa.Function, *Report) {
	t.Helper()
	l, err := modelgen.Load(modelgen.Config{Dir: "..", Pattern: "./" + dir})
	if err != nil {
		t.Fatal(err)
	}
	prog, ssaOf, err := modelgen.BuildWithSSA(l, modelgen.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Reduce(l, prog, ssaOf, opts)
	if err != nil {
		t.Fatal(err)
	}
	return prog, ssaOf, rep
}

// testPrograms lists every test program, relative to the module root
// ("testprogs/stencil", ...).
func testPrograms(t *testing.T) []string {
	dirs, err := testprogs.Dirs("../testprogs")
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range dirs {
		dirs[i] = "testprogs/" + d
	}
	return dirs
}

// TestGoldenReports checks the reduction report of every test program
// (go test ./reduce -update rewrites them) and that reducing drops work.
func TestGoldenReports(t *testing.T) {
	for _, dir := range testPrograms(t) {
		name := strings.TrimPrefix(dir, "testprogs/")
		t.Run(name, func(t *testing.T) {
			_, _, rep := reduceProgram(t, dir, Options{})
			instrs, kept, dropped := rep.Totals()
			if instrs != kept+dropped || dropped == 0 {
				t.Errorf("instructions %d, kept %d, dropped %d", instrs, kept, dropped)
			}
			var buf bytes.Buffer
			rep.WriteText(&buf)
			golden.Check(t, filepath.Join("testdata", "golden", strings.ReplaceAll(name, "/", "_")+".txt"), buf.Bytes())
		})
	}
}

func functionReport(rep *Report, id string) *FunctionReport {
	for i := range rep.Functions {
		if rep.Functions[i].ID == id {
			return &rep.Functions[i]
		}
	}
	return nil
}

// TestStencil: the stencil keeps rank, size, n, the local size, the
// iteration counter, the neighbours and the message lengths, and drops the
// floating-point work; the -converge test of the residual is opaque.
func TestStencil(t *testing.T) {
	prog, ssaOf, rep := reduceProgram(t, "testprogs/stencil", Options{})
	body := functionReport(rep, "main$1")
	for _, v := range []string{"rank", "np", "n", "count", "iters", "left", "right", "maxIters"} {
		if !slices.Contains(body.ControlVars, v) {
			t.Errorf("main$1 does not keep %s; control variables %v", v, body.ControlVars)
		}
	}
	for _, f := range prog.Functions {
		fn := ssaOf[f]
		model.Walk(f.Tree, func(n *model.Node) bool {
			lf := n.Leaf
			if lf == nil {
				return true
			}
			for _, k := range lf.Keep {
				if bin, ok := fn.Blocks[lf.Block].Instrs[lf.First+k].(*ssa.BinOp); ok && isFloat(bin) {
					t.Errorf("%s keeps floating-point work %q at %s", f.ID, lf.Instrs[k], n.Pos)
				}
			}
			return true
		})
	}
	// The message lengths: the halo slices passed to Sendrecv are kept.
	found := false
	model.Walk(prog.Func("main$1").Tree, func(n *model.Node) bool {
		if lf := n.Leaf; lf != nil && lf.Op == "Comm.Sendrecv" {
			found = true
			for _, arg := range []string{lf.Args[1], lf.Args[4]} {
				if !slices.Contains(lf.Control, arg) {
					t.Errorf("Sendrecv buffer %s is not control: %v", arg, lf.Control)
				}
			}
		}
		return true
	})
	if !found {
		t.Error("no Sendrecv in main$1")
	}
	var residual *Decision
	for i, d := range body.Opaque {
		if strings.HasPrefix(d.Where, "testprogs/stencil/main.go:110") {
			residual = &body.Opaque[i]
		}
	}
	if residual == nil || !strings.Contains(residual.Reason, "make([]float64") {
		t.Errorf("the residual test at main.go:110 is not opaque on bulk data: %+v", body.Opaque)
	}
	sweep := functionReport(rep, "sweep")
	if len(sweep.Loops) != 1 || !sweep.Loops[0].Candidate || !strings.Contains(sweep.Loops[0].Formula, "len(u)") {
		t.Errorf("sweep's loop is not a collapse candidate with a formula of len(u): %+v", sweep.Loops)
	}
}

func isFloat(bin *ssa.BinOp) bool {
	return strings.Contains(bin.Type().String(), "float") || strings.Contains(bin.X.Type().String(), "float")
}

// TestFTCounts: ft keeps the counts of its Alltoallv transposes.
func TestFTCounts(t *testing.T) {
	_, _, rep := reduceProgram(t, "testprogs/ft", Options{})
	for _, f := range rep.Functions {
		for _, d := range f.Opaque {
			if strings.Contains(d.What, "Alltoall") {
				t.Errorf("%s: an Alltoallv argument is opaque: %+v", f.ID, d)
			}
		}
	}
	var counts []string
	for _, f := range rep.Functions {
		for _, v := range f.ControlVars {
			if strings.Contains(strings.ToLower(v), "cnt") || strings.Contains(strings.ToLower(v), "count") {
				counts = append(counts, f.ID+":"+v)
			}
		}
	}
	if len(counts) == 0 {
		t.Error("no count variable of ft is kept")
	}
}

// TestMasterWorker: the task sizes are opaque (the task table is bulk
// data, and travels in messages), and the report says so.
func TestMasterWorker(t *testing.T) {
	_, _, rep := reduceProgram(t, "testprogs/masterworker", Options{})
	var loop *LoopReport
	for _, f := range rep.Functions {
		for i, l := range f.Loops {
			if strings.HasPrefix(l.Where, "testprogs/masterworker/main.go:190") {
				loop = &f.Loops[i]
			}
		}
	}
	if loop == nil || loop.Opaque == "" || !strings.Contains(loop.Opaque, "main.go:107") {
		t.Errorf("the task loop's trip count is not opaque on the task table at main.go:107: %+v", loop)
	}
}

// TestExact: with --exact nothing is opaque and more is kept.
func TestExact(t *testing.T) {
	_, _, def := reduceProgram(t, "testprogs/stencil", Options{})
	_, _, exact := reduceProgram(t, "testprogs/stencil", Options{Exact: true})
	_, keptDefault, _ := def.Totals()
	_, keptExact, _ := exact.Totals()
	if keptExact <= keptDefault {
		t.Errorf("exact keeps %d instructions, default %d", keptExact, keptDefault)
	}
	for _, f := range exact.Functions {
		if len(f.Opaque) > 0 {
			t.Errorf("%s: opaque decisions in exact mode: %+v", f.ID, f.Opaque)
		}
	}
}
