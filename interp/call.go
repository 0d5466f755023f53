// This file compiles calls: of the program's functions (static, through
// function values and through interfaces), of builtins, of commlib, and of
// functions outside the program, which the interpreter evaluates when it
// knows them and otherwise treats as returning zero values (and says so).

package interp

import (
	"errors"
	"fmt"
	"go/types"
	"math"
	"strconv"
	"strings"

	"github.com/predict-tools/predict/modelgen"
	"golang.org/x/tools/go/ssa"
)

// call compiles a call instruction.
func (c *compiler) call(cf *function, in *ssa.Call) op {
	cc := &in.Call
	dst := c.slot(cf, in)
	site := c.l.Pos(in.Pos()).String()
	args := make([]operand, len(cc.Args))
	for i, a := range cc.Args {
		args[i] = c.operand(cf, a)
	}
	if b, ok := cc.Value.(*ssa.Builtin); ok {
		return c.builtin(in, b.Name(), args, dst, site)
	}
	if c.rep.Plan.SealedCall(in) != "" {
		// A call through a function or interface value the model does
		// not compute, to functions that do not communicate
		// (reduce/sealdyn.go): not followed, its time is its caller's
		// fragment's.
		return c.sealedOp(in, dst, site)
	}
	if cc.IsInvoke() {
		recv := c.operand(cf, cc.Value)
		method := cc.Method
		commOps, recvSlot := c.ifaceCommlib(cf, in, args, dst, site)
		return func(p *proc, fr *frame) ctl {
			r := recv.get(fr)
			if e, ok := r.R.(error); ok && method.Name() == "Error" {
				fr.s[dst] = V{R: e.Error()}
				return cNext
			}
			if _, ok := r.R.(rootContext); ok {
				v, ok := rootContextMethod(method.Name())
				if !ok {
					return p.fail(site, "context.Context."+method.Name()+" is not modeled (Err, Done and Value are)")
				}
				return set(fr, dst, v)
			}
			fn, i, msg := c.methodOf(r, method)
			if msg != "" {
				return p.fail(site, msg)
			}
			if cop := commOps[fn]; cop != nil {
				fr.s[recvSlot] = i.v // a commlib method: its op, on the dynamic value
				return cop(p, fr)
			}
			if modelgen.IsCommlib(fn) {
				// Not silently skipped.
				return p.fail(site, fmt.Sprintf("%s called through an interface (%s) is not modeled", modelgen.CommlibOp(fn), method.FullName()))
			}
			vals := append([]V{i.v}, evalArgs(args, fr)...)
			return p.callValue(V{R: c.funcValue(fn)}, vals, dst, site)
		}
	}
	if f := cc.StaticCallee(); f != nil {
		if f.Name() == "init" && f.Parent() == nil && f.Pkg != nil && len(f.Params) == 0 {
			// A package initializer: the program's run once, the others
			// (the standard library, commlib) are not the program's.
			if !inModule(c.l, f) || runtimePackage(c.l, f.Pkg) {
				return func(p *proc, fr *frame) ctl { return cNext }
			}
			fn := c.fn(f)
			return func(p *proc, fr *frame) ctl {
				if p.w.inited[fn] {
					return cNext
				}
				p.w.inited[fn] = true
				return p.call(fn, nil, nil, -1, site)
			}
		}
		if strings.HasPrefix(f.Synthetic, "bound method wrapper") || strings.HasPrefix(f.Synthetic, "thunk") {
			// A method value (c.Allreduce) or expression ((*Comm).Barrier)
			// called directly: its wrapper calls the method, commlib's
			// or the program's, with the bound receiver.
			fn := c.fn(f)
			env := c.closureEnv(cf, cc)
			return func(p *proc, fr *frame) ctl {
				return p.callFrom(fr, fn, env, args, dst, site)
			}
		}
		if modelgen.IsCommlib(f) {
			name := modelgen.CommlibOp(f)
			return c.opaqueArgs(cf, in, site, name, args, func(args []operand) op { return c.commlib(cf, in, name, args, dst, site) })
		}
		if c.rep.Plan.Sealed(f) != "" {
			// A sealed recursion (reduce/sealcall.go): never entered, its
			// time is its caller's fragment's, and nothing it computes is
			// kept.
			return c.sealedOp(in, dst, site)
		}
		fv := c.funcValue(f)
		if fv.fn != nil {
			fn := fv.fn
			env := c.closureEnv(cf, cc)
			if rec := c.recursive(in); rec != nil {
				return func(p *proc, fr *frame) ctl {
					rec.calls++
					return p.callFrom(fr, fn, env, args, dst, site)
				}
			}
			return func(p *proc, fr *frame) ctl {
				return p.callFrom(fr, fn, env, args, dst, site)
			}
		}
		if op := modelgen.GoSyncOp(f); op != "" {
			return c.followedSyncOp(op, f, args, dst, site)
		}
		if op := c.goAtomicOp(f, args, dst, site); op != nil {
			return op
		}
		if exit := c.exitOp(cf, in, f.String(), args, site); exit != nil {
			return exit
		}
		ext := c.external(in, f.String())
		return func(p *proc, fr *frame) ctl { return ext(p, fr, evalArgs(args, fr), dst, site) }
	}
	fnv := c.operand(cf, cc.Value)
	return func(p *proc, fr *frame) ctl {
		return p.callValue(fnv.get(fr), evalArgs(args, fr), dst, site)
	}
}

// methodOf is the method that calling method on interface value r runs,
// with r's dynamic value; msg says why there is none (a nil interface, a
// missing method).
func (c *compiler) methodOf(r V, method *types.Func) (*ssa.Function, *iface, string) {
	i, _ := r.R.(*iface)
	if i == nil {
		return nil, nil, "invalid memory address or nil pointer dereference (method " + method.Name() + " of a nil interface)"
	}
	sel := c.l.Prog.MethodSets.MethodSet(i.t).Lookup(method.Pkg(), method.Name())
	if sel == nil {
		return nil, nil, fmt.Sprintf("%s has no method %s", i.t, method.Name())
	}
	return c.l.Prog.MethodValue(sel), i, ""
}

// closureEnv is the free variables a static call through a closure binds
// (none for a plain function).
func (c *compiler) closureEnv(cf *function, cc *ssa.CallCommon) []operand {
	mc, ok := cc.Value.(*ssa.MakeClosure)
	if !ok {
		return nil
	}
	env := make([]operand, len(mc.Bindings))
	for i, b := range mc.Bindings {
		env[i] = c.operand(cf, b)
	}
	return env
}

// funcValue is the closure value of a function of the program or outside.
func (c *compiler) funcValue(f *ssa.Function) *closure {
	if c.models[f] != nil || inModule(c.l, f) {
		return &closure{fn: c.fn(f)}
	}
	return &closure{ext: f.String()}
}

func evalArgs(args []operand, fr *frame) []V {
	vals := make([]V, len(args))
	for i, a := range args {
		vals[i] = a.get(fr)
	}
	return vals
}

// callValue calls a function value.
func (p *proc) callValue(fv V, args []V, dst int, site string) ctl {
	cl, _ := fv.R.(*closure)
	switch {
	case cl == nil:
		return p.fail(site, "call of a nil function value")
	case cl.fn != nil:
		return p.call(cl.fn, cl.env, args, dst, site)
	case cl.op != nil:
		return cl.op(p, p.top())
	}
	ext := p.w.comp.externalByName(cl.ext)
	return ext(p, p.top(), args, dst, site)
}

// extFunc is a function outside the program, as the interpreter runs it.
type extFunc func(p *proc, fr *frame, args []V, dst int, site string) ctl

// external compiles a call of a function outside the program.
func (c *compiler) external(in *ssa.Call, name string) extFunc {
	if f := c.externalFunc(name, in.Call.Signature()); f != nil {
		return f
	}
	return c.unknownExternal(name, in)
}

func (c *compiler) externalByName(name string) extFunc {
	if f := c.externalFunc(name, nil); f != nil {
		return f
	}
	return c.unknownExternal(name, nil)
}

// unknownExternal is a function the interpreter does not know: its results
// are zero, which is noted once per call site when they are used.
func (c *compiler) unknownExternal(name string, in *ssa.Call) extFunc {
	used := in != nil && in.Referrers() != nil && len(*in.Referrers()) > 0
	var zero V
	if in != nil {
		zero = zeroOf(in.Type())
	}
	return func(p *proc, fr *frame, args []V, dst int, site string) ctl {
		if used {
			p.w.noteAssumption(site, "the result of "+name+" (outside the program, not modeled) is taken as zero")
		}
		if dst >= 0 {
			fr.s[dst] = zero
		}
		return cNext
	}
}

// set stores a call's result.
func set(fr *frame, dst int, v V) ctl {
	if dst >= 0 {
		fr.s[dst] = v
	}
	return cNext
}

var mathFuncs = map[string]func(float64) float64{
	"math.Sqrt": math.Sqrt, "math.Floor": math.Floor, "math.Ceil": math.Ceil, "math.Abs": math.Abs,
	"math.Log": math.Log, "math.Log2": math.Log2, "math.Log10": math.Log10, "math.Exp": math.Exp,
	"math.Round": math.Round, "math.Trunc": math.Trunc, "math.Cbrt": math.Cbrt, "math.Sin": math.Sin,
	"math.Cos": math.Cos, "math.Tan": math.Tan, "math.Asin": math.Asin, "math.Acos": math.Acos, "math.Atan": math.Atan,
	"math.Sinh": math.Sinh, "math.Cosh": math.Cosh, "math.Tanh": math.Tanh, "math.Erf": math.Erf, "math.Erfc": math.Erfc,
	"math.Log1p": math.Log1p, "math.Expm1": math.Expm1, "math.Exp2": math.Exp2, "math.Gamma": math.Gamma,
}

var mathFuncs2 = map[string]func(float64, float64) float64{
	"math.Pow": math.Pow, "math.Max": math.Max, "math.Min": math.Min, "math.Mod": math.Mod, "math.Hypot": math.Hypot,
	"math.Atan2": math.Atan2, "math.Copysign": math.Copysign, "math.Dim": math.Dim, "math.Remainder": math.Remainder,
}

// externalFunc returns the interpreter's version of a function outside
// the program, or nil.
func (c *compiler) externalFunc(name string, sig *types.Signature) extFunc {
	if f := stdlibFunc(name, sig); f != nil {
		return f
	}
	if f := mathFuncs[name]; f != nil {
		return func(p *proc, fr *frame, a []V, dst int, site string) ctl { return set(fr, dst, floatV(f(a[0].F()))) }
	}
	if f := mathFuncs2[name]; f != nil {
		return func(p *proc, fr *frame, a []V, dst int, site string) ctl {
			return set(fr, dst, floatV(f(a[0].F(), a[1].F())))
		}
	}
	if f := flagFunc(name); f != nil {
		return f
	}
	switch name {
	case "(time.Duration).Seconds", "(time.Duration).Minutes", "(time.Duration).Hours":
		unit := map[string]float64{"(time.Duration).Seconds": 1e9, "(time.Duration).Minutes": 60e9, "(time.Duration).Hours": 3600e9}[name]
		return func(p *proc, fr *frame, a []V, dst int, site string) ctl {
			return set(fr, dst, floatV(float64(a[0].I)/unit))
		}
	case "(time.Duration).Milliseconds", "(time.Duration).Microseconds", "(time.Duration).Nanoseconds":
		unit := map[string]int64{"(time.Duration).Milliseconds": 1e6, "(time.Duration).Microseconds": 1e3, "(time.Duration).Nanoseconds": 1}[name]
		return func(p *proc, fr *frame, a []V, dst int, site string) ctl { return set(fr, dst, intV(a[0].I/unit)) }
	case "math.Inf":
		return func(p *proc, fr *frame, a []V, dst int, site string) ctl {
			return set(fr, dst, floatV(math.Inf(int(a[0].I))))
		}
	case "math.IsNaN":
		return func(p *proc, fr *frame, a []V, dst int, site string) ctl {
			return set(fr, dst, boolV(math.IsNaN(a[0].F())))
		}
	case "math.Float64bits", "math.Float64frombits":
		return func(p *proc, fr *frame, a []V, dst int, site string) ctl { return set(fr, dst, a[0]) }
	case "fmt.Sprintf", "fmt.Errorf":
		return func(p *proc, fr *frame, a []V, dst int, site string) ctl {
			format, _ := a[0].R.(string)
			s := fmt.Sprintf(format, goArgs(a[1])...)
			if name == "fmt.Errorf" {
				return set(fr, dst, V{R: errors.New(s)})
			}
			return set(fr, dst, V{R: s})
		}
	case "fmt.Sprint", "fmt.Sprintln":
		return func(p *proc, fr *frame, a []V, dst int, site string) ctl {
			if name == "fmt.Sprint" {
				return set(fr, dst, V{R: fmt.Sprint(goArgs(a[0])...)})
			}
			return set(fr, dst, V{R: fmt.Sprintln(goArgs(a[0])...)})
		}
	case "context.Background", "context.TODO":
		// A root context, never cancelled: what an errgroup is given.
		return func(p *proc, fr *frame, a []V, dst int, site string) ctl {
			return set(fr, dst, V{R: rootContext{}})
		}
	case "errors.New":
		return func(p *proc, fr *frame, a []V, dst int, site string) ctl {
			s, _ := a[0].R.(string)
			return set(fr, dst, V{R: errors.New(s)})
		}
	case "strings.Join":
		return func(p *proc, fr *frame, a []V, dst int, site string) ctl {
			var parts []string
			if s, ok := a[0].R.(*sliceV); ok {
				for i := range s.len {
					x, _ := s.a.load(s.off + i).R.(string)
					parts = append(parts, x)
				}
			}
			sep, _ := a[1].R.(string)
			return set(fr, dst, V{R: strings.Join(parts, sep)})
		}
	case "strings.ToUpper", "strings.ToLower", "strings.TrimSpace":
		f := map[string]func(string) string{"strings.ToUpper": strings.ToUpper, "strings.ToLower": strings.ToLower, "strings.TrimSpace": strings.TrimSpace}[name]
		return func(p *proc, fr *frame, a []V, dst int, site string) ctl {
			s, _ := a[0].R.(string)
			return set(fr, dst, V{R: f(s)})
		}
	case "strconv.Itoa":
		return func(p *proc, fr *frame, a []V, dst int, site string) ctl {
			return set(fr, dst, V{R: strconv.Itoa(int(a[0].I))})
		}
	case "strconv.Atoi":
		return func(p *proc, fr *frame, a []V, dst int, site string) ctl {
			s, _ := a[0].R.(string)
			n, err := strconv.Atoi(s)
			var e V
			if err != nil {
				e = V{R: err}
			}
			return set(fr, dst, V{R: tuple{intV(int64(n)), e}})
		}
	case "fmt.Printf", "fmt.Println", "fmt.Print", "fmt.Fprintf", "fmt.Fprintln", "fmt.Fprint", "log.Printf", "log.Println":
		// Output is not part of the prediction.
		return func(p *proc, fr *frame, a []V, dst int, site string) ctl {
			return set(fr, dst, V{R: tuple{intV(0), V{}}})
		}
	case "os.Exit", "log.Fatal", "log.Fatalf", "log.Fatalln":
		// Called through a function value (exitOp compiles direct calls).
		return func(p *proc, fr *frame, a []V, dst int, site string) ctl {
			return p.abort(site, name, exitMessage(name, a), true)
		}
	}
	return nil
}

// goArgs converts a ...any argument slice to Go values.
func goArgs(v V) []any {
	s, ok := v.R.(*sliceV)
	if !ok {
		return nil
	}
	out := make([]any, s.len)
	for i := range s.len {
		x := s.a.load(s.off + i)
		if in, ok := x.R.(*iface); ok {
			out[i] = goValue(in.v, in.t)
		} else if e, ok := x.R.(error); ok {
			out[i] = e
		}
	}
	return out
}

// builtin compiles a call of a builtin function.
func (c *compiler) builtin(in *ssa.Call, name string, args []operand, dst int, site string) op {
	if op := c.mapBuiltin(in, name, args, dst); op != nil {
		return op
	}
	switch name {
	case "len", "cap":
		isCap := name == "cap"
		return func(p *proc, fr *frame) ctl {
			var n int
			switch r := target(args[0].get(fr)).(type) {
			case *sliceV:
				n = r.len
				if isCap {
					n = r.cap
				}
			case string:
				n = len(r)
			case *array:
				n = r.n
			case *chanV:
				n = len(r.buf)
				if isCap {
					n = r.cap
				}
			}
			return set(fr, dst, intV(int64(n)))
		}
	case "min", "max":
		t := in.Type()
		isMax := name == "max"
		return func(p *proc, fr *frame) ctl {
			best := args[0].get(fr)
			for _, a := range args[1:] {
				v := a.get(fr)
				var less bool
				switch {
				case isFloat(t):
					less = v.F() < best.F()
				case isString(t):
					x, _ := v.R.(string)
					y, _ := best.R.(string)
					less = x < y
				case isUnsigned(t):
					less = uint64(v.I) < uint64(best.I)
				default:
					less = v.I < best.I
				}
				if less != isMax && !(isMax && v == best) {
					best = v
				}
			}
			return set(fr, dst, best)
		}
	case "append":
		elem := in.Type().Underlying().(*types.Slice).Elem()
		shape := c.rep != nil && c.rep.Plan.ShapeOnly(in) // only the length is needed
		return func(p *proc, fr *frame) ctl {
			x, _ := args[0].get(fr).R.(*sliceV)
			var add []V
			switch y := args[1].get(fr).R.(type) {
			case *sliceV:
				if shape && y != nil {
					return set(fr, dst, V{R: appendShape(x, y.len, elem)})
				}
				for i := range y.len {
					add = append(add, y.a.load(y.off+i))
				}
			case string:
				for i := range len(y) {
					add = append(add, intV(int64(y[i])))
				}
			}
			return set(fr, dst, V{R: appendSlice(x, add, elem)})
		}
	case "copy":
		return func(p *proc, fr *frame) ctl {
			d, _ := args[0].get(fr).R.(*sliceV)
			if d == nil {
				return set(fr, dst, intV(0))
			}
			n := 0
			switch s := args[1].get(fr).R.(type) {
			case *sliceV:
				n = min(d.len, s.len)
				if s.a.elems == nil && d.a.elems == nil {
					break
				}
				tmp := make([]V, n)
				for i := range n {
					tmp[i] = s.a.load(s.off + i)
				}
				for i := range n {
					d.a.store(d.off+i, tmp[i])
				}
			case string:
				n = min(d.len, len(s))
				for i := range n {
					d.a.store(d.off+i, intV(int64(s[i])))
				}
			}
			return set(fr, dst, intV(int64(n)))
		}
	case "print", "println", "clear":
		return func(p *proc, fr *frame) ctl { return cNext }
	case "recover":
		return func(p *proc, fr *frame) ctl { return set(fr, dst, V{}) }
	}
	return c.failOp(in, "builtin %s is not supported by the interpreter", name)
}

// appendSlice appends vals to x, growing its array like Go does.
func appendSlice(x *sliceV, vals []V, elem types.Type) *sliceV {
	if x == nil {
		x = &sliceV{a: newArray(0, zeroOf(elem), false)}
	}
	n := x.len + len(vals)
	if n <= x.cap {
		for i, v := range vals {
			x.a.store(x.off+x.len+i, v)
		}
		return &sliceV{a: x.a, off: x.off, len: n, cap: x.cap}
	}
	newCap := max(n, 2*x.cap, 4)
	a := newArray(newCap, x.a.zero, x.a.shape)
	for i := range x.len {
		if x.a.elems != nil {
			a.store(i, x.a.load(x.off+i))
		}
	}
	for i, v := range vals {
		a.store(x.len+i, v)
	}
	return &sliceV{a: a, len: n, cap: newCap}
}

// appendShape appends n elements of which the model needs none (the
// reduction made the append shape-only): the result has the length and
// capacity Go's append gives it and no elements.
func appendShape(x *sliceV, n int, elem types.Type) *sliceV {
	if x == nil {
		x = &sliceV{a: newArray(0, zeroOf(elem), true)}
	}
	if l := x.len + n; l <= x.cap {
		return &sliceV{a: x.a, off: x.off, len: l, cap: x.cap}
	}
	newCap := max(x.len+n, 2*x.cap, 4)
	return &sliceV{a: newArray(newCap, x.a.zero, true), len: x.len + n, cap: newCap}
}

// deferOp compiles a defer statement: the call is evaluated now and run
// by RunDefers.
func (c *compiler) deferOp(cf *function, in *ssa.Defer) op {
	cc := &in.Call
	args := make([]operand, len(cc.Args))
	for i, a := range cc.Args {
		args[i] = c.operand(cf, a)
	}
	site := c.l.Pos(in.Pos()).String()
	if cc.IsInvoke() {
		// The method is the dynamic value's: found now, run at the return.
		recv, method := c.operand(cf, cc.Value), cc.Method
		return func(p *proc, fr *frame) ctl {
			fn, self, msg := c.dynMethod(recv.get(fr), method)
			if msg != "" {
				return p.fail(site, "defer: "+msg)
			}
			fr.defers = append(fr.defers, deferred{fn: V{R: &closure{fn: fn}}, args: append([]V{self}, evalArgs(args, fr)...)})
			return cNext
		}
	}
	if b, ok := cc.Value.(*ssa.Builtin); ok {
		_ = b
		return func(p *proc, fr *frame) ctl { return cNext }
	}
	if f := cc.StaticCallee(); f != nil && modelgen.IsCommlib(f) {
		// A deferred commlib call (Pool.Close, Mutex.Unlock): run it at
		// the return through a synthetic function value.
		opName := modelgen.CommlibOp(f)
		cop := c.commlib(cf, &ssa.Call{Call: *cc}, opName, args, -1, site)
		return func(p *proc, fr *frame) ctl {
			fr.defers = append(fr.defers, deferred{fn: V{R: &closure{op: cop}}})
			return cNext
		}
	}
	if f := cc.StaticCallee(); f != nil && modelgen.GoSyncOp(f) != "" {
		// A deferred sync call (WaitGroup.Done, Mutex.Unlock), likewise.
		sop := c.followedSyncOp(modelgen.GoSyncOp(f), f, args, -1, site)
		return func(p *proc, fr *frame) ctl {
			fr.defers = append(fr.defers, deferred{fn: V{R: &closure{op: sop}}})
			return cNext
		}
	}
	fnv := c.operand(cf, cc.Value)
	return func(p *proc, fr *frame) ctl {
		fr.defers = append(fr.defers, deferred{fn: fnv.get(fr), args: evalArgs(args, fr)})
		return cNext
	}
}
