// This file compiles the instructions that compute values: allocation,
// arithmetic and comparison (unary and binary operators on integers,
// floats and strings), and the other value instructions of SSA that the
// reduced model keeps (conversions and slicing are in convert.go).

package interp

import (
	"cmp"
	"fmt"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// value compiles an instruction that computes a value. It returns nil for
// an instruction it does not support.
func (c *compiler) value(cf *function, v ssa.Value) func(fr *frame) (V, string) {
	switch in := v.(type) {
	case *ssa.Alloc:
		elem := in.Type().(*types.Pointer).Elem()
		shape := c.rep != nil && c.rep.Plan.ShapeOnly(in)
		return func(fr *frame) (V, string) { return newMemory(elem, shape), "" }
	case *ssa.MakeSlice:
		ln, cp := c.operand(cf, in.Len), c.operand(cf, in.Cap)
		elem := in.Type().Underlying().(*types.Slice).Elem()
		shape := c.rep != nil && c.rep.Plan.ShapeOnly(in)
		zero := zeroOf(elem)
		return func(fr *frame) (V, string) {
			n, k := ln.get(fr).I, cp.get(fr).I
			if n < 0 || k < n {
				return V{}, fmt.Sprintf("makeslice: len %d, cap %d out of range", n, k)
			}
			return V{R: &sliceV{a: newArray(int(k), zero, shape), len: int(n), cap: int(k)}}, ""
		}
	case *ssa.FieldAddr:
		x, i := c.operand(cf, in.X), in.Field
		return func(fr *frame) (V, string) {
			s, ok := target(x.get(fr)).(*structV)
			if !ok {
				return V{}, "invalid memory address or nil pointer dereference"
			}
			return V{R: &ptr{s: s, i: i}}, ""
		}
	case *ssa.Field:
		x, i := c.operand(cf, in.X), in.Field
		agg := aggregate(in.Type())
		return func(fr *frame) (V, string) {
			s, ok := x.get(fr).R.(*structV)
			if !ok {
				return zeroOf(in.Type()), ""
			}
			if !agg {
				return s.f[i], ""
			}
			return copyValue(s.f[i]), ""
		}
	case *ssa.IndexAddr:
		x, idx := c.operand(cf, in.X), c.operand(cf, in.Index)
		return func(fr *frame) (V, string) {
			i := int(idx.get(fr).I)
			switch r := target(x.get(fr)).(type) {
			case *sliceV:
				if i < 0 || i >= r.len {
					return V{}, fmt.Sprintf("index out of range [%d] with length %d", i, r.len)
				}
				return V{R: &ptr{a: r.a, i: r.off + i}}, ""
			case *array:
				if i < 0 || i >= r.n {
					return V{}, fmt.Sprintf("index out of range [%d] with length %d", i, r.n)
				}
				return V{R: &ptr{a: r, i: i}}, ""
			}
			return V{}, fmt.Sprintf("index out of range [%d] with length 0", i)
		}
	case *ssa.Index:
		x, idx := c.operand(cf, in.X), c.operand(cf, in.Index)
		agg := aggregate(in.Type())
		return func(fr *frame) (V, string) {
			i := int(idx.get(fr).I)
			switch r := x.get(fr).R.(type) {
			case *array:
				if i < 0 || i >= r.n {
					return V{}, fmt.Sprintf("index out of range [%d] with length %d", i, r.n)
				}
				if !agg {
					return r.load(i), ""
				}
				return copyValue(r.load(i)), ""
			case string:
				if i < 0 || i >= len(r) {
					return V{}, fmt.Sprintf("index out of range [%d] with length %d", i, len(r))
				}
				return intV(int64(r[i])), ""
			}
			// Not the program's error: the reduction kept the index of a
			// value it did not keep.
			return V{}, fmt.Sprintf("index [%d] of a value the reduced model does not hold", i)
		}
	case *ssa.UnOp:
		return c.unop(cf, in)
	case *ssa.BinOp:
		return c.binop(cf, in)
	case *ssa.Convert:
		return c.convert(cf, in)
	case *ssa.ChangeType:
		x := c.operand(cf, in.X)
		return func(fr *frame) (V, string) { return x.get(fr), "" }
	case *ssa.ChangeInterface:
		x := c.operand(cf, in.X)
		return func(fr *frame) (V, string) { return x.get(fr), "" }
	case *ssa.SliceToArrayPointer:
		x := c.operand(cf, in.X)
		return func(fr *frame) (V, string) {
			if s, ok := x.get(fr).R.(*sliceV); ok {
				return V{R: &array{n: s.len, elems: window(s), zero: s.a.zero, shape: s.a.shape}}, ""
			}
			return V{}, ""
		}
	case *ssa.MakeInterface:
		x, t := c.operand(cf, in.X), in.X.Type()
		var esize int64
		if _, ok := t.Underlying().(*types.Slice); ok {
			esize = elemSize(t)
		}
		dst, alt := c.slot(cf, in), c.reuseSlot(cf, in)
		return func(fr *frame) (V, string) {
			v := x.get(fr)
			if last := fr.sameBoxed(dst, alt, v); last != nil {
				return *last, ""
			}
			return V{R: &iface{t: t, v: v, esize: esize}}, ""
		}
	case *ssa.TypeAssert:
		return c.typeAssert(cf, in)
	case *ssa.Slice:
		return c.slice(cf, in)
	case *ssa.MakeClosure:
		fn := c.fn(in.Fn.(*ssa.Function))
		binds := make([]operand, len(in.Bindings))
		for i, b := range in.Bindings {
			binds[i] = c.operand(cf, b)
		}
		return func(fr *frame) (V, string) {
			env := make([]V, len(binds))
			for i, b := range binds {
				env[i] = b.get(fr)
			}
			return V{R: &closure{fn: fn, env: env}}, ""
		}
	case *ssa.MakeMap, *ssa.Lookup, *ssa.Range, *ssa.Next:
		return c.mapValue(cf, in) // maps.go
	case *ssa.Extract:
		x, i := c.operand(cf, in.Tuple), in.Index
		return func(fr *frame) (V, string) {
			if t, ok := x.get(fr).R.(tuple); ok && i < len(t) {
				return t[i], ""
			}
			return zeroOf(in.Type()), ""
		}
	}
	return nil
}

// window returns the elements of a slice (nil when none was stored).
func window(s *sliceV) []V {
	if s.a == nil || s.a.elems == nil {
		return nil
	}
	return s.a.elems[s.off : s.off+s.len]
}

// newMemory allocates a variable of type t and returns its address.
func newMemory(t types.Type, shape bool) V {
	switch u := t.Underlying().(type) {
	case *types.Struct:
		return zeroOf(t)
	case *types.Array:
		return V{R: newArray(int(u.Len()), zeroOf(u.Elem()), shape)}
	}
	return V{R: &box{v: zeroOf(t)}}
}

func (c *compiler) unop(cf *function, in *ssa.UnOp) func(fr *frame) (V, string) {
	x := c.operand(cf, in.X)
	t := in.X.Type()
	switch in.Op {
	case token.MUL:
		agg := aggregate(in.Type())
		return func(fr *frame) (V, string) {
			a := x.get(fr)
			if a.R == nil {
				return V{}, "invalid memory address or nil pointer dereference"
			}
			return loadFrom(a, agg), ""
		}
	case token.SUB:
		if isFloat(t) {
			return func(fr *frame) (V, string) { return floatV(-x.get(fr).F()), "" }
		}
		w := wrap(t)
		return func(fr *frame) (V, string) {
			r := -x.get(fr).I
			if w != nil {
				r = w(r)
			}
			return intV(r), ""
		}
	case token.NOT:
		return func(fr *frame) (V, string) { return boolV(!x.get(fr).B()), "" }
	case token.XOR:
		w := wrap(t)
		return func(fr *frame) (V, string) {
			r := ^x.get(fr).I
			if w != nil {
				r = w(r)
			}
			return intV(r), ""
		}
	}
	return nil
}

func (c *compiler) binop(cf *function, in *ssa.BinOp) func(fr *frame) (V, string) {
	x, y := c.operand(cf, in.X), c.operand(cf, in.Y)
	t := in.X.Type()
	switch {
	case isFloat(t):
		return floatBinop(in.Op, x, y)
	case isString(t):
		return stringBinop(in.Op, x, y)
	case isInteger(t):
		return intBinop(in.Op, x, y, isUnsigned(t), wrap(in.Type()))
	case basicInfo(t)&types.IsBoolean != 0:
		switch in.Op {
		case token.EQL:
			return func(fr *frame) (V, string) { return boolV(x.get(fr).B() == y.get(fr).B()), "" }
		case token.NEQ:
			return func(fr *frame) (V, string) { return boolV(x.get(fr).B() != y.get(fr).B()), "" }
		}
	}
	switch in.Op {
	case token.EQL:
		return func(fr *frame) (V, string) { return boolV(equal(x.get(fr), y.get(fr))), "" }
	case token.NEQ:
		return func(fr *frame) (V, string) { return boolV(!equal(x.get(fr), y.get(fr))), "" }
	}
	return nil
}

// equal compares values of comparable non-basic types: pointers, channels,
// interfaces, functions (with nil).
func equal(a, b V) bool {
	if a.R == nil || b.R == nil {
		return a.R == nil && b.R == nil && a.I == b.I
	}
	switch x := a.R.(type) {
	case *ptr:
		y, ok := b.R.(*ptr)
		return ok && *x == *y
	case *iface:
		y, ok := b.R.(*iface)
		if !ok || !types.Identical(x.t, y.t) {
			return false
		}
		if xs, ok := x.v.R.(string); ok {
			ys, _ := y.v.R.(string)
			return xs == ys
		}
		if x.v.R == nil && y.v.R == nil {
			return x.v.I == y.v.I
		}
		return equal(x.v, y.v)
	case *structV:
		y, ok := b.R.(*structV)
		if !ok || len(x.f) != len(y.f) {
			return false
		}
		for i := range x.f {
			if x.f[i].I != y.f[i].I || (x.f[i].R != nil || y.f[i].R != nil) && !equal(x.f[i], y.f[i]) {
				return false
			}
		}
		return true
	case string:
		y, _ := b.R.(string)
		return x == y
	}
	return a.R == b.R
}

func floatBinop(tok token.Token, x, y operand) func(fr *frame) (V, string) {
	var f func(a, b float64) V
	switch tok {
	case token.ADD:
		f = func(a, b float64) V { return floatV(a + b) }
	case token.SUB:
		f = func(a, b float64) V { return floatV(a - b) }
	case token.MUL:
		f = func(a, b float64) V { return floatV(a * b) }
	case token.QUO:
		f = func(a, b float64) V { return floatV(a / b) }
	default:
		if f = compareOp[float64](tok); f == nil {
			return nil
		}
	}
	return func(fr *frame) (V, string) { return f(x.get(fr).F(), y.get(fr).F()), "" }
}

func stringBinop(tok token.Token, x, y operand) func(fr *frame) (V, string) {
	s := func(o operand, fr *frame) string { v, _ := o.get(fr).R.(string); return v }
	var f func(a, b string) V
	switch tok {
	case token.ADD:
		f = func(a, b string) V { return V{R: a + b} }
	default:
		if f = compareOp[string](tok); f == nil {
			return nil
		}
	}
	return func(fr *frame) (V, string) { return f(s(x, fr), s(y, fr)), "" }
}

// compareOp returns the comparison tok of two floats or two strings, or
// nil when tok is not a comparison.
func compareOp[T cmp.Ordered](tok token.Token) func(a, b T) V {
	switch tok {
	case token.EQL:
		return func(a, b T) V { return boolV(a == b) }
	case token.NEQ:
		return func(a, b T) V { return boolV(a != b) }
	case token.LSS:
		return func(a, b T) V { return boolV(a < b) }
	case token.LEQ:
		return func(a, b T) V { return boolV(a <= b) }
	case token.GTR:
		return func(a, b T) V { return boolV(a > b) }
	case token.GEQ:
		return func(a, b T) V { return boolV(a >= b) }
	}
	return nil
}

func intBinop(tok token.Token, x, y operand, unsigned bool, w func(int64) int64) func(fr *frame) (V, string) {
	var f func(a, b int64) (int64, string)
	switch tok {
	case token.ADD:
		f = func(a, b int64) (int64, string) { return a + b, "" }
	case token.SUB:
		f = func(a, b int64) (int64, string) { return a - b, "" }
	case token.MUL:
		f = func(a, b int64) (int64, string) { return a * b, "" }
	case token.QUO:
		f = func(a, b int64) (int64, string) {
			if b == 0 {
				return 0, "integer divide by zero"
			}
			if unsigned {
				return int64(uint64(a) / uint64(b)), ""
			}
			if b == -1 {
				return -a, ""
			}
			return a / b, ""
		}
	case token.REM:
		f = func(a, b int64) (int64, string) {
			if b == 0 {
				return 0, "integer divide by zero"
			}
			if unsigned {
				return int64(uint64(a) % uint64(b)), ""
			}
			if b == -1 {
				return 0, ""
			}
			return a % b, ""
		}
	case token.AND:
		f = func(a, b int64) (int64, string) { return a & b, "" }
	case token.OR:
		f = func(a, b int64) (int64, string) { return a | b, "" }
	case token.XOR:
		f = func(a, b int64) (int64, string) { return a ^ b, "" }
	case token.AND_NOT:
		f = func(a, b int64) (int64, string) { return a &^ b, "" }
	case token.SHL:
		f = func(a, b int64) (int64, string) {
			if uint64(b) >= 64 {
				return 0, ""
			}
			return a << uint64(b), ""
		}
	case token.SHR:
		f = func(a, b int64) (int64, string) {
			if unsigned {
				if uint64(b) >= 64 {
					return 0, ""
				}
				return int64(uint64(a) >> uint64(b)), ""
			}
			return a >> min(uint64(b), 63), ""
		}
	case token.EQL:
		f = func(a, b int64) (int64, string) { return b2i(a == b), "" }
	case token.NEQ:
		f = func(a, b int64) (int64, string) { return b2i(a != b), "" }
	case token.LSS:
		f = func(a, b int64) (int64, string) { return b2i(less(a, b, unsigned)), "" }
	case token.LEQ:
		f = func(a, b int64) (int64, string) { return b2i(!less(b, a, unsigned)), "" }
	case token.GTR:
		f = func(a, b int64) (int64, string) { return b2i(less(b, a, unsigned)), "" }
	case token.GEQ:
		f = func(a, b int64) (int64, string) { return b2i(!less(a, b, unsigned)), "" }
	default:
		return nil
	}
	cmp := tok == token.EQL || tok == token.NEQ || tok == token.LSS || tok == token.LEQ || tok == token.GTR || tok == token.GEQ
	return func(fr *frame) (V, string) {
		r, err := f(x.get(fr).I, y.get(fr).I)
		if w != nil && !cmp {
			r = w(r)
		}
		return intV(r), err
	}
}

func less(a, b int64, unsigned bool) bool {
	if unsigned {
		return uint64(a) < uint64(b)
	}
	return a < b
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
