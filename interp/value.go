// This file defines the values the interpreter computes with and the
// memory they live in.

package interp

import (
	"fmt"
	"go/types"
	"math"
)

// V is one value of the reduced program. Integers, booleans and the bits
// of floats are in I; everything else (strings, pointers, slices, structs,
// closures, interfaces, commlib objects) is in R.
type V struct {
	I int64
	R any
}

func intV(i int64) V { return V{I: i} }
func boolV(b bool) V {
	if b {
		return V{I: 1}
	}
	return V{}
}
func floatV(f float64) V { return V{I: int64(math.Float64bits(f))} }
func (v V) F() float64   { return math.Float64frombits(uint64(v.I)) }
func (v V) B() bool      { return v.I != 0 }

// array is the backing store of a slice, an array or an allocation of
// several elements. Elements are created on the first store: an array the
// program never writes (a shape-only buffer, or a rank's copy of data only
// the root fills) costs its header alone, whatever its length.
type array struct {
	n     int
	elems []V
	shape bool // contents are not kept: stores are dropped, loads read zero
	zero  V    // the element's zero value
}

func newArray(n int, zero V, shape bool) *array { return &array{n: n, zero: zero, shape: shape} }

func (a *array) load(i int) V {
	if a.elems == nil {
		return cloneZero(a.zero)
	}
	return a.elems[i]
}

func (a *array) store(i int, v V) {
	if a.shape {
		return
	}
	if a.elems == nil {
		a.elems = make([]V, a.n)
		for k := range a.elems {
			a.elems[k] = cloneZero(a.zero)
		}
	}
	a.elems[i] = v
}

// sliceV is a slice: a window on an array.
type sliceV struct {
	a             *array
	off, len, cap int
}

// structV is a struct value or the memory of an allocated struct.
type structV struct{ f []V }

// box is the memory of one variable of a non-aggregate type (and of
// globals).
type box struct{ v V }

// ptr is a pointer into memory: a box, an element of an array or a field
// of a struct. A nil pointer is R == nil.
type ptr struct {
	box *box
	a   *array
	s   *structV
	i   int
}

func (p *ptr) load() V {
	switch {
	case p.box != nil:
		return p.box.v
	case p.a != nil:
		return p.a.load(p.i)
	case p.s != nil:
		return p.s.f[p.i]
	}
	return V{}
}

func (p *ptr) store(v V) {
	switch {
	case p.box != nil:
		p.box.v = v
	case p.a != nil:
		p.a.store(p.i, v)
	case p.s != nil:
		p.s.f[p.i] = v
	}
}

// iface is a non-nil interface value: its dynamic type and value.
type iface struct {
	t     types.Type
	v     V
	esize int64 // for a slice: the size of an element
}

// closure is a function value: a compiled function and its free variables.
type closure struct {
	fn  *function
	env []V
	ext string // a function outside the program, by name (fn == nil)
	op  op     // a deferred commlib call
}

// tuple is the result of a call with several results.
type tuple []V

// zeroOf returns the zero value of t. Aggregates get fresh memory.
func zeroOf(t types.Type) V {
	switch u := t.Underlying().(type) {
	case *types.Struct:
		s := &structV{f: make([]V, u.NumFields())}
		for i := range s.f {
			s.f[i] = zeroOf(u.Field(i).Type())
		}
		return V{R: s}
	case *types.Array:
		return V{R: newArray(int(u.Len()), zeroOf(u.Elem()), false)}
	case *types.Basic:
		if u.Info()&types.IsString != 0 {
			return V{R: ""}
		}
	}
	return V{}
}

// cloneZero copies the memory of an aggregate zero value.
func cloneZero(v V) V {
	switch r := v.R.(type) {
	case *structV:
		return V{R: copyStruct(r)}
	case *array:
		return V{R: copyArray(r)}
	}
	return v
}

func copyStruct(s *structV) *structV {
	c := &structV{f: make([]V, len(s.f))}
	for i, f := range s.f {
		c.f[i] = cloneZero(f)
	}
	return c
}

func copyArray(a *array) *array {
	c := &array{n: a.n, zero: a.zero, shape: a.shape}
	if a.elems != nil {
		c.elems = make([]V, len(a.elems))
		for i, e := range a.elems {
			c.elems[i] = cloneZero(e)
		}
	}
	return c
}

// aggregate reports whether values of t are copied on load and store: t
// is a struct or an array.
func aggregate(t types.Type) bool {
	switch t.Underlying().(type) {
	case *types.Struct, *types.Array:
		return true
	}
	return false
}

// copyValue copies a value of an aggregate type (a load or store of a
// struct or array copies it).
func copyValue(v V) V { return cloneZero(v) }

// str formats a value for messages (Abort errors, Printf arguments).
func str(v V, t types.Type) string {
	switch u := t.Underlying().(type) {
	case *types.Basic:
		switch {
		case u.Info()&types.IsString != 0:
			s, _ := v.R.(string)
			return s
		case u.Info()&types.IsBoolean != 0:
			return fmt.Sprint(v.B())
		case u.Info()&types.IsFloat != 0:
			return fmt.Sprint(v.F())
		case u.Info()&types.IsUnsigned != 0:
			return fmt.Sprint(uint64(v.I))
		case u.Info()&types.IsInteger != 0:
			return fmt.Sprint(v.I)
		}
	case *types.Interface:
		if i, ok := v.R.(*iface); ok {
			return str(i.v, i.t)
		}
		if e, ok := v.R.(error); ok {
			return e.Error()
		}
		return "<nil>"
	}
	if e, ok := v.R.(error); ok {
		return e.Error()
	}
	return fmt.Sprintf("%v", v.R)
}

// goValue converts a value of type t to a Go value for the fmt package.
func goValue(v V, t types.Type) any {
	switch u := t.Underlying().(type) {
	case *types.Basic:
		switch {
		case u.Info()&types.IsString != 0:
			s, _ := v.R.(string)
			return s
		case u.Info()&types.IsBoolean != 0:
			return v.B()
		case u.Info()&types.IsFloat != 0:
			return v.F()
		case u.Info()&types.IsUnsigned != 0:
			return uint64(v.I)
		case u.Info()&types.IsInteger != 0:
			return v.I
		}
	case *types.Interface:
		if i, ok := v.R.(*iface); ok {
			return goValue(i.v, i.t)
		}
		if e, ok := v.R.(error); ok {
			return e
		}
		return nil
	}
	if e, ok := v.R.(error); ok {
		return e
	}
	return v.R
}

// storeTo stores v at the address a.
func storeTo(a V, v V) {
	switch r := a.R.(type) {
	case *ptr:
		r.store(v)
	case *box:
		r.v = v
	case *structV:
		if s, ok := v.R.(*structV); ok {
			copy(r.f, s.f)
		}
	case *array:
		if s, ok := v.R.(*array); ok {
			if s.elems == nil {
				r.elems = nil
			} else {
				for i := range s.n {
					r.store(i, s.elems[i])
				}
			}
		}
	}
}

// loadFrom loads the value at the address a; agg says that its type is an
// aggregate (a struct or an array), which is copied. A pointer to a struct
// is represented as the struct's memory, as a struct value is: a load of a
// pointer must not copy what it points to.
func loadFrom(a V, agg bool) V {
	switch r := a.R.(type) {
	case *ptr:
		if !agg {
			return r.load()
		}
		return copyValue(r.load())
	case *box:
		if !agg {
			return r.v
		}
		return copyValue(r.v)
	case *structV:
		return V{R: copyStruct(r)}
	case *array:
		return V{R: copyArray(r)}
	}
	return V{}
}

// target returns the memory a pointer designates, without copying: the
// struct or array whose fields or elements an address refers to.
func target(a V) any {
	switch r := a.R.(type) {
	case *ptr:
		if r.a != nil && r.a.elems == nil && !r.a.shape {
			r.a.store(r.i, r.a.load(r.i)) // materialize: the address must reach the element itself
		}
		return r.load().R
	case *box:
		return r.v.R
	}
	return a.R
}
