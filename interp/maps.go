// This file defines maps: the map value, its keys, and the compiled map
// operations (make, lookup, update, delete, len, clear, range), with the
// range iterator over strings that shares SSA's Range and Next.
//
// A map iterates in the order in which its keys were first inserted (a key
// deleted and inserted again goes to the end). Go's order is random, so a
// program whose control depends on it is data-dependent (package reduce
// makes such decisions opaque); the model's order is deterministic, so
// that identical input gives identical output. As in Go, an entry deleted
// during an iteration before it is reached is not produced; entries added
// during an iteration are not produced.

package interp

import (
	"fmt"
	"go/types"
	"reflect"
	"unicode/utf8"

	"golang.org/x/tools/go/ssa"
)

// mapV is a non-nil map (a nil map is V{}): its entries by key and in
// first-insertion order.
type mapV struct {
	index map[any]*entry
	// order holds the entries in first-insertion order, deleted ones
	// included until they are half of it: it is then replaced (never
	// rewritten in place, so that iterators keep a consistent view).
	order []*entry
	dead  int
}

type entry struct {
	key, val V
	deleted  bool
}

func newMap(hint int) *mapV {
	return &mapV{index: make(map[any]*entry, min(hint, 1<<12))}
}

func (m *mapV) len() int {
	if m == nil {
		return 0
	}
	return len(m.index)
}

func (m *mapV) lookup(k any) (*entry, bool) {
	if m == nil {
		return nil, false
	}
	e, ok := m.index[k]
	return e, ok
}

func (m *mapV) update(k any, key, val V) {
	if e := m.index[k]; e != nil {
		e.val = val
		return
	}
	e := &entry{key: key, val: val}
	m.index[k] = e
	m.order = append(m.order, e)
}

func (m *mapV) delete(k any) {
	e := m.index[k]
	if e == nil {
		return
	}
	delete(m.index, k)
	e.deleted = true
	m.dead++
	if m.dead > len(m.order)/2 {
		live := make([]*entry, 0, len(m.index))
		for _, e := range m.order {
			if !e.deleted {
				live = append(live, e)
			}
		}
		m.order, m.dead = live, 0
	}
}

func (m *mapV) clear() {
	for _, e := range m.order {
		e.deleted = true
	}
	clear(m.index)
	m.order, m.dead = nil, 0
}

// mapIter is the iterator of a range over a map: the map's entries as they
// were when the range began, deleted ones skipped.
type mapIter struct {
	order []*entry
	next  int
}

// stringIter is the iterator of a range over a string.
type stringIter struct {
	s    string
	next int
}

// keyPair chains the keys of the fields of a struct or the elements of an
// array into one comparable Go value.
type keyPair struct{ head, tail any }

// ifaceKey is the key of a non-nil interface value: its dynamic type and
// the key of its value.
type ifaceKey struct {
	t string
	k any
}

// keyFunc returns the function that turns a value of the comparable type
// t into a comparable Go value, equal for values Go finds equal (floats
// compare as floats: +0 equals −0, NaN equals nothing). Its error is Go's
// run-time panic for an interface holding a value of an incomparable type.
func keyFunc(t types.Type) func(V) (any, string) {
	switch u := t.Underlying().(type) {
	case *types.Basic:
		switch {
		case u.Info()&types.IsString != 0:
			return func(v V) (any, string) { s, _ := v.R.(string); return s, "" }
		case u.Info()&types.IsFloat != 0:
			return func(v V) (any, string) { return v.F(), "" }
		case u.Kind() == types.UnsafePointer:
			return refKey
		}
		return func(v V) (any, string) { return v.I, "" }
	case *types.Struct:
		var fields []int
		var keys []func(V) (any, string)
		for i := range u.NumFields() {
			if f := u.Field(i); f.Name() != "_" {
				fields = append(fields, i)
				keys = append(keys, keyFunc(f.Type()))
			}
		}
		return func(v V) (any, string) {
			s, _ := v.R.(*structV)
			var k any
			for j := len(fields) - 1; j >= 0; j-- {
				var f V
				if s != nil {
					f = s.f[fields[j]]
				}
				fk, err := keys[j](f)
				if err != "" {
					return nil, err
				}
				k = keyPair{fk, k}
			}
			return k, ""
		}
	case *types.Array:
		elem := keyFunc(u.Elem())
		return func(v V) (any, string) {
			a, _ := v.R.(*array)
			var k any
			for i := int(u.Len()) - 1; i >= 0; i-- {
				var e V
				if a != nil {
					e = a.zero
					if a.elems != nil {
						e = a.elems[i]
					}
				}
				ek, err := elem(e)
				if err != "" {
					return nil, err
				}
				k = keyPair{ek, k}
			}
			return k, ""
		}
	case *types.Interface:
		return ifaceKeyOf
	}
	return refKey // pointers, channels
}

// refKey is the key of a reference: a pointer into memory compares by
// what it designates (as equal does), other references by identity.
func refKey(v V) (any, string) {
	switch r := v.R.(type) {
	case *ptr:
		return *r, ""
	case nil:
		return nil, ""
	}
	if !reflect.TypeOf(v.R).Comparable() {
		return nil, fmt.Sprintf("hash of unhashable value %T", v.R)
	}
	return v.R, ""
}

func ifaceKeyOf(v V) (any, string) {
	i, ok := v.R.(*iface)
	if !ok {
		return refKey(v) // nil, or an error value made outside the program
	}
	if !types.Comparable(i.t) {
		return nil, "hash of unhashable type " + i.t.String()
	}
	k, err := keyFunc(i.t)(i.v)
	return ifaceKey{types.TypeString(i.t, nil), k}, err
}

// mapValue compiles the map instructions that compute a value, and the
// range iterators (over maps and strings).
func (c *compiler) mapValue(cf *function, v ssa.Value) func(fr *frame) (V, string) {
	switch in := v.(type) {
	case *ssa.MakeMap:
		if in.Reserve == nil {
			return func(fr *frame) (V, string) { return V{R: newMap(0)}, "" }
		}
		hint := c.operand(cf, in.Reserve)
		return func(fr *frame) (V, string) {
			n := hint.get(fr).I
			if n < 0 {
				return V{}, "makemap: size out of range"
			}
			return V{R: newMap(int(n))}, ""
		}
	case *ssa.Lookup:
		mt := in.X.Type().Underlying().(*types.Map)
		x, idx, key := c.operand(cf, in.X), c.operand(cf, in.Index), keyFunc(mt.Key())
		zero, commaOk := zeroOf(mt.Elem()), in.CommaOk
		return func(fr *frame) (V, string) {
			k, err := key(idx.get(fr))
			if err != "" {
				return V{}, err
			}
			m, _ := x.get(fr).R.(*mapV)
			e, ok := m.lookup(k)
			val := cloneZero(zero)
			if ok {
				val = copyValue(e.val)
			}
			if commaOk {
				return V{R: tuple{val, boolV(ok)}}, ""
			}
			return val, ""
		}
	case *ssa.Range:
		x := c.operand(cf, in.X)
		if isString(in.X.Type()) {
			return func(fr *frame) (V, string) {
				s, _ := x.get(fr).R.(string)
				return V{R: &stringIter{s: s}}, ""
			}
		}
		return func(fr *frame) (V, string) {
			m, _ := x.get(fr).R.(*mapV)
			if m == nil {
				return V{R: &mapIter{}}, ""
			}
			return V{R: &mapIter{order: m.order}}, ""
		}
	case *ssa.Next:
		it := c.operand(cf, in.Iter)
		if in.IsString {
			return func(fr *frame) (V, string) {
				si, _ := it.get(fr).R.(*stringIter)
				if si == nil || si.next >= len(si.s) {
					return V{R: tuple{boolV(false), V{}, V{}}}, ""
				}
				r, n := utf8.DecodeRuneInString(si.s[si.next:])
				i := si.next
				si.next += n
				return V{R: tuple{boolV(true), intV(int64(i)), intV(int64(r))}}, ""
			}
		}
		return func(fr *frame) (V, string) {
			mi, _ := it.get(fr).R.(*mapIter)
			for mi != nil && mi.next < len(mi.order) {
				e := mi.order[mi.next]
				mi.next++
				if !e.deleted {
					return V{R: tuple{boolV(true), copyValue(e.key), copyValue(e.val)}}, ""
				}
			}
			return V{R: tuple{boolV(false), V{}, V{}}}, ""
		}
	}
	return nil
}

// mapUpdate compiles m[k] = v.
func (c *compiler) mapUpdate(cf *function, in *ssa.MapUpdate) op {
	mt := in.Map.Type().Underlying().(*types.Map)
	x, idx, val, key := c.operand(cf, in.Map), c.operand(cf, in.Key), c.operand(cf, in.Value), keyFunc(mt.Key())
	where := c.instrPos(in)
	return func(p *proc, fr *frame) ctl {
		m, _ := x.get(fr).R.(*mapV)
		if m == nil {
			return p.fail(where, "assignment to entry in nil map")
		}
		kv := idx.get(fr)
		k, err := key(kv)
		if err != "" {
			return p.fail(where, err)
		}
		m.update(k, copyValue(kv), copyValue(val.get(fr)))
		return cNext
	}
}

// mapBuiltin compiles len, delete and clear of a map; nil for other calls
// of builtins.
func (c *compiler) mapBuiltin(in *ssa.Call, name string, args []operand, dst int) op {
	if len(in.Call.Args) == 0 {
		return nil
	}
	mt, ok := in.Call.Args[0].Type().Underlying().(*types.Map)
	if !ok {
		return nil
	}
	x := args[0]
	switch name {
	case "len":
		return func(p *proc, fr *frame) ctl {
			m, _ := x.get(fr).R.(*mapV)
			return set(fr, dst, intV(int64(m.len())))
		}
	case "delete":
		key, where := keyFunc(mt.Key()), c.instrPos(in)
		return func(p *proc, fr *frame) ctl {
			k, err := key(args[1].get(fr))
			if err != "" {
				return p.fail(where, err)
			}
			if m, _ := x.get(fr).R.(*mapV); m != nil {
				m.delete(k)
			}
			return cNext
		}
	case "clear":
		return func(p *proc, fr *frame) ctl {
			if m, _ := x.get(fr).R.(*mapV); m != nil {
				m.clear()
			}
			return cNext
		}
	}
	return nil
}

// instrPos is the file:line of an instruction, or of its function when it
// has no position (as failOp says).
func (c *compiler) instrPos(in ssa.Instruction) string {
	if !in.Pos().IsValid() {
		return c.l.Pos(in.Parent().Pos()).String()
	}
	return c.l.Pos(in.Pos()).String()
}
