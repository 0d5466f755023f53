package modelgen

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/predict-tools/predict/model"
)

// shapes are the tricky control-flow shapes the structural analysis must
// handle, one function each. want lists regular expressions the text form
// of the function's tree must match; regions is how many unstructured
// regions it may have (only goto into a loop needs one).
var shapes = []struct {
	name, src string
	want      []string
	regions   int
}{
	{"seq", `func seq(a, b int) int { x := a + b; y := x * 2; return y }`,
		[]string{`(?m)^  seq`, `ret`}, 0},
	{"ifThen", `func ifThen(a int) int { if a > 0 { a++ }; return a }`,
		[]string{`\bif\b`}, 0},
	{"ifElse", `func ifElse(a int) int { if a > 0 { a++ } else { a-- }; return a }`,
		[]string{`ifelse`, `then:`, `else:`}, 0},
	{"elseIfChain", `func elseIfChain(a int) int {
	if a > 10 { sink(1) } else if a > 5 { sink(2) } else { sink(3) }
	return a }`, []string{`ifelse(.|\n)*ifelse`}, 0},
	{"earlyReturn", `func earlyReturn(a int, err error) int {
	if err != nil { return 0 }
	if a < 0 { return -1 }
	return a * 2 }`, []string{`if(.|\n)*ret(.|\n)*if(.|\n)*ret(.|\n)*ret`}, 0},
	{"switchValue", `func switchValue(x int) int {
	switch x {
	case 1: sink(10)
	case 2, 3: sink(20)
	default: sink(0)
	}
	return x }`, []string{`switch value on x`, `cond: or`, `case default`}, 0},
	{"switchTagless", `func switchTagless(a, b int) int {
	switch {
	case a < b: return -1
	case a > b: return 1
	}
	return 0 }`, []string{`switch cond`}, 0},
	// fallthrough jumps from one case body into the next: the bodies
	// share a tail; it stays a chain of conditionals whose common tail is
	// the fallthrough target (the return is copied where it ends a case).
	{"switchFallthrough", `func switchFallthrough(x int) int {
	s := 0
	switch x {
	case 1: s += 1; fallthrough
	case 2: s += 2
	case 3: s += 3
	}
	return s }`, []string{`ifelse`}, 0},
	// A fallthrough whose target does not end the function needs a region.
	{"switchFallthroughRegion", `func switchFallthroughRegion(x int) int {
	s := 0
	switch x {
	case 1: s += 1; fallthrough
	case 2: s += 2
	case 3: s += 3
	default: s = -1
	}
	if s > 3 { sink(s) }
	return s }`, []string{`region`}, 1},
	// The early-exit shapes the robustness run found (modelgen/internal/robust).
	{"rangeIntEarlyReturn", `func rangeIntEarlyReturn(n int) int {
	s := 0
	for i := range n {
		if i*i > n { return i }
		s += i
	}
	if s > 3 { sink(s) }
	return s }`, []string{`loop range over int test-at-bottom`}, 0},
	{"infiniteLeadingBreak", `func infiniteLeadingBreak(n int) int {
	for {
		if n > 10 { sink(n); break }
		if n < 0 { break }
		n++
	}
	if n > 3 { sink(n) }
	return n }`, []string{`loop infinite`, `break`}, 0},
	{"nestedInfinite", `func nestedInfinite(xs []int) {
	for {
		for _, x := range xs { if x > 0 { return } }
		sink(0)
	} }`, []string{`loop infinite(.|\n)*loop range`}, 0},
	{"postWithContinue", `func postWithContinue(xs []int) int {
	i := 0
	for ; ; i++ {
		if xs[i] < 0 {
			if xs[i] < -5 { continue }
			sink(i)
		}
		if xs[i] > 10 { break }
	}
	return i }`, []string{`post:`}, 0},
	{"rangeFuncContinue", `func rangeFuncContinue(seq func(yield func(int) bool)) {
	for x := range seq {
		if x > 0 {
			if x > 5 { continue }
			if x > 7 { continue }
			sink(x)
		}
		sink(0)
	} }`, []string{`seq`}, 0},
	{"typeSwitch", `func typeSwitch(x any) int {
	switch v := x.(type) {
	case int: return v
	case string: return len(v)
	default: return -1
	}}`, []string{`switch type`}, 0},
	{"selectStmt", `func selectStmt(a, b chan int) int {
	select {
	case v := <-a: return v
	case b <- 1: return 1
	default: return 0
	}}`, []string{`switch select`}, 0},
	{"forLoop", `func forLoop(n int) int { s := 0; for i := 0; i < n; i++ { s += i }; return s }`,
		[]string{`loop for`}, 0},
	{"forContinue", `func forContinue(n int) int {
	s := 0
	for i := 0; i < n; i++ { if i%3 == 0 { continue }; s += i }
	return s }`, []string{`loop for`, `post:`}, 0},
	{"whileLoop", `func whileLoop(x int) int { for x > 1 { x /= 2 }; return x }`,
		[]string{`loop while`}, 0},
	{"doWhile", `func doWhile(x, n int) int { for { x++; if x > n { break } }; return x }`,
		[]string{`loop do-while`}, 0},
	{"infiniteMiddleBreak", `func infiniteMiddleBreak(x int) int {
	for { x = x*3 + 1; if x%7 == 0 { break }; x /= 2 }
	return x }`, []string{`loop (infinite|do-while)`}, 0},
	{"rangeSlice", `func rangeSlice(xs []int) int { s := 0; for _, v := range xs { s += v }; return s }`,
		[]string{`loop range over slice`}, 0},
	{"rangeArray", `func rangeArray(xs [4]int) int { s := 0; for i := range xs { s += xs[i] }; return s }`,
		[]string{`loop range over array`}, 0},
	{"rangeInt", `func rangeInt(n int) int { s := 0; for i := range n { if i%2 == 0 { s++ } }; return s }`,
		[]string{`loop range over int`}, 0},
	{"rangeMap", `func rangeMap(m map[string]int) int { s := 0; for _, v := range m { s += v }; return s }`,
		[]string{`loop range over map`}, 0},
	{"rangeChan", `func rangeChan(c chan int) int { s := 0; for v := range c { s += v }; return s }`,
		[]string{`loop range over chan`}, 0},
	{"rangeString", `func rangeString(s string) int { n := 0; for _, r := range s { if r == 'a' { n++ } }; return n }`,
		[]string{`loop range over string`}, 0},
	{"rangeFunc", `func rangeFunc(seq func(yield func(int) bool)) int {
	s := 0
	for v := range seq { if v < 0 { break }; s += v }
	return s }`, []string{`seq`}, 0},
	{"labeledBreak", `func labeledBreak(m [][]int) int {
	n := 0
outer:
	for _, row := range m {
		for _, v := range row { if v < 0 { break outer }; n += v }
	}
	return n }`, []string{`break labeledBreak/loop@\+3`}, 0},
	{"labeledContinue", `func labeledContinue(m [][]int) int {
	n := 0
outer:
	for _, row := range m {
		for _, v := range row { if v < 0 { continue outer }; n += v }
		n++
	}
	return n }`, []string{`continue labeledContinue/loop@\+3`}, 0},
	{"returnInLoop", `func returnInLoop(xs []int, t int) bool {
	for _, v := range xs { if v == t { return true } }
	return false }`, []string{`loop range(.|\n)*ret(.|\n)*ret`}, 0},
	{"severalExits", `func severalExits(xs []int) int {
	s := 0
	for i := 0; i < len(xs); i++ {
		if xs[i] < 0 { return -1 }
		if xs[i] == 0 { break }
		s += xs[i]
	}
	return s }`, []string{`loop for`, `break`}, 0},
	{"andCond", `func andCond(a, b int) int { if a > 0 && b > 0 { return 1 }; return 0 }`,
		[]string{`cond: and`}, 0},
	{"orCond", `func orCond(a, b int) int { if a > 0 || b > 0 { return 1 }; return 0 }`,
		[]string{`cond: or`}, 0},
	{"mixedCond", `func mixedCond(a, b, c int) int { if (a > 0 && b > 0) || !(c > 0) { return 1 }; return 0 }`,
		[]string{`cond: or`, `and`}, 0},
	{"loopAndCond", `func loopAndCond(xs []int, n int) int {
	i := 0
	for i < n && xs[i] != 0 { i++ }
	return i }`, []string{`loop while`, `cond: and`}, 0},
	{"gotoForward", `func gotoForward(x int) int {
	if x > 3 { goto done }
	x *= 2
done:
	return x }`, []string{`\bif\b`}, 0},
	{"gotoLoop", `func gotoLoop(x int) int {
again:
	x++
	if x < 10 { goto again }
	return x }`, []string{`loop do-while`}, 0},
	{"irreducible", `func irreducible(a bool, n int) int {
	if a { goto second }
first:
	n++
second:
	n *= 2
	if n < 100 { goto first }
	return n }`, []string{`region`}, 1},
	{"deferRecover", `func deferRecover(x int) (r int) {
	defer func() { if recover() != nil { r = -1 } }()
	if x < 0 { panic("negative") }
	return x }`, []string{`defer`, `panic`, `rundefers`, `recover:`}, 0},
	{"goStmt", `func goStmt(c chan int) { go func() { c <- 1 }(); <-c }`,
		[]string{`spawn goStmt\$1`}, 0},
	{"closureCall", `func closureCall(k int) int { f := func(x int) int { return x + k }; return f(2) }`,
		[]string{`ufc closureCall\$1`}, 0},
	{"methodCall", `type T struct{ v int }
func (t T) Get() int { return t.v }
func (t *T) String() string { return "T" }
func methodCall(t T) int { return t.Get() }`, []string{`ufc \(T\)\.Get\(t\)`}, 0},
	{"interfaceCall", `type Shape interface{ Area() float64 }
type Square struct{ s float64 }
func (q Square) Area() float64 { return q.s * q.s }
type Circle struct{ r float64 }
func (c *Circle) Area() float64 { return 3 * c.r * c.r }
func interfaceCall(sh Shape) float64 { return sh.Area() }`,
		[]string{`ufc \(shapes\.Shape\)\.Area\(sh\) dynamic targets=\[\(\*Circle\)\.Area \(Square\)\.Area\]`}, 0},
	{"funcValueCall", `func double(x int) int { return 2 * x }
func triple(x int) int { return 3 * x }
func pick(k int) func(int) int { if k > 0 { return double }; return triple }
func funcValueCall(k int) int { f := pick(k); return f(k) }`,
		[]string{`dynamic targets=\[(closureCall\$1 )?double triple\]`}, 0},
	{"genericInstance", `func Max[T int | float64](a, b T) T { if a > b { return a }; return b }
func genericInstance(a, b int) int { return Max(a, b) }`, []string{`ufc Max\[int\]`}, 0},
}

var shapesOnce struct {
	sync.Once
	l   *Loaded
	err error
}

// loadShapes writes every shape into one main package in a temporary
// module and loads it once.
func loadShapes(t *testing.T) *Loaded {
	shapesOnce.Do(func() {
		dir, err := os.MkdirTemp("", "modelgen-shapes")
		if err != nil {
			shapesOnce.err = err
			return
		}
		var src strings.Builder
		src.WriteString("package main\n\nfunc main() {}\n\nfunc sink(int) {}\n")
		for _, s := range shapes {
			src.WriteString("\n" + s.src + "\n")
		}
		files := map[string]string{"go.mod": "module shapes\n\ngo 1.26\n", "main.go": src.String()}
		for name, text := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				shapesOnce.err = err
				return
			}
		}
		shapesOnce.l, shapesOnce.err = Load(Config{Dir: dir, Pattern: "."})
	})
	if shapesOnce.err != nil {
		t.Fatal(shapesOnce.err)
	}
	return shapesOnce.l
}

func TestShapes(t *testing.T) {
	l := loadShapes(t)
	for _, s := range shapes {
		t.Run(s.name, func(t *testing.T) {
			prog, ssaOf, err := BuildWithSSA(l, Options{Func: s.name})
			if err != nil {
				t.Fatal(err)
			}
			f := prog.Func(s.name)
			if f == nil {
				t.Fatalf("no model of %s", s.name)
			}
			one := &model.Program{Functions: []*model.Function{f}}
			var buf bytes.Buffer
			one.WriteText(&buf)
			text := buf.String()
			for _, w := range s.want {
				if !regexp.MustCompile(w).MatchString(text) {
					t.Errorf("tree does not match %q:\n%s", w, text)
				}
			}
			if got := f.Regions(); got != s.regions {
				t.Errorf("%d unstructured regions, want %d:\n%s", got, s.regions, text)
			}
			for _, g := range prog.Functions {
				checkCoverage(t, g, ssaOf[g])
				checkWalks(t, g, ssaOf[g], 50)
			}
		})
	}
}
