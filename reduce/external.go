// This file defines which functions outside the program the interpreter
// executes: the result of any other is data the model does not compute.

package reduce

import (
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
	// seeded pseudo-random generators (interp/stdlib.go): the numbers of
	// a generator made from a seed are computed, call for call; the
	// package-level functions (the global, randomly seeded source), Shuffle
	// and Read stay random numbers
	"math/rand/v2.New": true, "math/rand/v2.NewPCG": true, "math/rand/v2.NewChaCha8": true,
	"(*math/rand/v2.Rand).Int64": true, "(*math/rand/v2.Rand).Uint32": true, "(*math/rand/v2.Rand).Uint64": true,
	"(*math/rand/v2.Rand).Int32": true, "(*math/rand/v2.Rand).Int": true, "(*math/rand/v2.Rand).Uint": true,
	"(*math/rand/v2.Rand).Int64N": true, "(*math/rand/v2.Rand).Uint64N": true, "(*math/rand/v2.Rand).Int32N": true,
	"(*math/rand/v2.Rand).Uint32N": true, "(*math/rand/v2.Rand).IntN": true, "(*math/rand/v2.Rand).UintN": true,
	"(*math/rand/v2.Rand).Float64": true, "(*math/rand/v2.Rand).Float32": true, "(*math/rand/v2.Rand).NormFloat64": true,
	"(*math/rand/v2.Rand).ExpFloat64": true, "(*math/rand/v2.Rand).Perm": true,
	"(*math/rand/v2.PCG).Uint64": true, "(*math/rand/v2.PCG).Seed": true, "(*math/rand/v2.ChaCha8).Uint64": true,
	"math/rand.New": true, "math/rand.NewSource": true,
	"(*math/rand.Rand).Int63": true, "(*math/rand.Rand).Uint32": true, "(*math/rand.Rand).Uint64": true,
	"(*math/rand.Rand).Int31": true, "(*math/rand.Rand).Int": true, "(*math/rand.Rand).Int63n": true,
	"(*math/rand.Rand).Int31n": true, "(*math/rand.Rand).Intn": true, "(*math/rand.Rand).Float64": true,
	"(*math/rand.Rand).Float32": true, "(*math/rand.Rand).NormFloat64": true, "(*math/rand.Rand).ExpFloat64": true,
	"(*math/rand.Rand).Perm": true, "(*math/rand.Rand).Seed": true,
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

// seededSource reports whether a call of math/rand's or math/rand/v2's New
// is given a source the interpreter runs (NewPCG, NewChaCha8, NewSource,
// called there); true for every other function of the packages. A
// generator over a source of the program's own, or one passed in from
// elsewhere, draws random numbers to the model.
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
	return src != nil && src.Pkg != nil && src.Pkg == f.Pkg && (src.Name() == "NewPCG" || src.Name() == "NewChaCha8" || src.Name() == "NewSource")
}
