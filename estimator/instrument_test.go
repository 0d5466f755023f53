package estimator

import (
	"bytes"
	"fmt"
	"go/parser"
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/predict-tools/predict/modelgen"
	"github.com/predict-tools/predict/profile"
	"github.com/predict-tools/predict/reduce"
)

// plan instruments a test program (dir relative to the module root).
func plan(t *testing.T, dir string) (*modelgen.Loaded, *Plan) {
	t.Helper()
	prep := prepared(t, dir)
	return prep.Loaded, instrumentWith(t, prep, pilotCuts{})
}

// prepared loads and reduces a test program (dir relative to the module
// root).
func prepared(t *testing.T, dir string) *reduce.Prepared {
	t.Helper()
	prep, err := reduce.Prepare(modelgen.Config{Dir: "..", Pattern: "./" + dir}, reduce.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return prep
}

// instrumentWith instruments prep with what a pilot run cut.
func instrumentWith(t *testing.T, prep *reduce.Prepared, cuts pilotCuts) *Plan {
	t.Helper()
	p, err := instrument(prep, cuts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// overlayFile is the instrumented text of the file of p's overlay whose
// path ends with suffix ("" for none).
func overlayFile(p *Plan, suffix string) string {
	for path, b := range p.Overlay {
		if strings.HasSuffix(path, suffix) {
			return string(b)
		}
	}
	return ""
}

// TestInstrumentKeepsLines checks that the instrumented files parse and
// keep every token of the user's file on its line: the tokens of the
// original, with their lines, are a subsequence of the instrumented
// file's, with the lines its line directives give (the loops timed whole
// are there twice).
func TestInstrumentKeepsLines(t *testing.T) {
	for _, dir := range []string{"testprogs/stencil", "testprogs/masterworker", "testprogs/hybrid", "testprogs/ft", "testprogs/ep", "testprogs/cg"} {
		t.Run(dir, func(t *testing.T) {
			_, p := plan(t, dir)
			if len(p.Fragments) == 0 {
				t.Fatal("no fragments")
			}
			kinds := map[profile.FragmentKind]int{}
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
				want, got := lineTokens(file, orig), lineTokens(file, text)
				i := 0
				for _, tok := range got {
					if i < len(want) && tok == want[i] {
						i++
					}
				}
				if i < len(want) {
					t.Errorf("%s: %s is not on its line", filepath.Base(file), want[i])
				}
				if testing.Verbose() && strings.HasSuffix(file, "jacobi.go") {
					t.Logf("%s", text)
				}
			}
		})
	}
}

// lineTokens returns a file's tokens as "line: token", lines as the line
// directives make them.
func lineTokens(name string, src []byte) []string {
	fset := token.NewFileSet()
	f := fset.AddFile(name, -1, len(src))
	var s scanner.Scanner
	s.Init(f, src, nil, 0)
	var toks []string
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return toks
		}
		if tok == token.SEMICOLON && lit == "\n" {
			continue // inserted at a line's end: the instrumented line goes on
		}
		if lit == "" {
			lit = tok.String()
		}
		toks = append(toks, fmt.Sprintf("%d: %s", fset.Position(pos).Line, lit))
	}
}

// TestVersionedLoops checks the text of a loop timed whole: the sampled
// copy and the original, each under a line directive giving the loop's
// position, the original without the sampling probes and with its own
// edits (the start of a resumed entry).
func TestVersionedLoops(t *testing.T) {
	src := []byte("package p\n\nfunc f(xs []int) (s int) {\n\tfor _, x := range xs {\n\t\ts += x\n\t}\n\treturn s\n}\n")
	loop := bytes.Index(src, []byte("for"))
	body := bytes.Index(src, []byte("{\n\t\ts")) + 1
	end := bytes.Index(src, []byte("\treturn")) - 1
	xs := bytes.Index(src, []byte("xs {"))
	edits := []edit{
		{offset: body, seq: 1, text: " n++;"},
		{offset: body, seq: 2, text: " SAMPLE;", sampled: true},
		{offset: xs, seq: 3, text: "RESUME(", plain: true},
		{offset: xs + 2, seq: 4, text: ")", plain: true},
	}
	versions := []version{{start: loop, end: end, line: 4, col: 2, sampled: "PRE { ", plain: " } else { ", close: " }; POST"}}
	got := string(apply(src, edits, versions))
	want := "package p\n\nfunc f(xs []int) (s int) {\n\tPRE { /*line :4:2*/for _, x := range xs { n++; SAMPLE;\n\t\ts += x\n\t}" +
		" } else { /*line :4:2*/for _, x := range RESUME(xs) { n++;\n\t\ts += x\n\t} }; POST\n\treturn s\n}\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestNestedVersions: a loop timed whole inside another's body (in a
// closure) is written twice in each copy of the outer one, its sampling
// probe in its own sampled copies only, the closure's other probes in
// every copy.
func TestNestedVersions(t *testing.T) {
	src := []byte("package p\n\nfunc f() {\n\tfor range 2 {\n\t\tg := func() {\n\t\t\tfor range 3 {\n\t\t\t}\n\t\t}\n\t\tg()\n\t}\n}\n")
	outer := bytes.Index(src, []byte("for range 2"))
	inner := bytes.Index(src, []byte("for range 3"))
	edits := []edit{
		{offset: inner + len("for range 3 {"), seq: 1, text: " S;", sampled: true},
		{offset: bytes.Index(src, []byte("func() {")) + len("func() {"), seq: 2, text: " V;"},
	}
	versions := []version{
		{start: outer, end: bytes.LastIndex(src, []byte("\t}\n}")) + 2, line: 4, col: 2, sampled: "A{", plain: "}B{", close: "}C"},
		{start: inner, end: bytes.Index(src, []byte("\t\t\t}\n")) + 4, line: 6, col: 4, sampled: "a{", plain: "}b{", close: "}c"},
	}
	innerText := "a{/*line :6:4*/for range 3 { S;\n\t\t\t}}b{/*line :6:4*/for range 3 {\n\t\t\t}}c"
	outerBody := " {\n\t\tg := func() { V;\n\t\t\t" + innerText + "\n\t\t}\n\t\tg()\n\t}"
	want := "package p\n\nfunc f() {\n\tA{/*line :4:2*/for range 2" + outerBody + "}B{/*line :4:2*/for range 2" + outerBody + "}C\n}\n"
	if got := string(apply(src, edits, versions)); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestInnermostNests checks which whole loops are timed per innermost
// iteration: stencil2d's sweep (rows × columns, the column count fixed
// before the rows loop) is; a single loop is not.
func TestInnermostNests(t *testing.T) {
	_, p := plan(t, "testprogs/stencil2d")
	got := map[string]bool{}
	for _, f := range p.Fragments {
		if f.Kind == profile.FragLoop {
			got[f.Node] = f.Innermost
		}
	}
	if !got["sweep/loop@+3:2"] {
		t.Errorf("stencil2d's sweep nest is not timed per innermost iteration: %v", got)
	}
	if got["main$1/loop@+51:4"] {
		t.Errorf("a single loop is marked innermost: %v", got)
	}
}

// TestInstrumentThreads: a program that runs pool or Parallel threads is
// declared with DeclareThreads and starts every fragment with NowThread
// (the thread clock); one without threads keeps Declare and Now.
func TestInstrumentThreads(t *testing.T) {
	for _, c := range []struct {
		dir     string
		threads bool
	}{{"testprogs/hybrid", true}, {"testprogs/patterns/lockcontention", true}, {"testprogs/stencil", false}} {
		_, p := plan(t, c.dir)
		if p.Threads != c.threads {
			t.Errorf("%s: threads %v, want %v", c.dir, p.Threads, c.threads)
		}
		var all strings.Builder
		for _, text := range p.Overlay {
			all.Write(text)
		}
		now, nowThread := strings.Count(all.String(), "__probe.Now()"), strings.Count(all.String(), "__probe.NowThread()")
		declThreads := strings.Contains(all.String(), "__probe.DeclareThreads(")
		if c.threads && (now != 0 || nowThread == 0 || !declThreads) || !c.threads && (nowThread != 0 || now == 0 || declThreads) {
			t.Errorf("%s: %d Now, %d NowThread, DeclareThreads %v", c.dir, now, nowThread, declThreads)
		}
	}
}

// TestResumedLoops: a for loop with an integer variable resumes in its
// original copy after its samples (ep's batch loop, stencil's sweep); a
// range loop does not (its state is not a variable the original copy can
// start from).
func TestResumedLoops(t *testing.T) {
	for _, c := range []struct {
		dir, file, loop string
		resumed         bool
	}{
		{"testprogs/ep", "testprogs/ep/main.go", "for first := int64(__probe.Resume(", true},
		{"testprogs/stencil", "testprogs/stencil/jacobi.go", "for i := int(__probe.Resume(", true},
		// joinCounts' range loop keeps both copies as written.
		{"testprogs/ep", "testprogs/ep/main.go", "for i, n := range q {", false},
	} {
		_, p := plan(t, c.dir)
		text := overlayFile(p, c.file)
		if c.resumed {
			if !strings.Contains(text, c.loop) || !strings.Contains(text, "= 2; break }") {
				t.Errorf("%s: no resumed loop %q", c.file, c.loop)
			}
			continue
		}
		if n := strings.Count(text, c.loop); n != 2 {
			t.Errorf("%s: %q written %d times, want twice (both copies as written)", c.file, c.loop, n)
		}
	}
}

// TestCallSiteTiming: stencil's sweep, one loop behind a declaration, is
// timed from its call sites: its own code has no probe (it stays
// inlinable), each call statement times it or, for a sampled entry, calls
// its instrumented clone; ep's gaussianPairs (a prologue that calls) keeps
// its probes.
func TestCallSiteTiming(t *testing.T) {
	_, p := plan(t, "testprogs/stencil")
	var jacobi, main string
	for path, b := range p.Overlay {
		switch {
		case strings.HasSuffix(path, "testprogs/stencil/jacobi.go"):
			jacobi = string(b)
		case strings.HasSuffix(path, "testprogs/stencil/main.go"):
			main = string(b)
		}
	}
	i := strings.Index(jacobi, "func sweep(")
	if i < 0 {
		t.Fatal("sweep not found")
	}
	if body := jacobi[i : i+strings.Index(jacobi[i:], "\n}")]; strings.Contains(body, "__probe") {
		t.Errorf("sweep holds probes:\n%s", body)
	}
	if !strings.Contains(jacobi, "func sweep__psample(u, next, src []float64) float64 {") ||
		!strings.Contains(jacobi, "(__probe.IterSamples + 1)") {
		t.Errorf("no instrumented clone of sweep that always samples")
	}
	loops := 0
	for _, f := range p.Fragments {
		if f.Kind == profile.FragLoop && strings.HasPrefix(f.Node, "sweep/") {
			loops++
		}
	}
	if loops != 1 {
		t.Errorf("%d fragments for sweep's loop, want 1", loops)
	}
	if !strings.Contains(main, "local[0] = sweep__psample(u, next, src) } else { __lk = int64(__probe.TripsTo(int(1), int(len((u))-1), 1)); __lc = ") ||
		!strings.Contains(main, "local[0] = sweep(u, next, src); __probe.LoopApart(") {
		t.Errorf("the call of sweep in main.go is not timed at its site")
	}
	_, p = plan(t, "testprogs/ep")
	for path, b := range p.Overlay {
		if strings.HasSuffix(path, "testprogs/ep/main.go") && strings.Contains(string(b), "gaussianPairs__psample") {
			t.Errorf("gaussianPairs, whose prologue calls, is timed from its call sites")
		}
	}
}

// TestOutlinedCopies: the sampled copy of a loop timed whole is written as
// a function of its own when its variables can travel by value (a struct
// written field by field comes back, a slice or a pointer goes in only),
// and stays in its function when the loop takes an address (explicitly,
// by a pointer method on a local value, by slicing a local array) or uses
// a type declared in the function. ep's gaussianPairs then holds one copy
// of its loop nest.
func TestOutlinedCopies(t *testing.T) {
	_, p := plan(t, "estimator/testdata/outline")
	text := overlayFile(p, "testdata/outline/main.go")
	want := map[string]string{
		"structField": "acc, __ls%[1]d, __li%[1]d, __rs%[1]d, __rx%[1]d = __psample%[1]d(n, acc, __ls%[1]d, __li%[1]d, __rs%[1]d, __rx%[1]d)",
		"viaSlice":    "__ls%[1]d, __li%[1]d = __psample%[1]d(xs, __ls%[1]d, __li%[1]d)",
		"builder":     "__ls%[1]d, __li%[1]d, __rs%[1]d, __rx%[1]d = __psample%[1]d(n, b, __ls%[1]d, __li%[1]d, __rs%[1]d, __rx%[1]d)",
		"address":     "", "method": "", "arraySlice": "", "localType": "",
	}
	seen := map[string]bool{}
	for _, f := range p.Fragments {
		call, ok := want[f.Func]
		if !ok || f.Kind != profile.FragLoop {
			continue
		}
		seen[f.Func] = true
		outlined := strings.Contains(text, fmt.Sprintf("__psample%d(", f.ID))
		if call == "" {
			if outlined {
				t.Errorf("%s: its sampled copy is outlined", f.Func)
			}
			continue
		}
		if c := fmt.Sprintf(call, f.ID); !strings.Contains(text, c) {
			t.Errorf("%s: no %q", f.Func, c)
		}
	}
	for name := range want {
		if !seen[name] {
			t.Errorf("%s: no loop fragment", name)
		}
	}
	_, p = plan(t, "testprogs/ep")
	for path, b := range p.Overlay {
		if !strings.HasSuffix(path, "testprogs/ep/main.go") {
			continue
		}
		text := string(b)
		i := strings.Index(text, "func gaussianPairs(")
		body := text[i : i+strings.Index(text[i:], "\n}")]
		if n := strings.Count(body, "math.Log(t1)"); n != 1 {
			t.Errorf("gaussianPairs holds %d copies of its loop nest, want 1", n)
		}
		if n := strings.Count(text, "math.Log(t1)"); n != 2 {
			t.Errorf("ep's main.go holds %d copies of gaussianPairs' loop nest, want 2", n)
		}
	}
}

// TestSealedRecursion: barneshut's tree recursions (insertion, centres of
// mass, forces), which the reduction seals, get no probes, and the call
// of the centre-of-mass walk is timed in its caller's straight-line
// fragment with the allocations after it.
func TestSealedRecursion(t *testing.T) {
	_, p := plan(t, "testprogs/corpus/barneshut")
	main := overlayFile(p, "testprogs/corpus/barneshut/main.go")
	for _, fn := range []string{"insert", "child", "summarize", "force"} {
		i := strings.Index(main, "func (c *cell) "+fn+"(")
		if i < 0 {
			t.Fatalf("%s not found", fn)
		}
		if body := main[i : i+strings.Index(main[i:], "\n}")]; strings.Contains(body, "__probe") {
			t.Errorf("%s holds probes:\n%s", fn, body)
		}
	}
	found := false
	for _, f := range p.Fragments {
		if f.Kind == profile.FragSegment && strings.HasSuffix(f.Pos.String(), "barneshut/main.go:170-171") {
			found = true
		}
	}
	if !found {
		t.Errorf("no segment of main.go:170-171 (the call of summarize and the allocations after it): %+v", p.Fragments)
	}
}
