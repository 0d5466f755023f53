// This file defines the functions of the standard library that the
// interpreter executes natively beyond arithmetic and formatting: seeded
// pseudo-random generators (math/rand/v2's, over its PCG or ChaCha8
// source) and searches in slices (sort.Search*, slices.Contains and
// slices.Index). A program that draws its matrix, graph or particles from
// a seeded generator, and finds a column's owner by a binary search,
// decides its communication by them: executed, the model computes that
// communication at every np instead of replaying what the timing pass
// recorded at its np.
//
// A generator is held as the standard library's own object (V.R is a
// *rand.Rand, *rand.PCG or *rand.ChaCha8), so the
// model draws the same numbers as the program, call for call. The
// reduction keeps every call on a generator whose numbers decide anything
// (each call advances its state: reduce's writers), so none is skipped.

package interp

import (
	"fmt"
	"go/types"
	"math/rand/v2"
	"sort"
	"strings"
)

// stdlibFuncs are the functions of this file, by ssa.Function.String (a
// generic function by its origin's name, without type arguments).
var stdlibFuncs = map[string]func(sig *types.Signature) extFunc{
	"math/rand/v2.New":        func(*types.Signature) extFunc { return randNew },
	"math/rand/v2.NewPCG":     func(*types.Signature) extFunc { return randNewPCG },
	"math/rand/v2.NewChaCha8": func(*types.Signature) extFunc { return randNewChaCha8 },
	"sort.SearchInts":         func(*types.Signature) extFunc { return searchSorted(lessInt) },
	"sort.SearchFloat64s":     func(*types.Signature) extFunc { return searchSorted(lessFloat) },
	"sort.SearchStrings":      func(*types.Signature) extFunc { return searchSorted(lessString) },
	"slices.Contains":         func(sig *types.Signature) extFunc { return sliceIndex(sig, true) },
	"slices.Index":            func(sig *types.Signature) extFunc { return sliceIndex(sig, false) },
}

func init() {
	for name, m := range randMethods {
		stdlibFuncs[name] = func(*types.Signature) extFunc { return randMethod(name, m) }
	}
}

// stdlibFunc returns the interpreter's version of name, a function of this
// file, or nil.
func stdlibFunc(name string, sig *types.Signature) extFunc {
	if i := strings.IndexByte(name, '['); i > 0 && !strings.HasPrefix(name, "(") {
		name = name[:i] // an instantiation of a generic function
	}
	if f := stdlibFuncs[name]; f != nil {
		return f(sig)
	}
	return nil
}

// native returns the Go object v holds, through an interface value.
func native(v V) any {
	if i, ok := v.R.(*iface); ok {
		return i.v.R
	}
	return v.R
}

func randNew(p *proc, fr *frame, a []V, dst int, site string) ctl {
	src, ok := native(a[0]).(rand.Source)
	if !ok {
		return p.fail(site, fmt.Sprintf("math/rand/v2.New with a source of %s: the model executes the standard library's PCG and ChaCha8 sources only", describeSource(a[0])))
	}
	return set(fr, dst, V{R: rand.New(src)})
}

func randNewPCG(p *proc, fr *frame, a []V, dst int, site string) ctl {
	return set(fr, dst, V{R: rand.NewPCG(uint64(a[0].I), uint64(a[1].I))})
}

func randNewChaCha8(p *proc, fr *frame, a []V, dst int, site string) ctl {
	var seed [32]byte
	arr, ok := a[0].R.(*array)
	if !ok || arr.n != len(seed) {
		return p.fail(site, "math/rand/v2.NewChaCha8: its seed is not a [32]byte the model holds")
	}
	for i := range seed {
		seed[i] = byte(arr.load(i).I)
	}
	return set(fr, dst, V{R: rand.NewChaCha8(seed)})
}

// describeSource names the dynamic type of a source the model does not
// execute.
func describeSource(v V) string {
	if i, ok := v.R.(*iface); ok && i.t != nil {
		return "type " + i.t.String()
	}
	if v.R == nil {
		return "nil"
	}
	return fmt.Sprintf("Go type %T", v.R)
}

// A randMethod is a method of a generator: its receiver's Go object and
// the arguments (integers), and the result.
type randMethodFunc func(recv any, a []V) (V, bool)

// randMethods are the generators' methods the model executes. Shuffle
// (which calls back into the program) and Read (which fills the
// program's buffer) are not among them: they stay random numbers.
var randMethods = map[string]randMethodFunc{
	"(*math/rand/v2.Rand).Int64":       v2(func(r *rand.Rand, a []V) V { return intV(r.Int64()) }),
	"(*math/rand/v2.Rand).Uint32":      v2(func(r *rand.Rand, a []V) V { return intV(int64(r.Uint32())) }),
	"(*math/rand/v2.Rand).Uint64":      v2(func(r *rand.Rand, a []V) V { return intV(int64(r.Uint64())) }),
	"(*math/rand/v2.Rand).Int32":       v2(func(r *rand.Rand, a []V) V { return intV(int64(r.Int32())) }),
	"(*math/rand/v2.Rand).Int":         v2(func(r *rand.Rand, a []V) V { return intV(int64(r.Int())) }),
	"(*math/rand/v2.Rand).Uint":        v2(func(r *rand.Rand, a []V) V { return intV(int64(r.Uint())) }),
	"(*math/rand/v2.Rand).Int64N":      v2(func(r *rand.Rand, a []V) V { return intV(r.Int64N(a[0].I)) }),
	"(*math/rand/v2.Rand).Uint64N":     v2(func(r *rand.Rand, a []V) V { return intV(int64(r.Uint64N(uint64(a[0].I)))) }),
	"(*math/rand/v2.Rand).Int32N":      v2(func(r *rand.Rand, a []V) V { return intV(int64(r.Int32N(int32(a[0].I)))) }),
	"(*math/rand/v2.Rand).Uint32N":     v2(func(r *rand.Rand, a []V) V { return intV(int64(r.Uint32N(uint32(a[0].I)))) }),
	"(*math/rand/v2.Rand).IntN":        v2(func(r *rand.Rand, a []V) V { return intV(int64(r.IntN(int(a[0].I)))) }),
	"(*math/rand/v2.Rand).UintN":       v2(func(r *rand.Rand, a []V) V { return intV(int64(r.UintN(uint(a[0].I)))) }),
	"(*math/rand/v2.Rand).Float64":     v2(func(r *rand.Rand, a []V) V { return floatV(r.Float64()) }),
	"(*math/rand/v2.Rand).Float32":     v2(func(r *rand.Rand, a []V) V { return floatV(float64(r.Float32())) }),
	"(*math/rand/v2.Rand).NormFloat64": v2(func(r *rand.Rand, a []V) V { return floatV(r.NormFloat64()) }),
	"(*math/rand/v2.Rand).ExpFloat64":  v2(func(r *rand.Rand, a []V) V { return floatV(r.ExpFloat64()) }),
	"(*math/rand/v2.Rand).Perm":        v2(func(r *rand.Rand, a []V) V { return intSlice(r.Perm(int(a[0].I))) }),
	"(*math/rand/v2.PCG).Uint64": func(recv any, a []V) (V, bool) {
		s, ok := recv.(*rand.PCG)
		if !ok {
			return V{}, false
		}
		return intV(int64(s.Uint64())), true
	},
	"(*math/rand/v2.PCG).Seed": func(recv any, a []V) (V, bool) {
		s, ok := recv.(*rand.PCG)
		if ok {
			s.Seed(uint64(a[0].I), uint64(a[1].I))
		}
		return V{}, ok
	},
	"(*math/rand/v2.ChaCha8).Uint64": func(recv any, a []V) (V, bool) {
		s, ok := recv.(*rand.ChaCha8)
		if !ok {
			return V{}, false
		}
		return intV(int64(s.Uint64())), true
	},
}

// v2 adapts a method of math/rand/v2's Rand.
func v2(f func(r *rand.Rand, a []V) V) randMethodFunc {
	return func(recv any, a []V) (V, bool) {
		r, ok := recv.(*rand.Rand)
		if !ok {
			return V{}, false
		}
		return f(r, a), true
	}
}

// randMethod calls method m on the receiver a[0]. A receiver the model
// does not hold (a generator made where the model did not execute it)
// stops the run: its numbers would be wrong.
func randMethod(name string, m randMethodFunc) extFunc {
	return func(p *proc, fr *frame, a []V, dst int, site string) ctl {
		if len(a) == 0 {
			return p.fail(site, name+": no receiver")
		}
		v, ok := m(native(a[0]), a[1:])
		if !ok {
			return p.fail(site, fmt.Sprintf("%s on a generator the model does not hold (%s): its numbers cannot be drawn", name, describeSource(a[0])))
		}
		return set(fr, dst, v)
	}
}

func lessInt(x, y V) bool    { return x.I < y.I }
func lessFloat(x, y V) bool  { return x.F() < y.F() }
func lessString(x, y V) bool { x1, _ := x.R.(string); y1, _ := y.R.(string); return x1 < y1 }

// searchSorted is sort.SearchInts and its kin: the smallest index i with
// a[i] ≥ x (len(a) if none), by binary search over the slice the model
// holds.
func searchSorted(less func(x, y V) bool) extFunc {
	return func(p *proc, fr *frame, a []V, dst int, site string) ctl {
		s, _ := a[0].R.(*sliceV)
		if s == nil {
			return set(fr, dst, intV(0))
		}
		if s.a.shape {
			return p.fail(site, "a search of a slice whose elements the model does not hold")
		}
		x := a[1]
		i := sort.Search(s.len, func(i int) bool { return !less(s.a.load(s.off+i), x) })
		return set(fr, dst, intV(int64(i)))
	}
}

// sliceIndex is slices.Index (or, with contains, slices.Contains) for
// elements of a basic type: integers, floats (by value, as ==), strings
// and booleans.
func sliceIndex(sig *types.Signature, contains bool) extFunc {
	isFloat := false
	if sig != nil && sig.Params().Len() == 2 {
		if b, ok := sig.Params().At(1).Type().Underlying().(*types.Basic); ok && b.Info()&types.IsFloat != 0 {
			isFloat = true
		}
	}
	return func(p *proc, fr *frame, a []V, dst int, site string) ctl {
		idx := -1
		if s, _ := a[0].R.(*sliceV); s != nil {
			if s.a.shape {
				return p.fail(site, "a search of a slice whose elements the model does not hold")
			}
			x := a[1]
			if _, ok := x.R.(string); x.R != nil && !ok {
				return p.fail(site, "slices.Index or Contains of elements the model compares only as numbers, strings or booleans")
			}
			for i := range s.len {
				e := s.a.load(s.off + i)
				if isFloat && e.F() == x.F() || !isFloat && e.I == x.I && e.R == x.R {
					idx = i
					break
				}
			}
		}
		if contains {
			return set(fr, dst, boolV(idx >= 0))
		}
		return set(fr, dst, intV(int64(idx)))
	}
}
