// This file defines the tests of maps in the reduction: what changes a
// map that decides control is kept, and a decision on its iteration is
// opaque.

package reduce

import (
	"strings"
	"testing"
)

// TestMapWriters checks that the writers of a map whose length or
// contents decide a branch are kept: its updates (a literal's too, when
// only its length is read), and the delete and clear that remove keys
// (they change its length and its lookups as much as an update does). A delete whose key is random makes the length opaque, as
// an update of a random key does; a branch on a value from ranging over a
// map is opaque (Go's iteration order is random), and so is the loop's own
// test.
func TestMapWriters(t *testing.T) {
	const src = `package main

import "math/rand"

func sink(int) {}

func f(n int) {
	m := make(map[int]int)
	for i := 0; i < n; i++ {
		m[i%3]++
	}
	delete(m, 1)
	if len(m) == 2 {
		sink(1)
	}
	clear(m)
	if _, ok := m[0]; ok {
		sink(2)
	}
	r := map[int]bool{1: true, 2: true}
	delete(r, rand.Intn(3))
	if len(r) == 1 {
		sink(3)
	}
	s := map[string]int{"a": 1, "b": 2}
	if len(s) == 2 {
		sink(5)
	}
	for k := range m {
		if k > 1 {
			sink(4)
		}
	}
}

func main() { f(7) }
`
	prog, rep := reduceSource(t, src, "f", Options{})
	kept, dropped := keptInstrs(prog.Func("f"))
	for _, want := range []string{"delete(t", "clear(t", "] = t", `["a":string] = 1:int`} {
		if !containsMatch(kept, want) {
			t.Errorf("f drops a writer of its map (%s): kept %q, dropped %q", want, kept, dropped)
		}
	}
	var reasons []string
	for _, f := range rep.Functions {
		for _, d := range f.Opaque {
			reasons = append(reasons, d.Reason)
		}
		for _, l := range f.Loops {
			reasons = append(reasons, l.Opaque)
		}
	}
	all := strings.Join(reasons, "\n")
	for _, want := range []string{"random numbers", "the iteration order of a map"} {
		if !strings.Contains(all, want) {
			t.Errorf("no opaque decision for %q: %q", want, reasons)
		}
	}
}
