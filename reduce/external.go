// This file defines which functions outside the program the interpreter
// executes: the result of any other is data the model does not compute.

package reduce

import (
	"go/token"
	"go/types"
	"maps"
	"slices"
	"strings"

	"github.com/predict-tools/predict/modelgen"
	"golang.org/x/tools/go/ssa"
)

// ExecutedExternal lists the functions outside the program (by
// ssa.Function.String) whose calls the interpreter executes
// (interp/call.go, externalFunc): arithmetic, formatting, errors, a root
// context, output it ignores. interp's TestExecutedExternal holds the two
// lists together. Beside them the interpreter follows package flag's
// functions (interp/flags.go), sync, sync/atomic and errgroup operations
// (GoSyncOp, goatomic.go) and the functions that end the program
// (os.Exit, log.Fatal...).
var ExecutedExternal = map[string]bool{
	// math
	"math.Sqrt": true, "math.Floor": true, "math.Ceil": true, "math.Abs": true, "math.Log": true,
	"math.Log2": true, "math.Log10": true, "math.Exp": true, "math.Round": true, "math.Trunc": true,
	"math.Cbrt": true, "math.Sin": true, "math.Cos": true, "math.Pow": true, "math.Max": true,
	"math.Min": true, "math.Mod": true, "math.Hypot": true, "math.Inf": true, "math.IsNaN": true,
	"math.Float64bits": true, "math.Float64frombits": true, "math.Tan": true, "math.Asin": true, "math.Acos": true,
	"math.Atan": true, "math.Sinh": true, "math.Cosh": true, "math.Tanh": true, "math.Erf": true, "math.Erfc": true,
	"math.Log1p": true, "math.Expm1": true, "math.Exp2": true, "math.Gamma": true, "math.Atan2": true,
	"math.Copysign": true, "math.Dim": true, "math.Remainder": true,
	// time.Duration's conversions
	"(time.Duration).Seconds": true, "(time.Duration).Minutes": true, "(time.Duration).Hours": true,
	"(time.Duration).Milliseconds": true, "(time.Duration).Microseconds": true, "(time.Duration).Nanoseconds": true,
	// formatting, errors, strings
	"fmt.Sprintf": true, "fmt.Errorf": true, "fmt.Sprint": true, "fmt.Sprintln": true,
	"errors.New": true, "context.Background": true, "context.TODO": true,
	"strings.Join": true, "strings.ToUpper": true, "strings.ToLower": true, "strings.TrimSpace": true,
	"strconv.Itoa": true, "strconv.Atoi": true,
	// output (not part of the prediction) and the end of the program
	"fmt.Printf": true, "fmt.Println": true, "fmt.Print": true, "fmt.Fprintf": true, "fmt.Fprintln": true,
	"fmt.Fprint": true, "log.Printf": true, "log.Println": true,
	"os.Exit": true, "log.Fatal": true, "log.Fatalf": true, "log.Fatalln": true,
	// seeded pseudo-random generators of math/rand/v2 (interp/stdlib.go):
	// the numbers of a generator made from a seed are computed, call for
	// call; the package-level functions (the global, randomly seeded
	// source), Shuffle and Read, math/rand's generators, and a generator
	// that escapes where the model cannot follow it (escapedGenerator)
	// stay random numbers
	"math/rand/v2.New": true, "math/rand/v2.NewPCG": true, "math/rand/v2.NewChaCha8": true,
	"(*math/rand/v2.Rand).Int64": true, "(*math/rand/v2.Rand).Uint32": true, "(*math/rand/v2.Rand).Uint64": true,
	"(*math/rand/v2.Rand).Int32": true, "(*math/rand/v2.Rand).Int": true, "(*math/rand/v2.Rand).Uint": true,
	"(*math/rand/v2.Rand).Int64N": true, "(*math/rand/v2.Rand).Uint64N": true, "(*math/rand/v2.Rand).Int32N": true,
	"(*math/rand/v2.Rand).Uint32N": true, "(*math/rand/v2.Rand).IntN": true, "(*math/rand/v2.Rand).UintN": true,
	"(*math/rand/v2.Rand).Float64": true, "(*math/rand/v2.Rand).Float32": true, "(*math/rand/v2.Rand).NormFloat64": true,
	"(*math/rand/v2.Rand).ExpFloat64": true, "(*math/rand/v2.Rand).Perm": true,
	"(*math/rand/v2.PCG).Uint64": true, "(*math/rand/v2.PCG).Seed": true, "(*math/rand/v2.ChaCha8).Uint64": true,
	// searches (generic ones by their origin's name)
	"sort.SearchInts": true, "sort.SearchFloat64s": true, "sort.SearchStrings": true,
	"slices.Contains": true, "slices.Index": true,
}

// executedExternal reports whether the interpreter executes a call of f,
// a function outside the module.
func executedExternal(f *ssa.Function) bool {
	if f == nil {
		return false
	}
	name := f.String()
	if o := f.Origin(); o != nil {
		name = o.String() // an instantiation of a generic function
	}
	switch {
	case ExecutedExternal[name], modelgen.GoSyncOp(f) != "", strings.HasPrefix(name, "flag."),
		strings.Contains(name, "flag.FlagSet"), strings.Contains(name, "flag.Flag)"):
		return true
	}
	obj := f.Object()
	return obj != nil && obj.Pkg() != nil && obj.Pkg().Path() == "sync/atomic"
}

// WorksOver reports whether a call of f, a function outside the program, is
// taken to cost in proportion to the bytes of its slice arguments (a sort,
// a hash, a search through them): every function the interpreter does not
// execute itself (executedExternal: arithmetic, formatting, searches it
// runs, generators, synchronisation) and that is not commlib's. Its
// segment is then counted in those bytes where the model computes their
// lengths (interp/segunits.go), so that a rank's share sorted at another
// np costs its share's bytes.
func WorksOver(f *ssa.Function) bool {
	return f != nil && !executedExternal(f) && !modelgen.IsCommlib(f)
}

// WorkedSlices returns the slices a call the model does not follow works
// over, or nil: a call of a function outside the program (WorksOver), of a
// sealed recursion of the program (sealcall.go) or through a sealed
// function value (sealdyn.go). They are its slice arguments, passed as
// they are, as an interface (sort.Slice(x, less)) or converted to a named
// slice type (sort.Sort(byKey(x))). followed says which calls the model
// runs itself: builtins, the program's functions but sealed ones.
func WorkedSlices(call *ssa.Call, followed func(*ssa.Call) bool) []ssa.Value {
	if f := call.Call.StaticCallee(); followed(call) || f != nil && !WorksOver(f) {
		return nil
	}
	var out []ssa.Value
	for _, arg := range call.Call.Args {
		if mi, ok := arg.(*ssa.MakeInterface); ok {
			arg = mi.X
		}
		if ct, ok := arg.(*ssa.ChangeType); ok {
			arg = ct.X // byKey(x): the same slice
		}
		if _, ok := arg.Type().Underlying().(*types.Slice); ok {
			out = append(out, arg)
		}
	}
	return out
}

// seededSource reports whether a call of math/rand/v2's New is given a
// source the interpreter runs (NewPCG or NewChaCha8, called there); true
// for every other function of the package. A generator over a source of
// the program's own, or one passed in from elsewhere, draws random numbers
// to the model.
func seededSource(cc *ssa.CallCommon) bool {
	f := cc.StaticCallee()
	if f == nil || f.Signature.Recv() != nil || f.Name() != "New" || len(cc.Args) != 1 {
		return true
	}
	v := cc.Args[0]
	if mi, ok := v.(*ssa.MakeInterface); ok {
		v = mi.X
	}
	call, ok := v.(*ssa.Call)
	if !ok {
		return false
	}
	src := call.Common().StaticCallee()
	return src != nil && src.Pkg == f.Pkg && (src.Name() == "NewPCG" || src.Name() == "NewChaCha8")
}

// escapedGenerator taints the seeded generators that instr lets escape
// where the model cannot follow their calls: into an interface value (a
// draw or a Shuffle through an interface of the program's), a method value,
// a closure's captured variables (a callback of sort.Slice, which the
// model does not run, may draw), or a copy of the generator's value (a
// PCG saved and restored: the model holds the generator itself). Their
// draws are random numbers then, as every draw was before the model ran
// seeded generators. It reports whether a taint grew.
func (a *analysis) escapedGenerator(instr ssa.Instruction) bool {
	var vals []ssa.Value
	switch v := instr.(type) {
	case *ssa.MakeInterface:
		if !sourceOfNew(v) {
			vals = []ssa.Value{v.X}
		}
	case *ssa.MakeClosure:
		vals = v.Bindings
	case *ssa.UnOp:
		if v.Op == token.MUL && isGenerator(v.Type()) {
			vals = []ssa.Value{v.X}
		}
	}
	grew := false
	for _, x := range vals {
		var locs []loc
		switch t := x.Type().Underlying().(type) {
		case *types.Pointer:
			if isGenerator(t.Elem()) {
				locs = slices.Collect(maps.Keys(a.pts[x]))
			} else if p, ok := t.Elem().Underlying().(*types.Pointer); ok && isGenerator(p.Elem()) {
				for l := range a.pts[x] { // a captured variable holding a generator
					for _, r := range a.related(l) {
						locs = append(locs, slices.Collect(maps.Keys(a.contents[r]))...)
					}
				}
			}
		}
		why := "random numbers (a generator that escapes into an interface, a function value or a copy at " + a.where(instr.Pos()) + ")"
		for _, l := range locs {
			if a.setTaintLoc(l, why) {
				grew = true
			}
		}
	}
	return grew
}

// sourceOfNew reports whether mi is only rand.New's source, as in
// rand.New(rand.NewPCG(seed, i)): the model runs the generator over it.
func sourceOfNew(mi *ssa.MakeInterface) bool {
	refs := mi.Referrers()
	if refs == nil || len(*refs) != 1 {
		return false
	}
	call, ok := (*refs)[0].(*ssa.Call)
	if !ok {
		return false
	}
	f := call.Call.StaticCallee()
	return f != nil && f.Pkg != nil && f.Pkg.Pkg.Path() == "math/rand/v2" && f.Name() == "New"
}

// isGenerator reports whether t is math/rand/v2's Rand, PCG or ChaCha8.
func isGenerator(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() == nil || n.Obj().Pkg().Path() != "math/rand/v2" {
		return false
	}
	switch n.Obj().Name() {
	case "Rand", "PCG", "ChaCha8":
		return true
	}
	return false
}
