package estimator

import (
	"strings"
	"testing"

	"github.com/predict-tools/predict/profile"
)

// TestWholeRegions checks the rule of whole.go on
// estimator/testdata/callsites: a method whose work is one loop is timed
// at its call statements, on a pointer and on a value (whose address the
// call takes), and so is one with a value receiver called on a pointer,
// each trip count written from the call's receiver and arguments and read
// before the call, and a perfect nest, its count the inner iterations; a function whose bound its prologue changes, one whose
// bound a local hides at a call, one taken as a value and a method also
// called through an interface are timed inside (their loops' copies
// outlined).
func TestWholeRegions(t *testing.T) {
	_, p := plan(t, "estimator/testdata/callsites")
	text := overlayFile(p, "testdata/callsites/main.go")
	for _, want := range []string{
		"/*line :109:4*/g.relax__psample(2) } else { __lk = int64(__probe.TripsTo(int(0), int((g).n), 1)); __lc = __probe.Now(); /*line :109:4*/g.relax(2); __probe.LoopApart(",
		"/*line :110:4*/h.relax__psample(4) } else { __lk = int64(__probe.TripsTo(int(0), int((&(h)).n), 1)); __lc = __probe.Now(); /*line :110:4*/h.relax(4); __probe.LoopApart(",
		"/*line :111:4*/pv.scale__psample(2) } else { __lk = int64(int64(len((*(pv))))); __lc = __probe.Now(); /*line :111:4*/pv.scale(2); __probe.LoopApart(",
		"/*line :115:4*/blur__psample(img, 4) } else { __lk = int64((__probe.TripsTo(int(0), int(len((img))), 1)) * (__probe.TripsTo(int(0), int((4)), 1))); __lc = __probe.Now(); /*line :115:4*/blur(img, 4); __probe.LoopApart(",
		"func (g *grid) relax__psample(w float64) {",
		"func (v vec) scale__psample(k float64) {",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q", want)
		}
	}
	for _, name := range []string{"halve", "fillTo", "sumOf", "total"} {
		if strings.Contains(text, name+"__psample") {
			t.Errorf("%s is timed at its call sites", name)
		}
	}
	i := strings.Index(text, "func (g *grid) relax(")
	if body := text[i : i+strings.Index(text[i:], "\n}")]; strings.Contains(body, "__probe") {
		t.Errorf("relax holds probes:\n%s", body)
	}
	// The plan's regions timed whole, by position: the calls with the
	// callee's clone, the loops timed inside their functions outlined.
	var got []string
	for _, r := range p.Whole {
		got = append(got, r.Pos.Start.String()+" "+r.Copy)
	}
	want := []string{
		"estimator/testdata/callsites/main.go:38:2 outlined",  // total
		"estimator/testdata/callsites/main.go:72:2 outlined",  // halve
		"estimator/testdata/callsites/main.go:79:2 outlined",  // fillTo
		"estimator/testdata/callsites/main.go:86:2 outlined",  // sumOf
		"estimator/testdata/callsites/main.go:97:3 outlined",  // main's loop setting v
		"estimator/testdata/callsites/main.go:104:3 outlined", // main's loop making img's rows
		"estimator/testdata/callsites/main.go:109:4 clone",    // relax
		"estimator/testdata/callsites/main.go:110:4 clone",    // relax
		"estimator/testdata/callsites/main.go:111:4 clone",    // scale
		"estimator/testdata/callsites/main.go:115:4 clone",    // blur
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("regions timed whole:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// relax's prologue (h := w * 0.5) is a computation of the model: its
	// loop's fragment holds it.
	for _, f := range p.Fragments {
		if f.Kind == profile.FragLoop && f.Func == "(*grid).relax" {
			if len(f.Covers) == 0 || !strings.Contains(f.Covers[0], "cb@") {
				t.Errorf("relax's loop covers %v, want its prologue's computation first", f.Covers)
			}
		}
	}
}

// TestWholePlacement: every loop timed whole whose copy stays in place
// says why, in the plan and in its summary line.
func TestWholePlacement(t *testing.T) {
	_, p := plan(t, "estimator/testdata/outline")
	why := map[int]string{} // by line
	for _, r := range p.Whole {
		if r.Copy == CopyInPlace {
			why[r.Pos.Start.Line] = r.Why
		} else if r.Why != "" {
			t.Errorf("%s: %s, with a reason %q", r.Pos, r.Copy, r.Why)
		}
	}
	want := map[int]string{
		55: "an address taken (&) at line 56",
		65: "a pointer method called on a value (its address taken) at line 66",
		75: "a local array sliced (its address taken) at line 76",
		87: "p, of a type the file cannot name (pair)",
	}
	for line, w := range want {
		if why[line] != w {
			t.Errorf("line %d: in place because %q, want %q", line, why[line], w)
		}
	}
	if len(why) != len(want) {
		t.Errorf("copies in place: %v, want %v", why, want)
	}
	s := p.WholeSummary()
	if !strings.Contains(s, "3 loops with their sampled copy outlined, 4 in place (estimator/testdata/outline/main.go:55:2: an address taken (&) at line 56;") {
		t.Errorf("summary: %s", s)
	}
}

// TestCallSitesRun profiles estimator/testdata/callsites: the clones and
// the trip counts written at the calls build and run (the program checks
// its own results), and each loop timed at its call sites records every
// entry with its trip count: relax 3 entries of 100 and 3 of 50 iterations,
// scale 3 of 40, blur (a nest: its inner iterations) 3 of 24.
func TestCallSitesRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a program")
	}
	p := profileWith(t, Config{Dir: "..", Pattern: "./estimator/testdata/callsites", NP: 1, Fine: true})
	want := map[string][]profile.TripCount{
		"(*grid).relax": {{Trips: 50, Count: 3}, {Trips: 100, Count: 3}},
		"(vec).scale":   {{Trips: 40, Count: 3}},
		"blur":          {{Trips: 24, Count: 3}},
	}
	for _, l := range p.Loops {
		name := strings.SplitN(l.Node, "/", 2)[0]
		if w, ok := want[name]; ok {
			if len(l.Trips) != len(w) {
				t.Errorf("%s: trips %v, want %v", name, l.Trips, w)
			} else {
				for i := range w {
					if l.Trips[i] != w[i] {
						t.Errorf("%s: trips %v, want %v", name, l.Trips, w)
					}
				}
			}
			delete(want, name)
		}
	}
	for name := range want {
		t.Errorf("%s: no loop statistics", name)
	}
}
