// This file defines the instrumentation plan: which fragments get probes,
// where, and the instrumented sources.

package estimator

import (
	"fmt"
	"go/ast"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/predict-tools/predict/model"
	"github.com/predict-tools/predict/modelgen"
	"github.com/predict-tools/predict/profile"
	"github.com/predict-tools/predict/reduce"
	"golang.org/x/tools/go/ssa"
)

// ProbePath is the import path of the probes' runtime.
const ProbePath = "github.com/predict-tools/predict/estimator/probe"

// Fragment is one instrumented part of the program.
type Fragment struct {
	ID     int32                `json:"id"`
	Kind   profile.FragmentKind `json:"kind"`
	Func   string               `json:"func"`   // the model function
	Node   string               `json:"node"`   // the model node the measurement belongs to
	Covers []string             `json:"covers"` // the model leaves whose time it holds
	Pos    model.Range          `json:"pos"`
	Static bool                 `json:"static,omitempty"` // a loop whose trip count is computed before it runs: no per-iteration counter
	// Innermost: the loop heads a perfect nest whose inner count is known
	// before it runs; its trip counts are those of the inner body (outer
	// trips × inner trips), so its time per iteration is per inner one.
	Innermost bool `json:"innermost,omitempty"`
	// Resumes: a sampled entry leaves the sampled copy after its samples
	// and finishes in the original (loops.go).
	Resumes bool `json:"resumes,omitempty"`
	// Parent is the region (region.go) whose entries every execution of
	// the fragment lies in, -1 for none; the region's own time is what
	// its fragments leave. Apart: the fragment runs in the regions of
	// several callers (a loop timed at its function's call sites), and
	// the probes account for it as it runs instead.
	Parent int32 `json:"parent"`
	Apart  bool  `json:"apart,omitempty"`
	// Arg and Part: for an opaque argument of a commlib call (kind
	// "arg"), its position among the call's arguments and what of it is
	// recorded (reduce.ArgPart).
	Arg  int    `json:"arg,omitempty"`
	Part string `json:"part,omitempty"`
}

// Plan is an instrumented copy of a program.
type Plan struct {
	Fragments []Fragment
	// Threads says that the program runs pool or Parallel threads: its
	// fragments are timed by the CPU clock of their OS thread
	// (probe.DeclareThreads).
	Threads bool
	// Regions says that functions and loops measured inside are also
	// timed whole (region.go): false for a program that runs threads or
	// goroutines, whose time is then only what its fragments measure.
	Regions bool
	// Overlay maps files of the program (absolute paths) to their
	// instrumented text; files to add have paths that do not exist.
	Overlay map[string][]byte
	// Whole are the regions timed whole (whole.go), by position.
	Whole []WholeRegion
	// Unprobed counts the segments a pilot run found cheaper than their
	// probes, left to their regions (region.go).
	Unprobed int
}

// edit inserts text at a byte offset of a file.
type edit struct {
	offset  int
	seq     int
	text    string
	sampled bool // only in the sampled copy of a versioned loop
	plain   bool // only in the original copy of a versioned loop
}

// instrumenter builds a Plan.
type instrumenter struct {
	l        *modelgen.Loaded
	fset     *token.FileSet
	plan     *Plan
	loops    *reduce.Plan         // the loop plan: which loops are counted, and how
	edits    map[string][]edit    // by file
	versions map[string][]version // by file
	seq      int
	whole    map[*model.Node]bool // loops timed whole
	quiet    map[string]bool      // functions timed by the loops that call them: no probes
	sealed   map[string]bool      // functions the model never enters (sealed recursions): quiet
	// replayed: the quiet functions the model enters (called from loops
	// timed whole that it runs iteration by iteration): their opaque
	// decisions are recorded (decisionsOnly).
	replayed map[string]bool
	now      string // the call that starts a fragment: __probe.Now() or __probe.NowThread()
	// Functions timed from their call sites (callsite.go): by function,
	// their loops' fragments, and the call statements.
	callFuncs map[string]*callSiteFunc
	callLoops map[*model.Node]int32
	sites     map[ast.Stmt]*callSite
	files     map[string]*ast.File // the loaded files by name
	// coarse are the regions timed whole with nothing timed inside,
	// small the segments not probed (region.go), by node ID.
	coarse, small map[string]bool
}

// funcCtx is the function whose statements are being instrumented.
type funcCtx struct {
	f         *model.Function
	fn        *ssa.Function
	file      string
	calls     map[token.Pos]bool // positions of calls that are control points (ufc, cfc, go, defer)
	leaves    []*model.Node
	loops     map[model.Pos][]*model.Node // loop nodes by the position of their statement (a loop made by a goto may start there too)
	tests     []*model.Node               // opaque tests
	condOf    map[*model.Node]*model.Node
	vars      []string // probe variables to declare
	usedSegs  bool
	usedCalls bool // __lc and __lk, the clock and trip count of calls timed at their sites (callsite.go)
	// region is the innermost region being instrumented (-1: none);
	// timed holds the regions that have fragments; tokens are the
	// loop regions' entry variables (region.go).
	region int32
	timed  map[int32]bool
	tokens []string
	// coarse counts the coarse regions being instrumented: inside them
	// only opaque decisions and the trip counts the model replays are
	// recorded.
	coarse int
	// decisionsOnly: a function timed by the loops that call it, whose
	// opaque decisions the model replays when it runs those loops
	// iteration by iteration: only its decisions are recorded (in the run
	// that records decisions; the others time the loops, and a decision's
	// probe there is a load and a branch).
	decisionsOnly bool
}

// Instrument plans probes for every function of the prepared program
// (reduced: it follows the loop plan and the opaque decisions) and
// returns the instrumented sources.
func Instrument(p *reduce.Prepared) (*Plan, error) { return instrument(p, pilotCuts{}) }

// instrument is Instrument with what a pilot run found cheaper than its
// probes (region.go).
func instrument(p *reduce.Prepared, cuts pilotCuts) (*Plan, error) {
	l, prog, ssaOf := p.Loaded, p.Model, p.SSA
	in := &instrumenter{l: l, fset: l.Prog.Fset, loops: p.Report.Plan, plan: &Plan{Overlay: map[string][]byte{}}, edits: map[string][]edit{},
		versions: map[string][]version{}, now: "__probe.Now()", coarse: cuts.regions, small: cuts.segments}
	if in.plan.Threads = usesThreads(prog); in.plan.Threads {
		in.now = "__probe.NowThread()"
	}
	// Regions by the wall clock per rank, or, with threads or goroutines,
	// by the thread clock per OS thread (probe/region.go), which only
	// Linux reads: elsewhere such a program has no regions (a rank's
	// goroutines would share its wall-clock account).
	in.plan.Regions = !in.plan.Threads || runtime.GOOS == "linux"
	files := map[string]*ast.File{}
	for _, p := range l.Packages {
		for _, f := range pkgFiles(l, p) {
			files[in.fset.File(f.Pos()).Name()] = f
		}
	}
	in.files = files
	in.planSealed(prog, ssaOf)
	in.planWholeLoops(prog, ssaOf)
	in.planCallSites(prog, ssaOf)
	seen := map[ast.Node]bool{}
	for _, f := range prog.Functions {
		fn := ssaOf[f]
		if fn == nil {
			continue
		}
		syn := fn.Syntax()
		var body *ast.BlockStmt
		switch s := syn.(type) {
		case *ast.FuncDecl:
			body = s.Body
		case *ast.FuncLit:
			body = s.Body
		}
		if body == nil || seen[syn] || (in.quiet[f.ID] && !(in.replayed[f.ID] && replaysDecisions(f))) {
			continue
		}
		seen[syn] = true
		file := in.fset.File(syn.Pos()).Name()
		if files[file] == nil {
			continue // not a source file of the module (generated wrappers)
		}
		fc := in.newFuncCtx(f, fn, file)
		fnRegion := int32(-1)
		if fc.decisionsOnly = in.quiet[f.ID]; !fc.decisionsOnly {
			fnRegion = in.enterFuncRegion(f, fn, body, fc, prog)
		}
		in.stmts(body.List, fc)
		in.commArgs(body, fc)
		if len(fc.vars) > 0 {
			decl := fmt.Sprintf(" var %s int64; _ = %s;", strings.Join(fc.vars, ", "), strings.Join(fc.vars, "+"))
			in.insert(file, body.Lbrace+1, decl)
		}
		if len(fc.tokens) > 0 {
			decl := fmt.Sprintf(" var %s __probe.Token; _ = []__probe.Token{%s};", strings.Join(fc.tokens, ", "), strings.Join(fc.tokens, ", "))
			in.insert(file, body.Lbrace+1, decl)
		}
		in.exitFuncRegion(fnRegion, body, fc)
	}
	sortWhole(in.plan.Whole)
	if len(in.plan.Fragments) == 0 {
		return in.plan, nil
	}
	for file, edits := range in.edits {
		src, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("instrument: %v", err)
		}
		astFile := files[file]
		versions := in.versions[file]
		var clones []string
		for _, id := range slices.Sorted(maps.Keys(in.callFuncs)) {
			if cf := in.callFuncs[id]; cf.file == file {
				var text string
				edits, versions, text = in.clone(cf, src, edits, versions)
				clones = append(clones, text)
			}
		}
		if len(clones) > 0 {
			edits = append(edits, edit{offset: len(src), seq: in.seq + 1, text: "\n\n" + strings.Join(clones, "\n\n") + "\n"})
		}
		edits = append(edits, edit{offset: in.fset.Position(astFile.Name.End()).Offset, seq: -1,
			text: fmt.Sprintf("; import __probe %q", ProbePath)})
		in.plan.Overlay[file] = apply(src, edits, versions)
	}
	// The tables of the probes, sized before the program runs.
	declare := "Declare"
	if in.plan.Threads {
		declare = "DeclareThreads"
	}
	mainDir := filepath.Dir(in.fset.File(pkgFiles(l, l.Main)[0].Pos()).Name())
	in.plan.Overlay[filepath.Join(mainDir, "zz_predict_probes.go")] = []byte(fmt.Sprintf(
		"package main\n\nimport __probe %q\n\nfunc init() { __probe.%s(%d) }\n", ProbePath, declare, len(in.plan.Fragments)))
	return in.plan, nil
}

// usesThreads reports whether the program creates pool or Parallel
// threads or starts goroutines (go statements, WaitGroup.Go, errgroup's
// Go and TryGo): then a fragment's wall time would include
// the time its thread waited for a core, which the interpreter, sharing
// the cores among the logical threads itself, must not charge.
func usesThreads(prog *model.Program) bool {
	return hasLeaf(prog, func(l *model.Leaf) bool {
		switch l.Op {
		case "Comm.NewPool", "Comm.Parallel", "sync.WaitGroup.Go", "errgroup.Group.Go", "errgroup.Group.TryGo":
			return true
		}
		return l.Kind == model.LeafSpawn
	})
}

// hasLeaf reports whether a leaf of the program satisfies is.
func hasLeaf(prog *model.Program, is func(*model.Leaf) bool) bool {
	found := false
	for _, f := range prog.Functions {
		for _, root := range []*model.Node{f.Tree, f.Recover} {
			model.Walk(root, func(n *model.Node) bool {
				found = found || (n.Leaf != nil && is(n.Leaf))
				return !found
			})
		}
	}
	return found
}

// pkgFiles returns the syntax of a package's files.
func pkgFiles(l *modelgen.Loaded, p *ssa.Package) []*ast.File {
	return l.Syntax[p.Pkg]
}

func (in *instrumenter) newFuncCtx(f *model.Function, fn *ssa.Function, file string) *funcCtx {
	fc := &funcCtx{f: f, fn: fn, file: file, calls: map[token.Pos]bool{}, loops: map[model.Pos][]*model.Node{},
		condOf: map[*model.Node]*model.Node{}, region: -1, timed: map[int32]bool{}}
	var walk func(n *model.Node)
	walk = func(n *model.Node) {
		if n == nil {
			return
		}
		if n.Cond != nil {
			var mark func(c *model.Node)
			mark = func(c *model.Node) {
				fc.condOf[c] = n.Cond
				for _, x := range c.Children {
					mark(x)
				}
			}
			mark(n.Cond)
		}
		switch {
		case n.Leaf != nil:
			fc.leaves = append(fc.leaves, n)
		case n.Kind == model.KindLoop:
			fc.loops[n.Pos.Start] = append(fc.loops[n.Pos.Start], n)
		case n.Kind == model.KindTest && n.Opaque != "":
			fc.tests = append(fc.tests, n)
		}
		walk(n.Cond)
		if l := n.Loop; l != nil {
			walk(l.Header)
			walk(l.Body)
			walk(l.Post)
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(f.Tree)
	walk(f.Recover)
	return fc
}

// hasControlCall reports whether the statement range holds a call that is
// a control point: commlib, a function of the module, go, defer. A call
// of a sealed recursion is not one: the model never enters it, so its
// statement is timed whole with those around it.
func (in *instrumenter) hasControlCall(s ast.Node, fc *funcCtx) bool {
	start, end := in.pos(s.Pos()), in.pos(s.End())
	for _, n := range fc.leaves {
		switch n.Leaf.Kind {
		case model.LeafUFC:
			if in.sealedCall(n.Leaf, fc) {
				continue
			}
			fallthrough
		case model.LeafCFC, model.LeafSpawn, model.LeafDefer:
			if p := n.Pos.Start; p.IsValid() && !p.Before(start) && p.Before(end) {
				return true
			}
		}
	}
	return false
}

// simple reports whether s can be part of a straight-line segment.
func (in *instrumenter) simple(s ast.Stmt, fc *funcCtx) bool {
	switch s.(type) {
	case *ast.AssignStmt, *ast.ExprStmt, *ast.IncDecStmt, *ast.DeclStmt, *ast.EmptyStmt:
	default:
		return false
	}
	blocking := false
	ast.Inspect(s, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				blocking = true
			}
		case *ast.FuncLit:
			return false
		}
		return !blocking
	})
	return !blocking && !in.hasControlCall(s, fc)
}

// stmts instruments a statement list: runs of simple statements become
// segments; control statements are entered.
func (in *instrumenter) stmts(list []ast.Stmt, fc *funcCtx) {
	var run []ast.Stmt
	flush := func() {
		if len(run) > 0 {
			in.segment(run, fc)
			run = nil
		}
	}
	for _, s := range list {
		if in.simple(s, fc) {
			run = append(run, s)
			continue
		}
		flush()
		if !in.timeWhole(s, fc) {
			in.control(s, fc)
		}
	}
	flush()
}

// control instruments inside a control statement.
func (in *instrumenter) control(s ast.Stmt, fc *funcCtx) {
	switch st := s.(type) {
	case *ast.LabeledStmt:
		in.control(st.Stmt, fc)
	case *ast.ForStmt:
		r := in.enterLoopRegion(st, st.Body, fc)
		if st.Cond != nil {
			in.branch(st.Cond, fc)
		}
		in.stmts(st.Body.List, fc)
		in.exitLoopRegion(r, st, st.Body, fc)
	case *ast.RangeStmt:
		r := in.enterLoopRegion(st, st.Body, fc)
		in.rangeExit(st, fc)
		in.stmts(st.Body.List, fc)
		in.exitLoopRegion(r, st, st.Body, fc)
	case *ast.IfStmt:
		in.branch(st.Cond, fc)
		in.stmts(st.Body.List, fc)
		switch e := st.Else.(type) {
		case *ast.BlockStmt:
			in.stmts(e.List, fc)
		case *ast.IfStmt:
			in.control(e, fc)
		}
	case *ast.SwitchStmt:
		for _, c := range st.Body.List {
			if st.Tag == nil {
				// Each case is a condition: recorded when opaque, as an
				// if's. Unrecorded, the model took pic's particle
				// tests (switch { case p.owns(q.x): … case q.v > 0: … })
				// as false and sent every particle away, a 3 MiB
				// Sendrecv a step where the real run sends almost none.
				for _, e := range c.(*ast.CaseClause).List {
					in.branch(e, fc)
				}
			}
			in.stmts(c.(*ast.CaseClause).Body, fc)
		}
	case *ast.TypeSwitchStmt:
		for _, c := range st.Body.List {
			in.stmts(c.(*ast.CaseClause).Body, fc)
		}
	case *ast.SelectStmt:
		for _, c := range st.Body.List {
			in.stmts(c.(*ast.CommClause).Body, fc)
		}
	case *ast.BlockStmt:
		in.stmts(st.List, fc)
	}
}

// segment instruments a run of simple statements.
func (in *instrumenter) segment(run []ast.Stmt, fc *funcCtx) {
	if fc.coarse > 0 || fc.decisionsOnly {
		return
	}
	rng := in.rangeOf(run[0].Pos(), run[len(run)-1].End())
	covers := in.covered(rng, fc)
	if len(covers) == 0 {
		return // nothing the model executes (declarations only)
	}
	if in.small[covers[0]] && fc.region >= 0 {
		// Cheaper than its probes (region.go): its time is its
		// region's, which is then timed even if nothing else is.
		fc.timed[fc.region] = true
		in.plan.Unprobed++
		return
	}
	id := in.fragment(profile.FragSegment, fc, covers[0], covers, rng)
	if !fc.usedSegs {
		fc.usedSegs = true
		fc.vars = append(fc.vars, "__pt")
	}
	in.insert(fc.file, run[0].Pos(), "__pt = "+in.now+"; ")
	in.insert(fc.file, run[len(run)-1].End(), fmt.Sprintf("; __probe.Seg(%d, __pt)", id))
}

// branch records the outcomes of cond when the model says it is opaque.
func (in *instrumenter) branch(cond ast.Expr, fc *funcCtx) {
	rng := in.rangeOf(cond.Pos(), cond.End())
	for _, t := range fc.tests {
		root := fc.condOf[t]
		if root == nil {
			root = t
		}
		// A test of a value with no position of its own (a loop-carried
		// flag, `!done`: a phi) is placed by its condition's root.
		p := t.Pos.Start
		if !p.IsValid() {
			p = root.Pos.Start
		}
		if !p.IsValid() || p.Before(rng.Start) || !p.Before(rng.End) {
			continue
		}
		id := in.fragment(profile.FragBranch, fc, root.ID, nil, rng)
		// The profile holds the root's outcomes. The model may negate
		// the source's condition (`if x { continue }; rest` is "if
		// !x { rest }"), and a `!` of the source is a not of the model:
		// where the two counts differ by an odd number, the outcome
		// recorded is the negation of what the program tests.
		probe := "Branch"
		if (leadingNots(root)+astNots(cond))%2 == 1 {
			probe = "BranchNot"
		}
		in.insert(fc.file, cond.Pos(), fmt.Sprintf("__probe.%s(%d, ", probe, id))
		in.insert(fc.file, cond.End(), ")")
		return
	}
}

// rangeExit records the outcomes of a range loop's exit test when the
// model says it is opaque (the length of what it ranges over is data the
// model does not compute): the test has no expression to wrap, so the
// iterations of each entry are counted and recorded as that many true
// outcomes and a false one (probe.BranchRun). A loop that may end other
// than by its test (break, return, goto, labeled jumps) is left alone: its
// count would not say how its test went.
func (in *instrumenter) rangeExit(s *ast.RangeStmt, fc *funcCtx) {
	node := in.loopNode(s, fc)
	if node == nil || node.Loop == nil || leavesEarly(s.Body) || breaks(s.Body) {
		return
	}
	var test *model.Node
	for _, root := range []*model.Node{node.Cond, node.Loop.Header} {
		model.Walk(root, func(n *model.Node) bool {
			if n.Kind == model.KindTest && n.Opaque != "" && test == nil {
				test = n
			}
			return test == nil
		})
	}
	if test == nil {
		return
	}
	root := fc.condOf[test]
	if root == nil {
		root = test
	}
	id := in.fragment(profile.FragBranch, fc, root.ID, nil, in.rangeOf(s.Pos(), s.End()))
	// One record per entry, not per outcome: nothing for its region to
	// take off per outcome.
	in.plan.Fragments[id].Parent = -1
	n := fmt.Sprintf("__rn%d", id)
	fc.vars = append(fc.vars, n)
	in.insert(fc.file, s.Pos(), n+" = 0; ")
	in.insert(fc.file, s.Body.Lbrace+1, " "+n+"++;")
	in.insert(fc.file, s.End(), fmt.Sprintf("; __probe.BranchRun(%d, %s)", id, n))
}

// breaks reports whether a loop body has a break statement of its own
// (not one of an inner loop, switch or select, nor of a function literal).
func breaks(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit, *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
			return false
		case *ast.BranchStmt:
			if n.Tok == token.BREAK {
				found = true
			}
		}
		return !found
	})
	return found
}

// covered returns the IDs of the function's leaves that start in rng.
func (in *instrumenter) covered(rng model.Range, fc *funcCtx) []string {
	var ids []string
	for _, n := range fc.leaves {
		if p := n.Pos.Start; p.IsValid() && !p.Before(rng.Start) && p.Before(rng.End) {
			ids = append(ids, n.ID)
		}
	}
	return ids
}

func (in *instrumenter) fragment(kind profile.FragmentKind, fc *funcCtx, node string, covers []string, rng model.Range) int32 {
	id := int32(len(in.plan.Fragments))
	in.plan.Fragments = append(in.plan.Fragments, Fragment{ID: id, Kind: kind, Func: fc.f.ID, Node: node, Covers: covers, Pos: rng, Parent: fc.region})
	if kind == profile.FragSegment || kind == profile.FragLoop {
		fc.timed[fc.region] = true
	}
	return id
}

func (in *instrumenter) insert(file string, p token.Pos, text string) {
	in.seq++
	in.edits[file] = append(in.edits[file], edit{offset: in.fset.Position(p).Offset, seq: in.seq, text: text})
}

// insertSampled inserts text into the sampled copy of a versioned loop
// only.
func (in *instrumenter) insertSampled(file string, p token.Pos, text string) {
	in.seq++
	in.edits[file] = append(in.edits[file], edit{offset: in.fset.Position(p).Offset, seq: in.seq, text: text, sampled: true})
}

// insertPlain inserts text into the original copy of a versioned loop
// only.
func (in *instrumenter) insertPlain(file string, p token.Pos, text string) {
	in.seq++
	in.edits[file] = append(in.edits[file], edit{offset: in.fset.Position(p).Offset, seq: in.seq, text: text, plain: true})
}

// pos converts a position the way modelgen does (module-relative file).
func (in *instrumenter) pos(p token.Pos) model.Pos { return in.l.Pos(p) }

func (in *instrumenter) rangeOf(a, b token.Pos) model.Range {
	return model.Range{Start: in.pos(a), End: in.pos(b)}
}
