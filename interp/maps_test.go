// This file defines the tests of maps in the interpreter (maps.go).

package interp

import (
	"errors"
	"go/types"
	"math"
	"slices"
	"strings"
	"testing"
)

// TestMapsDecideCommunication runs testdata/maps, whose messages are
// decided by maps: per rank, the sum of its plan's counts (1+2+3 to the
// three ranks after it, 4 to its neighbour at np = 2, where the third is
// itself and deleted), one per key of its plan (3, or 1 at np = 2), one
// after a struct-key lookup, one after reading a nil map, and two from a
// range over a package-level map literal (its width), one after writing
// a map made on that path, and one per letter r or l of the range over
// the string -pattern, "r·l" (two).
func TestMapsDecideCommunication(t *testing.T) {
	p := prepare(t, "./interp/testdata/maps")
	m := handMachine(t)
	for _, c := range []struct {
		np                  int
		plan, keys, pattern int64
		args                []string
	}{{2, 4, 1, 2, nil}, {4, 6, 3, 2, nil}, {8, 6, 3, 2, nil}, {4, 6, 3, 5, []string{"-pattern", "rlxrrl"}}} {
		r, err := p.Run(Config{NP: c.np, Machine: m, Args: c.args})
		if err != nil {
			t.Fatalf("np=%d: %v", c.np, err)
		}
		want := int64(c.np) * (c.plan + c.keys + 1 + 1 + 2 + 1 + c.pattern)
		if r.Messages != want {
			t.Errorf("np=%d %q: %d messages, want %d", c.np, c.args, r.Messages, want)
		}
		if len(r.Assumptions) > 0 || len(r.Decisions) > 0 {
			t.Errorf("np=%d: assumptions %q, decisions %v, want none", c.np, r.Assumptions, r.Decisions)
		}
	}
}

// TestMapNilWrite checks that an assignment to a nil map in kept code is
// Go's run-time error at its site, on the rank that made it.
func TestMapNilWrite(t *testing.T) {
	p := prepare(t, "./interp/testdata/maps")
	_, err := p.Run(Config{NP: 2, Machine: handMachine(t), Args: []string{"-nilwrite"}})
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v, want an *Error", err)
	}
	at := markPos(t, "interp/testdata/maps/main.go", "nilwrite") + ":"
	if e.Msg != "assignment to entry in nil map" || !strings.HasPrefix(e.Pos, at) || e.Rank != 0 {
		t.Errorf("error %v, want rank 0's assignment to entry in nil map at %s", err, at)
	}
}

// TestMapOrder checks the iteration order of a map: the order of first
// insertion, a key deleted and inserted again going last; an entry
// deleted before an iteration reaches it is not produced, one added
// during it is not either, and an update is seen. An iteration survives
// the compaction of the entries that many deletes cause, and a clear.
func TestMapOrder(t *testing.T) {
	m := newMap(0)
	put := func(k int64, v int64) { m.update(k, intV(k), intV(v)) }
	del := func(k int64) { m.delete(k) }
	keys := func(it *mapIter) (out []int64) {
		for it.next < len(it.order) {
			if e := it.order[it.next]; !e.deleted {
				out = append(out, e.key.I*100+e.val.I)
			}
			it.next++
		}
		return out
	}
	for _, k := range []int64{5, 3, 9, 1} {
		put(k, 0)
	}
	del(3)
	put(3, 1)
	put(5, 2)
	if got, want := keys(&mapIter{order: m.order}), []int64{502, 900, 100, 301}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
	it := &mapIter{order: m.order}
	it.next = 1
	del(1)    // not yet reached
	put(7, 0) // added during the iteration
	put(9, 4) // updated
	if got, want := keys(it), []int64{904, 301}; !slices.Equal(got, want) {
		t.Errorf("iteration after delete, add and update: %v, want %v", got, want)
	}
	it = &mapIter{order: m.order}
	for _, k := range []int64{5, 9, 3} {
		del(k) // compacts the entries under the iterator
	}
	if got, want := keys(it), []int64{700}; !slices.Equal(got, want) || m.len() != 1 || len(m.order) > 2 {
		t.Errorf("iteration across a compaction: %v, want %v (len %d, %d entries)", got, want, m.len(), len(m.order))
	}
	it = &mapIter{order: m.order}
	m.clear()
	if got := keys(it); len(got) != 0 || m.len() != 0 {
		t.Errorf("iteration after clear: %v, len %d", got, m.len())
	}
	var none *mapV
	if _, ok := none.lookup(int64(1)); ok || none.len() != 0 {
		t.Errorf("nil map: lookup found a key or len %d", none.len())
	}
}

// TestMapKeys checks the keys of the comparable types: equal values (Go's
// ==) give equal keys, others different ones.
func TestMapKeys(t *testing.T) {
	intT, floatT, strT := types.Typ[types.Int], types.Typ[types.Float64], types.Typ[types.String]
	field := func(name string, t types.Type) *types.Var { return types.NewField(0, nil, name, t, false) }
	pair := types.NewStruct([]*types.Var{field("a", intT), field("_", intT), field("s", strT), field("f", floatT)}, nil)
	pairV := func(a, blank int64, s string, f float64) V {
		return V{R: &structV{f: []V{intV(a), intV(blank), {R: s}, floatV(f)}}}
	}
	arr := types.NewArray(intT, 3)
	arrV := func(elems ...int64) V {
		a := newArray(3, intV(0), false)
		for i, e := range elems {
			a.store(i, intV(e))
		}
		return V{R: a}
	}
	anyT := types.NewInterfaceType(nil, nil)
	boxed := func(t types.Type, v V) V { return V{R: &iface{t: t, v: v}} }
	s := &structV{f: []V{intV(1)}}
	cases := []struct {
		name  string
		t     types.Type
		x, y  V
		equal bool
	}{
		{"ints", intT, intV(3), intV(3), true},
		{"ints differ", intT, intV(3), intV(4), false},
		{"+0 and −0", floatT, floatV(0), floatV(math.Copysign(0, -1)), true},
		{"NaN", floatT, floatV(math.NaN()), floatV(math.NaN()), false},
		{"strings", strT, V{R: "ab"}, V{R: "a" + "b"}, true},
		{"empty string and zero", strT, V{R: ""}, V{}, true},
		{"structs, blank field ignored", pair, pairV(1, 7, "x", 0.5), pairV(1, 8, "x", 0.5), true},
		{"structs differ in a string", pair, pairV(1, 0, "x", 0.5), pairV(1, 0, "y", 0.5), false},
		{"structs with NaN", pair, pairV(1, 0, "x", math.NaN()), pairV(1, 0, "x", math.NaN()), false},
		{"arrays, one never written", arr, arrV(), arrV(0, 0, 0), true},
		{"arrays differ", arr, arrV(1, 2, 3), arrV(1, 2, 4), false},
		{"pointers to one field", types.NewPointer(intT), V{R: &ptr{s: s}}, V{R: &ptr{s: s}}, true},
		{"pointers to two fields", types.NewPointer(intT), V{R: &ptr{s: s}}, V{R: &ptr{s: &structV{f: []V{intV(1)}}}}, false},
		{"interfaces of one type", anyT, boxed(intT, intV(1)), boxed(intT, intV(1)), true},
		{"interfaces of two types", anyT, boxed(intT, intV(1)), boxed(types.Typ[types.Int64], intV(1)), false},
		{"nil interfaces", anyT, V{}, V{}, true},
	}
	for _, c := range cases {
		key := keyFunc(c.t)
		kx, errx := key(c.x)
		ky, erry := key(c.y)
		if errx != "" || erry != "" {
			t.Errorf("%s: errors %q %q", c.name, errx, erry)
			continue
		}
		m := newMap(0)
		m.update(kx, c.x, intV(1))
		if _, found := m.lookup(ky); found != c.equal {
			t.Errorf("%s: found %v, want %v", c.name, found, c.equal)
		}
	}
	slice := types.NewSlice(intT)
	if _, err := keyFunc(anyT)(boxed(slice, V{R: &sliceV{}})); err != "hash of unhashable type []int" {
		t.Errorf("a slice in an interface key: error %q, want Go's hash of unhashable type []int", err)
	}
}
