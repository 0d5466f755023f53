// This file compiles conversions, type assertions and slice expressions.

package interp

import (
	"fmt"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

func (c *compiler) convert(cf *function, in *ssa.Convert) func(fr *frame) (V, string) {
	x := c.operand(cf, in.X)
	from, to := in.X.Type(), in.Type()
	w := wrap(to)
	switch {
	case isFloat(from) && isFloat(to):
		if basicInfo(to)&types.IsFloat != 0 && to.Underlying().(*types.Basic).Kind() == types.Float32 {
			return func(fr *frame) (V, string) { return floatV(float64(float32(x.get(fr).F()))), "" }
		}
		return func(fr *frame) (V, string) { return x.get(fr), "" }
	case isFloat(from) && isInteger(to):
		return func(fr *frame) (V, string) {
			f := x.get(fr).F()
			var r int64
			if isUnsigned(to) {
				r = int64(uint64(f))
			} else {
				r = int64(f)
			}
			if w != nil {
				r = w(r)
			}
			return intV(r), ""
		}
	case isInteger(from) && isFloat(to):
		u := isUnsigned(from)
		return func(fr *frame) (V, string) {
			i := x.get(fr).I
			if u {
				return floatV(float64(uint64(i))), ""
			}
			return floatV(float64(i)), ""
		}
	case isInteger(from) && isInteger(to):
		return func(fr *frame) (V, string) {
			r := x.get(fr).I
			if w != nil {
				r = w(r)
			}
			return intV(r), ""
		}
	case isInteger(from) && isString(to):
		return func(fr *frame) (V, string) { return V{R: string(rune(x.get(fr).I))}, "" }
	case isString(to):
		// []byte or []rune to string.
		return func(fr *frame) (V, string) {
			s, ok := x.get(fr).R.(*sliceV)
			if !ok {
				return V{R: ""}, ""
			}
			var b []rune
			for i := range s.len {
				b = append(b, rune(s.a.load(s.off+i).I))
			}
			if _, isByte := in.X.Type().Underlying().(*types.Slice).Elem().Underlying().(*types.Basic); isByte &&
				in.X.Type().Underlying().(*types.Slice).Elem().Underlying().(*types.Basic).Kind() == types.Byte {
				bs := make([]byte, len(b))
				for i, r := range b {
					bs[i] = byte(r)
				}
				return V{R: string(bs)}, ""
			}
			return V{R: string(b)}, ""
		}
	case isString(from):
		// string to []byte or []rune.
		elem := to.Underlying().(*types.Slice).Elem()
		runes := elem.Underlying().(*types.Basic).Kind() == types.Rune
		return func(fr *frame) (V, string) {
			s, _ := x.get(fr).R.(string)
			var vals []V
			if runes {
				for _, r := range s {
					vals = append(vals, intV(int64(r)))
				}
			} else {
				for i := range len(s) {
					vals = append(vals, intV(int64(s[i])))
				}
			}
			return V{R: &sliceV{a: &array{n: len(vals), elems: vals}, len: len(vals), cap: len(vals)}}, ""
		}
	}
	// unsafe.Pointer and other conversions keep the value.
	return func(fr *frame) (V, string) { return x.get(fr), "" }
}

func (c *compiler) typeAssert(cf *function, in *ssa.TypeAssert) func(fr *frame) (V, string) {
	x := c.operand(cf, in.X)
	at := in.AssertedType
	_, toIface := at.Underlying().(*types.Interface)
	return func(fr *frame) (V, string) {
		v := x.get(fr)
		i, _ := v.R.(*iface)
		ok := false
		var res V
		switch {
		case i == nil:
		case toIface:
			ok = types.Implements(i.t, at.Underlying().(*types.Interface))
			res = v
		default:
			ok = types.Identical(i.t, at)
			res = i.v
		}
		if in.CommaOk {
			if !ok {
				res = zeroOf(at)
			}
			return V{R: tuple{res, boolV(ok)}}, ""
		}
		if !ok {
			return V{}, fmt.Sprintf("interface conversion: interface is not %s", at)
		}
		return res, ""
	}
}

func (c *compiler) slice(cf *function, in *ssa.Slice) func(fr *frame) (V, string) {
	x := c.operand(cf, in.X)
	bound := func(v ssa.Value) *operand {
		if v == nil {
			return nil
		}
		o := c.operand(cf, v)
		return &o
	}
	lo, hi, mx := bound(in.Low), bound(in.High), bound(in.Max)
	dst, alt := c.slot(cf, in), c.reuseSlot(cf, in)
	window := func(fr *frame, a *array, off, n, cp int) V {
		if last := fr.sameSlice(dst, alt, a, off, n, cp); last != nil {
			return *last
		}
		return V{R: &sliceV{a: a, off: off, len: n, cap: cp}}
	}
	return func(fr *frame) (V, string) {
		get := func(o *operand, def int) int {
			if o == nil {
				return def
			}
			return int(o.get(fr).I)
		}
		switch r := target(x.get(fr)).(type) {
		case string:
			l, h := get(lo, 0), get(hi, len(r))
			if l < 0 || h < l || h > len(r) {
				return V{}, fmt.Sprintf("slice bounds out of range [%d:%d] with length %d", l, h, len(r))
			}
			return V{R: r[l:h]}, ""
		case *sliceV:
			l, h, m := get(lo, 0), get(hi, r.len), get(mx, r.cap)
			if l < 0 || h < l || m < h || m > r.cap {
				return V{}, fmt.Sprintf("slice bounds out of range [%d:%d:%d] with capacity %d", l, h, m, r.cap)
			}
			return window(fr, r.a, r.off+l, h-l, m-l), ""
		case *array:
			l, h, m := get(lo, 0), get(hi, r.n), get(mx, r.n)
			if l < 0 || h < l || m < h || m > r.n {
				return V{}, fmt.Sprintf("slice bounds out of range [%d:%d:%d] with length %d", l, h, m, r.n)
			}
			return window(fr, r, l, h-l, m-l), ""
		case nil:
			if get(lo, 0) == 0 && get(hi, 0) == 0 {
				if isString(in.Type()) {
					return V{R: ""}, ""
				}
				return V{}, ""
			}
		}
		return V{}, "slice of a value the reduced model does not hold"
	}
}
