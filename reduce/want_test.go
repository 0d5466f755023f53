// This file defines the harness of the inline expectations: the packages
// of testdata/want carry, on the line of each loop statement and each
// opaque decision, a "// want" comment saying what reduce decides there,
// in the style of analysistest.
//
// A want is a list of facts, each a name or name:"text" (a Go string):
//
//	collapse, iterate, units   the loop plan's verdict; with text, a
//	                           substring of its reason (Loop.Why)
//	sealed                     the loop is sealed (without it: not sealed)
//	trips:"formula"            the loop's trip-count formula, exactly
//	source:"counted"           where a loop's trips come from (counted, clock,
//	                           replayed)
//	opaque:"text"              an opaque decision on this line whose reason
//	                           holds text (one per decision)
//	computed                   a branch on this line that the model keeps and
//	                           computes
//	shape:"text"               an allocation on this line kept as a shape only
//	                           (one per allocation), text a substring of
//	                           the allocation's description
//	sealedfn:"text"            on a function's first line: the model never
//	                           enters it (a sealed recursion), text a
//	                           substring of why
//	sealedcall                 a call through a value on this line that the
//	                           model never follows (sealdyn.go)
//
// A line whose comment goes on with "// BUG: why" is a known bug: its
// want says what reduce should decide, which it does not yet; the test
// logs the difference and fails once the want is met, so that the mark
// goes with the fix.
//
// Both ways: every want must be met, and every loop, opaque decision and
// shape-only allocation of the package's files must be wanted, so that a
// verdict that changes anywhere fails, naming file:line, what reduce
// decided and what was wanted. So must every function the model never
// enters (sealedfn) and every call it never follows (sealedcall).

package reduce

import (
	"cmp"
	"fmt"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/predict-tools/predict/model"
	"golang.org/x/tools/go/ssa"
)

// TestWant checks every package of testdata/want against its wants.
func TestWant(t *testing.T) {
	dirs, err := os.ReadDir(filepath.Join("testdata", "want"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		t.Run(d.Name(), func(t *testing.T) {
			checkWants(t, "reduce/testdata/want/"+d.Name())
		})
	}
}

// fact is one expectation of a want comment, or one decision of reduce.
type fact struct {
	name, text string
}

func (f fact) String() string {
	if f.text == "" {
		return f.name
	}
	return f.name + ":" + strconv.Quote(f.text)
}

// where is a line of a file of the package.
type where struct {
	file string
	line int
}

func (w where) String() string { return fmt.Sprintf("%s:%d", w.file, w.line) }

// checkWants reduces the package in dir (relative to the module root) and
// compares its decisions, line by line, with the wants of its files.
func checkWants(t *testing.T, dir string) {
	wants, bugs := readWants(t, filepath.Join("..", dir))
	if len(wants) == 0 {
		t.Fatalf("%s: no // want comment", dir)
	}
	_, _, rep := reduceProgram(t, dir, Options{})
	got := decisions(rep, dir)
	lines := map[where]bool{}
	for k := range wants {
		lines[k] = true
	}
	for k := range got {
		lines[k] = true
	}
	for _, line := range slices.SortedFunc(maps.Keys(lines), func(x, y where) int {
		return cmp.Or(strings.Compare(x.file, y.file), cmp.Compare(x.line, y.line))
	}) {
		problems := compare(wants[line], got[line])
		switch bug := bugs[line]; {
		case bug != "" && len(problems) == 0:
			t.Errorf("%s/%s: the known bug is fixed (%s): remove its BUG mark", dir, line, bug)
		case bug != "":
			t.Logf("%s/%s: known bug: %s: %s\n\tgot  %v\n\twant %v", dir, line, bug, strings.Join(problems, "; "), got[line], wants[line])
		case len(problems) > 0:
			t.Errorf("%s/%s: %s\n\tgot  %v\n\twant %v", dir, line, strings.Join(problems, "; "), got[line], wants[line])
		}
	}
}

// decisions collects reduce's decisions in the files of dir by line
// of file: each loop's verdict (and its reason), sealing, trips
// and source; each opaque decision with its reason; each computed branch;
// each allocation kept as a shape.
func decisions(rep *Report, dir string) map[where][]fact {
	got := map[where][]fact{}
	local := func(file string) (string, bool) {
		rest, ok := strings.CutPrefix(file, dir+"/")
		return rest, ok && !strings.Contains(rest, "/")
	}
	add := func(file string, line int, f fact) {
		if name, ok := local(file); ok {
			key := where{name, line}
			got[key] = append(got[key], f)
		}
	}
	opaqueLines := map[string]bool{}
	for _, fr := range rep.Functions {
		for _, d := range fr.Opaque {
			file, line, _ := strings.Cut(d.Where, ":")
			n, _ := strconv.Atoi(line)
			add(file, n, fact{"opaque", d.Reason})
			opaqueLines[d.Where] = true
		}
		if fr.Sealed != "" {
			file, lines, _ := strings.Cut(fr.Pos, ":")
			line, _, _ := strings.Cut(lines, "-")
			n, _ := strconv.Atoi(line)
			add(file, n, fact{"sealedfn", fr.Sealed})
		}
		for _, d := range fr.SealedCalls {
			file, line, _ := strings.Cut(d.Where, ":")
			n, _ := strconv.Atoi(line)
			add(file, n, fact{"sealedcall", ""})
		}
		for _, s := range fr.ShapeOnly {
			i := strings.LastIndex(s, " at ")
			file, line, _ := strings.Cut(s[i+len(" at "):], ":")
			n, _ := strconv.Atoi(line)
			add(file, n, fact{"shape", s[:i]})
		}
	}
	for _, l := range rep.Plan.Loops {
		start := l.Node.Pos.Start
		add(start.File, start.Line, fact{string(l.Verdict), l.Why})
		if l.Sealed {
			add(start.File, start.Line, fact{"sealed", ""})
		}
		if l.Trips != "" {
			add(start.File, start.Line, fact{"trips", l.Trips})
		}
		if l.Source != TripsNone {
			add(start.File, start.Line, fact{"source", string(l.Source)})
		}
	}
	// Computed: a branch whose condition the model keeps (not one inside
	// a sealed loop) and does not replay.
	for fn, f := range rep.Plan.models {
		for _, tree := range []*model.Node{f.Tree, f.Recover} {
			model.Walk(tree, func(n *model.Node) bool {
				if n.Kind != model.KindTest || n.Opaque != "" || !n.Pos.Start.IsValid() || n.Block == nil {
					return true
				}
				blk := fn.Blocks[*n.Block]
				p := n.Pos.Start
				iff, ok := blk.Instrs[len(blk.Instrs)-1].(*ssa.If)
				if ok && rep.Plan.Computed(iff.Cond) && !opaqueLines[fmt.Sprintf("%s:%d", p.File, p.Line)] {
					add(p.File, p.Line, fact{"computed", ""})
				}
				return true
			})
		}
	}
	for _, facts := range got {
		slices.SortFunc(facts, func(x, y fact) int { return strings.Compare(x.String(), y.String()) })
	}
	return got
}

// compare matches the wants of a line against reduce's decisions there and
// returns what does not match. Loops' verdicts and sealing, opaque
// decisions and shapes must be wanted; trips, source and computed are
// checked only where wanted.
func compare(wants, got []fact) []string {
	var problems []string
	used := make([]bool, len(got))
	for _, w := range wants {
		i := firstUnused(got, used, w)
		if i < 0 {
			problems = append(problems, "no "+w.String())
			continue
		}
		used[i] = true
	}
	for i, g := range got {
		if used[i] {
			continue
		}
		switch g.name {
		case "trips", "source", "computed":
			continue // checked only where wanted
		}
		problems = append(problems, "unwanted "+g.String())
	}
	return problems
}

// firstUnused returns the index of the first decision in got not yet used
// that want w matches, or -1.
func firstUnused(got []fact, used []bool, w fact) int {
	for i, g := range got {
		if !used[i] && matches(w, g) {
			return i
		}
	}
	return -1
}

// matches reports whether decision g meets want w: same name, and for the
// verdicts and opaque decisions a reason holding w's text, for trips and
// source the same text.
func matches(w, g fact) bool {
	if w.name != g.name {
		return false
	}
	switch w.name {
	case "trips", "source":
		return w.text == g.text
	}
	return strings.Contains(g.text, w.text)
}

// readWants parses the Go files of dir and returns their wants by line
// of file, and the known bugs: the lines whose comment says
// "// BUG: why" (after the want, if any).
func readWants(t *testing.T, dir string) (wants map[where][]fact, bugs map[where]string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("%s: no Go file (%v)", dir, err)
	}
	wants, bugs = map[where][]fact{}, map[where]string{}
	fset := token.NewFileSet()
	for _, file := range files {
		f, err := parser.ParseFile(fset, file, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, group := range f.Comments {
			for _, c := range group.List {
				pos := fset.Position(c.Pos())
				key := where{filepath.Base(pos.Filename), pos.Line}
				text, bug, isBug := strings.Cut(c.Text, "// BUG: ")
				if isBug {
					bugs[key] = strings.TrimSpace(bug)
				}
				text, ok := strings.CutPrefix(strings.TrimSpace(text), "// want ")
				if !ok {
					continue
				}
				facts, err := parseWant(text)
				if err != nil {
					t.Fatalf("%s: %v", key, err)
				}
				wants[key] = append(wants[key], facts...)
			}
		}
	}
	return wants, bugs
}

// wantNames are the facts a want may name.
var wantNames = map[string]bool{"collapse": true, "iterate": true, "units": true, "sealed": true, "trips": true,
	"source": true, "opaque": true, "computed": true, "shape": true, "sealedfn": true, "sealedcall": true}

// parseWant parses the facts of a want comment: names, each optionally
// followed by :"text".
func parseWant(s string) ([]fact, error) {
	var facts []fact
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		end := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) })
		if end < 0 {
			end = len(s)
		}
		f := fact{name: s[:end]}
		if !wantNames[f.name] {
			return nil, fmt.Errorf("want: unknown fact %q in %q", f.name, s)
		}
		s = s[end:]
		if rest, ok := strings.CutPrefix(s, ":"); ok {
			q, err := strconv.QuotedPrefix(rest)
			if err != nil {
				return nil, fmt.Errorf("want: %s: text is not a Go string: %q", f.name, rest)
			}
			f.text, _ = strconv.Unquote(q)
			s = rest[len(q):]
		}
		facts = append(facts, f)
	}
	return facts, nil
}
