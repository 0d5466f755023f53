// This file defines Go's sync/atomic in the model (issue 19): the
// functions (atomic.AddInt64(&x, d), LoadInt32, CompareAndSwapUint64, ...)
// and the methods of the typed atomics (atomic.Int64, Uint32, Bool, ...).
// The reduction keeps an atomic operation only where what it reads decides
// control (a work-sharing counter: `for i := next.Add(1); i < n; ...`) or
// what it writes is read so; the interpreter then computes it, and a
// thread lets any thread of its rank with a smaller clock go first, so that
// the operations happen in modeled-time order, as commlib's atomics do.
// The operation's own cost is in the fragment the timing pass measured
// around it: the model adds none. An atomic the reduction drops is timed
// only.

package interp

import (
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// goAtomicOp compiles a call of f when it is a function of sync/atomic or a
// method of one of its typed atomics that the model computes, and returns
// nil otherwise.
func (c *compiler) goAtomicOp(f *ssa.Function, args []operand, dst int, site string) op {
	obj, _ := f.Object().(*types.Func)
	if obj == nil || obj.Pkg() == nil || obj.Pkg().Path() != "sync/atomic" {
		return nil
	}
	sig := f.Signature
	var verb string
	var t types.Type // the value's type
	field := -1      // the typed atomic's value field, for a method
	if recv := sig.Recv(); recv != nil {
		ptr, ok := recv.Type().(*types.Pointer)
		if !ok {
			return nil
		}
		st, ok := ptr.Elem().Underlying().(*types.Struct)
		if !ok {
			return nil
		}
		for i := range st.NumFields() {
			if st.Field(i).Name() == "v" {
				field, t = i, st.Field(i).Type()
			}
		}
		verb = obj.Name()
	} else {
		for _, v := range []string{"CompareAndSwap", "Add", "Load", "Store", "Swap", "And", "Or"} {
			if strings.HasPrefix(obj.Name(), v) {
				verb = v
				break
			}
		}
		if sig.Params().Len() > 0 {
			if p, ok := sig.Params().At(0).Type().(*types.Pointer); ok {
				t = p.Elem()
			}
		}
	}
	if t == nil || verb == "" {
		return nil
	}
	if b, ok := t.Underlying().(*types.Basic); !ok || b.Info()&(types.IsInteger|types.IsBoolean) == 0 {
		return nil // pointers and Values: not computed (the caller treats the call as outside the program)
	}
	w := wrap(t)
	norm := func(x int64) int64 {
		if w != nil {
			return w(x)
		}
		return x
	}
	name := "atomic." + obj.Name()
	return func(p *proc, fr *frame) ctl {
		cell := args[0].get(fr)
		if field >= 0 {
			s, _ := target(cell).(*structV)
			if s == nil {
				return p.fail(site, name+" on a nil pointer (invalid memory address or nil pointer dereference)")
			}
			cell = V{R: &ptr{s: s, i: field}}
		}
		if cell.R == nil {
			return p.fail(site, name+" on a nil pointer (invalid memory address or nil pointer dereference)")
		}
		if c, wait := p.turn(); wait {
			return c
		}
		old := loadFrom(cell, false)
		// The operands after the address (or the receiver).
		arg := func(i int) V { return args[i+1].get(fr) }
		switch verb {
		case "Load":
			return set(fr, dst, old)
		case "Store":
			storeTo(cell, intV(norm(arg(0).I)))
			return cNext
		case "Add":
			n := intV(norm(old.I + arg(0).I))
			storeTo(cell, n)
			return set(fr, dst, n)
		case "Swap":
			storeTo(cell, intV(norm(arg(0).I)))
			return set(fr, dst, old)
		case "And":
			storeTo(cell, intV(norm(old.I&arg(0).I)))
			return set(fr, dst, old)
		case "Or":
			storeTo(cell, intV(norm(old.I|arg(0).I)))
			return set(fr, dst, old)
		case "CompareAndSwap":
			if old.I != norm(arg(0).I) {
				return set(fr, dst, boolV(false))
			}
			storeTo(cell, intV(norm(arg(1).I)))
			return set(fr, dst, boolV(true))
		}
		return p.fail(site, name+" is not modeled")
	}
}
