// Command robust measures how well modelgen's structural analysis copes
// with real Go code: it loads every package matching the patterns in a
// module (modelgen.LoadPackages), builds the model of every function
// (modelgen.BuildFunction) and reports how many functions needed an
// unstructured region (model.KindRegion) because the CFG did not reduce to
// sequences, conditionals, switches and loops, how big those regions are,
// whether the builder panicked (a bug: each panic is caught per function,
// counted and printed with a stack excerpt, and the run goes on), and what
// loading and building cost in time and memory.
//
// Usage:
//
//	go run ./modelgen/internal/robust [flags] DIR PATTERN...
//
//	-v          list every function with regions
//	-dump NAME  print the text model and the SSA of the functions named NAME
//	            (the full SSA name, e.g. "(*go/ast.File).Pos"; a substring
//	            when no name matches exactly) instead of the summary;
//	            repeatable
//	-top N      how many of the largest regions to list (20)
//	-tags T     comma-separated build tags
//	-cpuprofile F  write a CPU profile of the build phase to F
//	-features   for each function with regions, list the source features
//	            inside the regions (goto, labeled break/continue,
//	            fallthrough, select, irreducible CFG, ...)
//
// The size of a region is the number of its blocks: nodes of the folded CFG
// (an SSA basic block, or the blocks of a compound condition), jump-out
// stubs excluded. Peak memory is the largest runtime HeapSys and Sys seen
// (sampled every 50 ms and at the end of each phase) and the process peak
// RSS (VmHWM in /proc/self/status).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"go/ast"
	"go/token"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/predict-tools/predict/model"
	"github.com/predict-tools/predict/modelgen"
	"golang.org/x/tools/go/ssa"
)

var (
	verbose  = flag.Bool("v", false, "list every function with regions")
	dump     names
	top      = flag.Int("top", 20, "number of largest regions to list")
	tags     = flag.String("tags", "", "comma-separated build tags")
	cpuprof  = flag.String("cpuprofile", "", "write a CPU profile of the build phase to this file")
	features = flag.Bool("features", false, "list the source features inside each function's regions")
)

// names is a repeatable string flag.
type names []string

func (n *names) String() string     { return strings.Join(*n, " ") }
func (n *names) Set(s string) error { *n = append(*n, s); return nil }

func main() {
	flag.Var(&dump, "dump", "print the text model and SSA of the named function (repeatable)")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: robust [flags] DIR PATTERN...\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() < 2 {
		flag.Usage()
		os.Exit(2)
	}
	dir, patterns := flag.Arg(0), flag.Args()[1:]
	cfg := modelgen.Config{Dir: dir}
	if *tags != "" {
		cfg.Tags = strings.Split(*tags, ",")
	}

	mem := startMemSampler()

	t0 := time.Now()
	l, errs, err := modelgen.LoadPackages(cfg, patterns...)
	loadTime := time.Since(t0)
	mem.sample()
	if err != nil {
		for _, e := range errs {
			fmt.Fprintln(os.Stderr, e)
		}
		fmt.Fprintf(os.Stderr, "robust: %v\n", err)
		os.Exit(1)
	}
	fns := l.Functions()

	if len(dump) > 0 {
		rc := 0
		for _, name := range dump {
			rc = max(rc, dumpFunctions(l, fns, name))
		}
		os.Exit(rc)
	}

	var (
		results []result
		panics  []panicInfo
	)
	if *cpuprof != "" {
		f, err := os.Create(*cpuprof)
		if err != nil {
			fmt.Fprintf(os.Stderr, "robust: %v\n", err)
			os.Exit(1)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintf(os.Stderr, "robust: %v\n", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	t1 := time.Now()
	for _, fn := range fns {
		r := build(l, fn)
		if r.panic != nil {
			panics = append(panics, *r.panic)
			fmt.Fprintf(os.Stderr, "PANIC in %s (%s): %v\n%s\n", fn, position(l, fn), r.panic.value, r.panic.stack)
		}
		results = append(results, r)
	}
	buildTime := time.Since(t1)
	mem.sample()
	mem.stop()

	report(l, errs, results, panics, loadTime, buildTime, mem)
}

// result is what building one function gave.
type result struct {
	fn      *ssa.Function
	f       *model.Function // nil after a panic
	regions []regionInfo
	dur     time.Duration
	panic   *panicInfo
}

type regionInfo struct {
	node   *model.Node
	blocks int // folded-CFG nodes, jump stubs excluded
}

type panicInfo struct {
	fn    *ssa.Function
	value any
	stack string
}

// build models fn, turning a panic into a panicInfo.
func build(l *modelgen.Loaded, fn *ssa.Function) (r result) {
	r.fn = fn
	done := make(chan struct{})
	go watchdog(fn, done)
	defer close(done)
	start := time.Now()
	defer func() {
		r.dur = time.Since(start)
		if v := recover(); v != nil {
			r.f = nil
			r.panic = &panicInfo{fn: fn, value: v, stack: stackExcerpt(debug.Stack(), 14)}
		}
	}()
	r.f = modelgen.BuildFunction(l, fn)
	r.regions = regionsOf(r.f)
	return r
}

// watchdog reports a function whose build takes suspiciously long (a
// possible endless loop in the builder); the run itself cannot stop it.
func watchdog(fn *ssa.Function, done <-chan struct{}) {
	for d := 10 * time.Second; ; d *= 2 {
		select {
		case <-done:
			return
		case <-time.After(d):
			fmt.Fprintf(os.Stderr, "SLOW: building %s has taken more than %v\n", fn, d)
		}
	}
}

// stackExcerpt keeps the frames of a goroutine stack below the panic
// machinery: at most n frames, the first of them where the panic arose.
func stackExcerpt(stack []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(stack)), "\n")
	// lines[0] is "goroutine N [running]:", then pairs of func / file:line.
	var frames []string
	for i := 1; i+1 < len(lines); i += 2 {
		frames = append(frames, "\t"+strings.TrimSpace(lines[i])+"\n\t\t"+strings.TrimSpace(lines[i+1]))
	}
	// Drop everything up to and including the runtime's panic frame.
	for i, f := range frames {
		if strings.Contains(f, "panic(") && strings.Contains(f, "runtime/panic.go") {
			frames = frames[i+1:]
			break
		}
	}
	if len(frames) > n {
		frames = append(frames[:n], fmt.Sprintf("\t... (%d more frames)", len(frames)-n))
	}
	return strings.Join(frames, "\n")
}

// regionsOf returns the unstructured regions of f's trees.
func regionsOf(f *model.Function) []regionInfo {
	var out []regionInfo
	for _, tree := range []*model.Node{f.Tree, f.Recover} {
		model.Walk(tree, func(n *model.Node) bool {
			if n.Kind == model.KindRegion {
				out = append(out, regionInfo{node: n, blocks: regionBlocks(n)})
			}
			return true
		})
	}
	return out
}

// regionBlocks counts the blocks of a region that stand for CFG nodes: a
// jump stub is a block whose only child is a break or continue, with no
// condition and no successors.
func regionBlocks(r *model.Node) int {
	n := 0
	for _, b := range r.Children {
		if b.Cond == nil && len(b.Succs) == 0 && len(b.Children) == 1 &&
			(b.Children[0].Kind == model.KindBreak || b.Children[0].Kind == model.KindContinue) {
			continue
		}
		n++
	}
	return n
}

func position(l *modelgen.Loaded, fn *ssa.Function) string {
	p := fn.Pos()
	if syn := fn.Syntax(); syn != nil {
		p = syn.Pos()
	}
	if !p.IsValid() {
		return "-"
	}
	return relPos(l, l.Prog.Fset.Position(p))
}

func relPos(l *modelgen.Loaded, p token.Position) string {
	file := p.Filename
	if l.ModuleDir != "" {
		file = strings.TrimPrefix(file, l.ModuleDir+string(os.PathSeparator))
	}
	return fmt.Sprintf("%s:%d", file, p.Line)
}

// report prints the summary.
func report(l *modelgen.Loaded, errs []error, results []result, panics []panicInfo,
	loadTime, buildTime time.Duration, mem *memSampler) {
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()

	withRegions, regionNodes := 0, 0
	var all []struct {
		r result
		g regionInfo
	}
	for _, r := range results {
		if len(r.regions) > 0 {
			withRegions++
		}
		regionNodes += len(r.regions)
		for _, g := range r.regions {
			all = append(all, struct {
				r result
				g regionInfo
			}{r, g})
		}
	}
	n := len(results)
	pct := 0.0
	if n > 0 {
		pct = 100 * float64(withRegions) / float64(n)
	}
	fmt.Fprintf(w, "module              %s (%s)\n", l.Module, l.ModuleDir)
	fmt.Fprintf(w, "packages            %d loaded, %d with errors (skipped)\n", len(l.Packages), len(errs))
	fmt.Fprintf(w, "functions           %d\n", n)
	fmt.Fprintf(w, "with regions        %d (%.2f %%)\n", withRegions, pct)
	fmt.Fprintf(w, "region nodes        %d\n", regionNodes)
	fmt.Fprintf(w, "panics              %d\n", len(panics))
	fmt.Fprintf(w, "load time           %v\n", loadTime.Round(time.Millisecond))
	fmt.Fprintf(w, "build time          %v (%.1f µs/function)\n", buildTime.Round(time.Millisecond),
		float64(buildTime.Microseconds())/float64(max(n, 1)))
	fmt.Fprintf(w, "peak HeapSys        %s\n", mib(mem.heapSys))
	fmt.Fprintf(w, "peak Sys            %s\n", mib(mem.sys))
	fmt.Fprintf(w, "peak RSS (VmHWM)    %s\n", vmHWM())

	if len(errs) > 0 {
		fmt.Fprintf(w, "\npackages with errors:\n")
		for _, e := range errs {
			first, _, _ := strings.Cut(e.Error(), "\n")
			fmt.Fprintf(w, "  %s\n", strings.TrimSuffix(first, ":"))
		}
	}

	if len(panics) > 0 {
		fmt.Fprintf(w, "\npanics:\n")
		for _, p := range panics {
			fmt.Fprintf(w, "  %s (%s): %v\n%s\n", p.fn, position(l, p.fn), p.value, p.stack)
		}
	}

	sort.SliceStable(all, func(i, j int) bool { return all[i].g.blocks > all[j].g.blocks })
	if len(all) > 0 {
		fmt.Fprintf(w, "\nlargest regions (blocks, function blocks, region position, function):\n")
		for i, x := range all {
			if i == *top {
				break
			}
			fmt.Fprintf(w, "  %4d %5d  %-45s %s\n", x.g.blocks, x.r.f.Blocks, x.g.node.Pos, x.r.fn)
		}
	}

	slow := slices.Clone(results)
	sort.SliceStable(slow, func(i, j int) bool { return slow[i].dur > slow[j].dur })
	fmt.Fprintf(w, "\nslowest builds:\n")
	for i, r := range slow {
		if i == 5 {
			break
		}
		blocks := len(r.fn.Blocks)
		fmt.Fprintf(w, "  %10v %5d blocks  %s\n", r.dur.Round(time.Microsecond), blocks, r.fn)
	}

	if *verbose || *features {
		fmt.Fprintf(w, "\nfunctions with regions (regions, blocks in regions / function blocks, position, function):\n")
		for _, r := range results {
			if len(r.regions) == 0 {
				continue
			}
			sum := 0
			for _, g := range r.regions {
				sum += g.blocks
			}
			fmt.Fprintf(w, "  %d %4d/%-4d %-40s %s\n", len(r.regions), sum, r.f.Blocks, position(l, r.fn), r.fn)
			if *features {
				fmt.Fprintf(w, "      features: %s\n", strings.Join(featuresOf(l, r), " "))
			}
		}
	}
	if *features {
		hist := map[string]int{}
		for _, r := range results {
			if len(r.regions) == 0 {
				continue
			}
			fs := featuresOf(l, r)
			if len(fs) == 0 {
				fs = []string{"(none)"}
			}
			for _, f := range fs {
				hist[f]++
			}
		}
		var keys []string
		for k := range hist {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			return hist[keys[i]] > hist[keys[j]] || hist[keys[i]] == hist[keys[j]] && keys[i] < keys[j]
		})
		fmt.Fprintf(w, "\nfeatures of functions with regions (a function counts once per feature):\n")
		for _, k := range keys {
			fmt.Fprintf(w, "  %5d %s\n", hist[k], k)
		}
	}
}

// featuresOf lists the source constructs that lie inside the regions of a
// function, and "irreducible" when its SSA CFG has a retreating edge whose
// target does not dominate its source.
func featuresOf(l *modelgen.Loaded, r result) []string {
	set := map[string]bool{}
	if irreducible(r.fn) {
		set["irreducible"] = true
	}
	syn := r.fn.Syntax()
	if syn != nil {
		fset := l.Prog.Fset
		inRegion := func(n ast.Node) bool {
			p := fset.Position(n.Pos())
			for _, g := range r.regions {
				s, e := g.node.Pos.Start, g.node.Pos.End
				if p.Line >= s.Line && p.Line <= e.Line {
					return true
				}
			}
			return false
		}
		ast.Inspect(syn, func(n ast.Node) bool {
			if lit, ok := n.(*ast.FuncLit); ok && lit != syn {
				return false
			}
			if n == nil || !inRegion(n) {
				return true
			}
			switch n := n.(type) {
			case *ast.BranchStmt:
				switch {
				case n.Tok == token.GOTO:
					set["goto"] = true
				case n.Tok == token.FALLTHROUGH:
					set["fallthrough"] = true
				case n.Label != nil:
					set["labeled-"+n.Tok.String()] = true
				case n.Tok == token.BREAK:
					set["break"] = true
				case n.Tok == token.CONTINUE:
					set["continue"] = true
				}
			case *ast.SelectStmt:
				set["select"] = true
			case *ast.TypeSwitchStmt:
				set["typeswitch"] = true
			case *ast.SwitchStmt:
				set["switch"] = true
			case *ast.DeferStmt:
				set["defer"] = true
			case *ast.RangeStmt:
				set["range"] = true
			case *ast.ForStmt:
				if n.Cond == nil {
					set["for{}"] = true
				} else {
					set["for"] = true
				}
			case *ast.CallExpr:
				if id, ok := n.Fun.(*ast.Ident); ok && (id.Name == "panic" || id.Name == "recover") {
					set[id.Name] = true
				}
			case *ast.ReturnStmt:
				set["return"] = true
			}
			return true
		})
	}
	var out []string
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// irreducible reports whether fn's CFG has a cycle entered other than by a
// dominating header.
func irreducible(fn *ssa.Function) bool {
	state := map[*ssa.BasicBlock]int{} // 1 on stack, 2 done
	found := false
	var dfs func(b *ssa.BasicBlock)
	dfs = func(b *ssa.BasicBlock) {
		state[b] = 1
		for _, s := range b.Succs {
			switch state[s] {
			case 0:
				dfs(s)
			case 1:
				if !s.Dominates(b) {
					found = true
				}
			}
		}
		state[b] = 2
	}
	if len(fn.Blocks) > 0 {
		dfs(fn.Blocks[0])
	}
	if fn.Recover != nil && state[fn.Recover] == 0 {
		dfs(fn.Recover)
	}
	return found
}

// dumpFunctions prints the model and SSA of the functions named name.
func dumpFunctions(l *modelgen.Loaded, fns []*ssa.Function, name string) int {
	var match []*ssa.Function
	for _, fn := range fns {
		if fn.String() == name {
			match = append(match, fn)
		}
	}
	if len(match) == 0 {
		for _, fn := range fns {
			if strings.Contains(fn.String(), name) {
				match = append(match, fn)
			}
		}
	}
	if len(match) == 0 {
		fmt.Fprintf(os.Stderr, "robust: no function named %q\n", name)
		return 1
	}
	if len(match) > 10 {
		fmt.Fprintf(os.Stderr, "robust: %d functions match %q; first ones:\n", len(match), name)
		for _, fn := range match[:10] {
			fmt.Fprintf(os.Stderr, "  %s\n", fn)
		}
		return 1
	}
	rc := 0
	for _, fn := range match {
		fmt.Printf("==== %s  %s\n", fn, position(l, fn))
		r := build(l, fn)
		if r.panic != nil {
			fmt.Printf("PANIC: %v\n%s\n", r.panic.value, r.panic.stack)
			rc = 1
		} else {
			prog := &model.Program{Version: model.FormatVersion, Module: l.Module, Package: fn.Pkg.Pkg.Path(),
				Body: r.f.ID, Functions: []*model.Function{r.f}}
			if err := prog.WriteText(os.Stdout); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
			if len(r.regions) > 0 {
				fmt.Printf("features in regions: %s\n", strings.Join(featuresOf(l, r), " "))
			}
		}
		fmt.Printf("\n---- SSA\n")
		fn.WriteTo(os.Stdout)
		fmt.Println()
	}
	return rc
}

// memSampler records the largest HeapSys and Sys of the process.
type memSampler struct {
	mu           sync.Mutex
	heapSys, sys uint64
	quit         chan struct{}
	wg           sync.WaitGroup
}

func startMemSampler() *memSampler {
	m := &memSampler{quit: make(chan struct{})}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-m.quit:
				return
			case <-t.C:
				m.sample()
			}
		}
	}()
	return m
}

func (m *memSampler) sample() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m.mu.Lock()
	m.heapSys = max(m.heapSys, ms.HeapSys)
	m.sys = max(m.sys, ms.Sys)
	m.mu.Unlock()
}

func (m *memSampler) stop() {
	close(m.quit)
	m.wg.Wait()
}

func mib(b uint64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }

// vmHWM returns the process's peak resident set size.
func vmHWM() string {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			f := strings.Fields(rest)
			if len(f) == 2 && f[1] == "kB" {
				if kb, err := strconv.ParseUint(f[0], 10, 64); err == nil {
					return mib(kb << 10)
				}
			}
			return strings.TrimSpace(rest)
		}
	}
	return "unknown"
}
