// This file defines the instrumentation plan: which fragments get probes,
// where, and the instrumented sources.

package estimator

import (
	"fmt"
	"go/ast"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/predict-tools/predict/model"
	"github.com/predict-tools/predict/modelgen"
	"golang.org/x/tools/go/ssa"
)

// ProbePath is the import path of the probes' runtime.
const ProbePath = "github.com/predict-tools/predict/estimator/probe"

// FragmentKind says what a fragment's probes measure.
type FragmentKind string

// Fragment kinds.
const (
	FragSegment FragmentKind = "seg"    // straight-line statements between control points
	FragLoop    FragmentKind = "loop"   // a whole loop statement (a collapse candidate nest)
	FragBranch  FragmentKind = "branch" // an opaque decision: its outcomes per rank
)

// Fragment is one instrumented part of the program.
type Fragment struct {
	ID     int32        `json:"id"`
	Kind   FragmentKind `json:"kind"`
	Func   string       `json:"func"`   // the model function
	Node   string       `json:"node"`   // the model node the measurement belongs to
	Covers []string     `json:"covers"` // the model leaves whose time it holds
	Pos    model.Range  `json:"pos"`
	Static bool         `json:"static,omitempty"` // a loop whose trip count is computed before it runs (its first entries sampled)
}

// Plan is an instrumented copy of a program.
type Plan struct {
	Fragments []Fragment
	// Overlay maps files of the program (absolute paths) to their
	// instrumented text; files to add have paths that do not exist.
	Overlay map[string][]byte
}

// edit inserts text at a byte offset of a file.
type edit struct {
	offset int
	seq    int
	text   string
}

// instrumenter builds a Plan.
type instrumenter struct {
	l     *modelgen.Loaded
	fset  *token.FileSet
	plan  *Plan
	edits map[string][]edit // by file
	seq   int
	whole map[*model.Node]bool // loops timed whole
	quiet map[string]bool      // functions timed by the loops that call them: no probes
}

// funcCtx is the function whose statements are being instrumented.
type funcCtx struct {
	f        *model.Function
	file     string
	calls    map[token.Pos]bool // positions of calls that are control points (ufc, cfc, go, defer)
	leaves   []*model.Node
	loops    map[model.Pos]*model.Node // loop nodes by the position of their statement
	tests    []*model.Node             // opaque tests
	condOf   map[*model.Node]*model.Node
	vars     []string // probe variables to declare
	usedSegs bool
}

// Instrument plans probes for every function of the model prog (reduced:
// it needs the collapse candidates and the opaque decisions) and returns
// the instrumented sources.
func Instrument(l *modelgen.Loaded, prog *model.Program, ssaOf map[*model.Function]*ssa.Function) (*Plan, error) {
	in := &instrumenter{l: l, fset: l.Prog.Fset, plan: &Plan{Overlay: map[string][]byte{}}, edits: map[string][]edit{}}
	in.planWholeLoops(prog, ssaOf)
	seen := map[ast.Node]bool{}
	files := map[string]*ast.File{}
	for _, p := range l.Packages {
		for _, f := range pkgFiles(l, p) {
			files[in.fset.File(f.Pos()).Name()] = f
		}
	}
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
		if body == nil || seen[syn] || in.quiet[f.ID] {
			continue
		}
		seen[syn] = true
		file := in.fset.File(syn.Pos()).Name()
		if files[file] == nil {
			continue // not a source file of the module (generated wrappers)
		}
		fc := in.newFuncCtx(f, file)
		in.stmts(body.List, fc)
		if len(fc.vars) > 0 {
			decl := fmt.Sprintf(" var %s int64; _ = %s;", strings.Join(fc.vars, ", "), strings.Join(fc.vars, "+"))
			in.insert(file, body.Lbrace+1, decl)
		}
	}
	if len(in.plan.Fragments) == 0 {
		return in.plan, nil
	}
	for file, edits := range in.edits {
		src, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("instrument: %v", err)
		}
		astFile := files[file]
		edits = append(edits, edit{offset: in.fset.Position(astFile.Name.End()).Offset, seq: -1,
			text: fmt.Sprintf("; import __probe %q", ProbePath)})
		in.plan.Overlay[file] = apply(src, edits)
	}
	// The tables of the probes, sized before the program runs.
	mainDir := filepath.Dir(in.fset.File(pkgFiles(l, l.Main)[0].Pos()).Name())
	in.plan.Overlay[filepath.Join(mainDir, "zz_predict_probes.go")] = []byte(fmt.Sprintf(
		"package main\n\nimport __probe %q\n\nfunc init() { __probe.Declare(%d) }\n", ProbePath, len(in.plan.Fragments)))
	return in.plan, nil
}

// pkgFiles returns the syntax of a package's files.
func pkgFiles(l *modelgen.Loaded, p *ssa.Package) []*ast.File {
	return l.Syntax[p.Pkg]
}

func (in *instrumenter) newFuncCtx(f *model.Function, file string) *funcCtx {
	fc := &funcCtx{f: f, file: file, calls: map[token.Pos]bool{}, loops: map[model.Pos]*model.Node{},
		condOf: map[*model.Node]*model.Node{}}
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
			fc.loops[n.Pos.Start] = n
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

// isControlCall reports whether the statement range holds a call that is a
// control point: commlib, a function of the module, go, defer.
func (in *instrumenter) hasControlCall(s ast.Node, fc *funcCtx) bool {
	start, end := in.pos(s.Pos()), in.pos(s.End())
	for _, n := range fc.leaves {
		switch n.Leaf.Kind {
		case model.LeafUFC, model.LeafCFC, model.LeafSpawn, model.LeafDefer:
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
		in.control(s, s, fc)
	}
	flush()
}

// control instruments inside a control statement; outer is s with its label.
func (in *instrumenter) control(outer, s ast.Stmt, fc *funcCtx) {
	switch st := s.(type) {
	case *ast.LabeledStmt:
		in.control(outer, st.Stmt, fc)
	case *ast.ForStmt:
		if in.loopFragment(outer, st, st.Body, fc) {
			return
		}
		if st.Cond != nil {
			in.branch(st.Cond, fc)
		}
		in.stmts(st.Body.List, fc)
	case *ast.RangeStmt:
		if in.loopFragment(outer, st, st.Body, fc) {
			return
		}
		in.stmts(st.Body.List, fc)
	case *ast.IfStmt:
		in.branch(st.Cond, fc)
		in.stmts(st.Body.List, fc)
		switch e := st.Else.(type) {
		case *ast.BlockStmt:
			in.stmts(e.List, fc)
		case *ast.IfStmt:
			in.control(e, e, fc)
		}
	case *ast.SwitchStmt:
		for _, c := range st.Body.List {
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
	rng := in.rangeOf(run[0].Pos(), run[len(run)-1].End())
	covers := in.covered(rng, fc)
	if len(covers) == 0 {
		return // nothing the model executes (declarations only)
	}
	id := in.fragment(FragSegment, fc, covers[0], covers, rng)
	if !fc.usedSegs {
		fc.usedSegs = true
		fc.vars = append(fc.vars, "__pt")
	}
	in.insert(fc.file, run[0].Pos(), "__pt = __probe.Now(); ")
	in.insert(fc.file, run[len(run)-1].End(), fmt.Sprintf("; __probe.Seg(%d, __pt)", id))
}

// loopFragment times a loop that is a collapse candidate as a whole, with
// its trip count and sampled iterations. Loops left early (return, goto,
// labeled jumps) or calling the module's functions are instrumented inside
// instead.
func (in *instrumenter) loopFragment(outer, s ast.Stmt, body *ast.BlockStmt, fc *funcCtx) bool {
	node := fc.loops[in.pos(s.Pos())]
	if node == nil || !in.whole[node] {
		return false
	}
	rng := in.rangeOf(s.Pos(), s.End())
	id := in.fragment(FragLoop, fc, node.ID, in.covered(rng, fc), rng)
	if trips, ok := in.staticTrips(s, body, node); ok {
		// The trip count is computed before the loop: nothing runs per
		// iteration, so the measurement is the loop's own time.
		// The first entries still sample their first iterations, for the
		// balance degree.
		in.plan.Fragments[id].Static = true
		t, n, it, ls := fmt.Sprintf("__lt%d", id), fmt.Sprintf("__ln%d", id), fmt.Sprintf("__li%d", id), fmt.Sprintf("__ls%d", id)
		fc.vars = append(fc.vars, t, n, it, ls)
		in.insert(fc.file, outer.Pos(), fmt.Sprintf("%s = %s; %s = __probe.SampleEntry(%d); %s = 0; %s = __probe.Now(); ", n, trips, ls, id, it, t))
		in.insert(fc.file, body.Lbrace+1, fmt.Sprintf(" if %s > 0 { %s--; %s = __probe.Iter(%d, %s) };", ls, ls, it, id, it))
		in.insert(fc.file, outer.End(), fmt.Sprintf("; if %s != 0 && %s > 0 { __probe.IterEnd(%d, %s) }; __probe.Loop(%d, %s, %s)", it, ls, id, it, id, t, n))
		return true
	}
	record := "Loop"
	if opaqueBound(node) {
		record = "LoopRanked" // the interpreter replays its trip counts per rank
	}
	t, n, it := fmt.Sprintf("__lt%d", id), fmt.Sprintf("__ln%d", id), fmt.Sprintf("__li%d", id)
	fc.vars = append(fc.vars, t, n, it)
	in.insert(fc.file, outer.Pos(), fmt.Sprintf("%s = __probe.Now(); %s = 0; %s = 0; ", t, n, it))
	// Iteration k's start closes iteration k-1's sample; the loop's end
	// closes the last one when the loop ran no more than IterSamples.
	in.insert(fc.file, body.Lbrace+1, fmt.Sprintf(" %s++; if %s <= __probe.IterSamples+1 { %s = __probe.Iter(%d, %s) };", n, n, it, id, it))
	in.insert(fc.file, outer.End(), fmt.Sprintf("; if %s != 0 && %s <= __probe.IterSamples { __probe.IterEnd(%d, %s) }; __probe.%s(%d, %s, %s)", it, n, id, it, record, id, t, n))
	return true
}

// planWholeLoops chooses the loops timed whole: those that neither
// communicate nor leave early. The functions they call get no probes of
// their own (the loop's time holds theirs), which is only right if they are
// called from nowhere else: a loop whose callees are also called outside
// such loops is instrumented inside instead, unless the callee is a small
// helper (no loops, no calls), whose other calls then go unmeasured.
// Fragments therefore never nest, and every nanosecond is measured at
// most once.
func (in *instrumenter) planWholeLoops(prog *model.Program, ssaOf map[*model.Function]*ssa.Function) {
	stmts := map[string]map[model.Pos]ast.Stmt{} // function → its loop statements by position
	for _, f := range prog.Functions {
		fn := ssaOf[f]
		m := map[model.Pos]ast.Stmt{}
		if fn != nil && fn.Syntax() != nil {
			ast.Inspect(fn.Syntax(), func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.FuncLit:
					return n == fn.Syntax()
				case *ast.ForStmt, *ast.RangeStmt:
					m[in.pos(n.Pos())] = n.(ast.Stmt)
				}
				return true
			})
		}
		stmts[f.ID] = m
	}
	roots := map[string]bool{prog.Body: true, prog.Driver: true}
	banned := map[*model.Node]bool{}
	// Small helpers (no loops, no calls of the module) are cheap enough
	// that their calls outside whole loops may go unmeasured: they never
	// ban a loop.
	small := map[string]bool{}
	for _, f := range prog.Functions {
		small[f.ID] = true
		model.Walk(f.Tree, func(n *model.Node) bool {
			if n.Kind == model.KindLoop || (n.Leaf != nil && n.Leaf.Kind == model.LeafUFC) {
				small[f.ID] = false
			}
			return small[f.ID]
		})
	}
	for {
		in.whole, in.quiet = map[*model.Node]bool{}, map[string]bool{}
		type site struct {
			fn   string
			loop *model.Node // the whole loop holding the call, or nil
		}
		calls := map[string][]site{}            // callee → its call sites
		loopCalls := map[*model.Node][]string{} // whole loop → callees inside it
		callsOf := map[string][]string{}        // function → its callees
		for _, f := range prog.Functions {
			var walk func(n *model.Node, outer *model.Node)
			walk = func(n *model.Node, outer *model.Node) {
				if n == nil {
					return
				}
				if n.Kind == model.KindLoop && outer == nil && !banned[n] {
					st := stmts[f.ID][n.Pos.Start]
					if t := n.Loop.Trip; t != nil && t.Communicates == "" && st != nil && !leavesEarly(loopBody(st)) {
						outer = n
						in.whole[n] = true
					}
				}
				if lf := n.Leaf; lf != nil && lf.Kind == model.LeafUFC {
					targets := lf.Targets
					if !lf.Dynamic {
						targets = []string{lf.Callee}
					}
					for _, t := range targets {
						calls[t] = append(calls[t], site{f.ID, outer})
						callsOf[f.ID] = append(callsOf[f.ID], t)
						if outer != nil {
							loopCalls[outer] = append(loopCalls[outer], t)
						}
					}
				}
				walk(n.Cond, outer)
				if l := n.Loop; l != nil {
					walk(l.Header, outer)
					walk(l.Body, outer)
					walk(l.Post, outer)
				}
				for _, c := range n.Children {
					walk(c, outer)
				}
			}
			walk(f.Tree, nil)
			walk(f.Recover, nil)
		}
		// The functions the whole loops reach get no probes.
		var reach func(id string)
		reach = func(id string) {
			if in.quiet[id] || roots[id] {
				return
			}
			in.quiet[id] = true
			for _, c := range callsOf[id] {
				reach(c)
			}
		}
		for _, cs := range loopCalls {
			for _, c := range cs {
				reach(c)
			}
		}
		// A quiet function also called from outside whole loops and quiet
		// functions bans the loops that reach it; then plan again (their
		// inner loops may be timed whole instead).
		grew := false
		for g := range in.quiet {
			if small[g] {
				continue
			}
			for _, cs := range calls[g] {
				if cs.loop != nil || in.quiet[cs.fn] {
					continue
				}
				for loop, callees := range loopCalls {
					if !banned[loop] && in.reaches(callees, g, callsOf) {
						banned[loop] = true
						grew = true
					}
				}
			}
		}
		if !grew {
			return
		}
	}
}

// reaches reports whether g is among the functions callees reach.
func (in *instrumenter) reaches(callees []string, g string, callsOf map[string][]string) bool {
	seen := map[string]bool{}
	var visit func(id string) bool
	visit = func(id string) bool {
		if id == g {
			return true
		}
		if seen[id] {
			return false
		}
		seen[id] = true
		for _, c := range callsOf[id] {
			if visit(c) {
				return true
			}
		}
		return false
	}
	for _, c := range callees {
		if visit(c) {
			return true
		}
	}
	return false
}

func loopBody(s ast.Stmt) *ast.BlockStmt {
	switch s := s.(type) {
	case *ast.ForStmt:
		return s.Body
	case *ast.RangeStmt:
		return s.Body
	}
	return nil
}

// staticTrips returns a Go expression computing the trip count of a loop
// before it runs, for the counted forms whose bounds have no side effects:
// range over a slice, array or integer, and for i := a; i < b; i += c
// (and <=, >, >=) where the body neither assigns i nor breaks.
func (in *instrumenter) staticTrips(s ast.Stmt, body *ast.BlockStmt, node *model.Node) (string, bool) {
	if node.Loop.Trip.Formula == "" || breaks(body) {
		return "", false
	}
	src := func(e ast.Expr) (string, bool) {
		if e == nil || !callFree(e) {
			return "", false
		}
		var b strings.Builder
		if err := printer.Fprint(&b, in.fset, e); err != nil {
			return "", false
		}
		return b.String(), true
	}
	switch st := s.(type) {
	case *ast.RangeStmt:
		x, ok := src(st.X)
		if !ok {
			return "", false
		}
		switch node.Loop.Range {
		case "slice", "array":
			return fmt.Sprintf("int64(len(%s))", x), true
		case "int":
			return fmt.Sprintf("max(0, int64(%s))", x), true
		}
	case *ast.ForStmt:
		init, ok1 := st.Init.(*ast.AssignStmt)
		cond, ok2 := st.Cond.(*ast.BinaryExpr)
		if !ok1 || !ok2 || len(init.Lhs) != 1 || len(init.Rhs) != 1 {
			return "", false
		}
		v, ok := init.Lhs[0].(*ast.Ident)
		if !ok || assigns(body, v.Name) {
			return "", false
		}
		if x, ok := cond.X.(*ast.Ident); !ok || x.Name != v.Name {
			return "", false
		}
		var step int64
		switch p := st.Post.(type) {
		case *ast.IncDecStmt:
			if x, ok := p.X.(*ast.Ident); !ok || x.Name != v.Name {
				return "", false
			}
			step = 1
			if p.Tok == token.DEC {
				step = -1
			}
		case *ast.AssignStmt:
			x, ok := p.Lhs[0].(*ast.Ident)
			lit, ok2 := p.Rhs[0].(*ast.BasicLit)
			if !ok || !ok2 || x.Name != v.Name || lit.Kind != token.INT || (p.Tok != token.ADD_ASSIGN && p.Tok != token.SUB_ASSIGN) {
				return "", false
			}
			k, err := strconv.ParseInt(lit.Value, 0, 64)
			if err != nil || k <= 0 {
				return "", false
			}
			step = k
			if p.Tok == token.SUB_ASSIGN {
				step = -k
			}
		default:
			return "", false
		}
		a, ok1 := src(init.Rhs[0])
		b, ok2 := src(cond.Y)
		if !ok1 || !ok2 || mentionsIdent(cond.Y, v.Name) {
			return "", false
		}
		switch {
		case cond.Op == token.LSS && step > 0:
			return fmt.Sprintf("__probe.Trips(int64(%s)-int64(%s), %d)", b, a, step), true
		case cond.Op == token.LEQ && step > 0:
			return fmt.Sprintf("__probe.Trips(int64(%s)-int64(%s)+1, %d)", b, a, step), true
		case cond.Op == token.GTR && step < 0:
			return fmt.Sprintf("__probe.Trips(int64(%s)-int64(%s), %d)", a, b, -step), true
		case cond.Op == token.GEQ && step < 0:
			return fmt.Sprintf("__probe.Trips(int64(%s)-int64(%s)+1, %d)", a, b, -step), true
		}
	}
	return "", false
}

// callFree reports whether e calls nothing (so evaluating it again is
// harmless) and receives from no channel.
func callFree(e ast.Expr) bool {
	free := true
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if id, ok := n.Fun.(*ast.Ident); !ok || (id.Name != "len" && id.Name != "cap" && id.Name != "int" && id.Name != "int64") {
				free = false
			}
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				free = false
			}
		case *ast.FuncLit:
			free = false
		}
		return free
	})
	return free
}

// breaks reports whether a loop body has a break that leaves this loop.
func breaks(body *ast.BlockStmt) bool {
	found := false
	var visit func(n ast.Node, inner bool) bool
	visit = func(n ast.Node, inner bool) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
			if n != ast.Node(body) {
				ast.Inspect(n, func(m ast.Node) bool {
					if b, ok := m.(*ast.BranchStmt); ok && b.Label != nil {
						found = true
					}
					_, lit := m.(*ast.FuncLit)
					return !lit && !found
				})
				return false
			}
		case *ast.BranchStmt:
			if n.Tok == token.BREAK || n.Tok == token.GOTO || n.Label != nil {
				found = true
			}
		}
		return !found
	}
	ast.Inspect(body, func(n ast.Node) bool { return visit(n, false) })
	return found
}

// assigns reports whether body assigns the variable name.
func assigns(body *ast.BlockStmt, name string) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				if id, ok := l.(*ast.Ident); ok && id.Name == name {
					found = true
				}
			}
		case *ast.IncDecStmt:
			if id, ok := n.X.(*ast.Ident); ok && id.Name == name {
				found = true
			}
		case *ast.UnaryExpr:
			if id, ok := n.X.(*ast.Ident); ok && n.Op == token.AND && id.Name == name {
				found = true // its address escapes
			}
		}
		return !found
	})
	return found
}

func mentionsIdent(e ast.Expr, name string) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Name == name {
			found = true
		}
		return !found
	})
	return found
}

// opaqueBound reports whether a loop's test depends on opaque data.
func opaqueBound(node *model.Node) bool {
	opaque := false
	model.Walk(node.Cond, func(n *model.Node) bool {
		if n.Kind == model.KindTest && n.Opaque != "" {
			opaque = true
		}
		return !opaque
	})
	return opaque || (node.Loop.Trip != nil && node.Loop.Trip.Opaque != "")
}

// leavesEarly reports whether a loop body may leave the loop other than by
// its end or a plain break: return, goto, labeled break or continue.
func leavesEarly(body *ast.BlockStmt) bool {
	early := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			early = true
		case *ast.BranchStmt:
			if n.Tok == token.GOTO || n.Label != nil {
				early = true
			}
		}
		return !early
	})
	return early
}

// branch records the outcomes of cond when the model says it is opaque.
func (in *instrumenter) branch(cond ast.Expr, fc *funcCtx) {
	rng := in.rangeOf(cond.Pos(), cond.End())
	for _, t := range fc.tests {
		p := t.Pos.Start
		if !p.IsValid() || p.Before(rng.Start) || !p.Before(rng.End) {
			continue
		}
		root := fc.condOf[t]
		if root == nil {
			root = t
		}
		id := in.fragment(FragBranch, fc, root.ID, nil, rng)
		in.insert(fc.file, cond.Pos(), fmt.Sprintf("__probe.Branch(%d, ", id))
		in.insert(fc.file, cond.End(), ")")
		return
	}
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

func (in *instrumenter) fragment(kind FragmentKind, fc *funcCtx, node string, covers []string, rng model.Range) int32 {
	id := int32(len(in.plan.Fragments))
	in.plan.Fragments = append(in.plan.Fragments, Fragment{ID: id, Kind: kind, Func: fc.f.ID, Node: node, Covers: covers, Pos: rng})
	return id
}

func (in *instrumenter) insert(file string, p token.Pos, text string) {
	in.seq++
	in.edits[file] = append(in.edits[file], edit{offset: in.fset.Position(p).Offset, seq: in.seq, text: text})
}

// pos converts a position the way modelgen does (module-relative file).
func (in *instrumenter) pos(p token.Pos) model.Pos { return in.l.Pos(p) }

func (in *instrumenter) rangeOf(a, b token.Pos) model.Range {
	return model.Range{Start: in.pos(a), End: in.pos(b)}
}

// apply inserts edits into src.
func apply(src []byte, edits []edit) []byte {
	sort.SliceStable(edits, func(i, j int) bool {
		if edits[i].offset != edits[j].offset {
			return edits[i].offset < edits[j].offset
		}
		return edits[i].seq < edits[j].seq
	})
	var out []byte
	last := 0
	for _, e := range edits {
		out = append(out, src[last:e.offset]...)
		out = append(out, e.text...)
		last = e.offset
	}
	return append(out, src[last:]...)
}
