// This file defines the program's command-line flags as the model sees
// them: the functions of package flag, with the flag package's own
// parsing of the run's arguments.

package interp

import (
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"golang.org/x/tools/go/ssa"
)

// flagKinds are the flag constructors of package flag that take a plain
// value, by the name of their value's type (flag.Int64 and
// flag.Int64Var are both "Int64").
var flagKinds = map[string]bool{
	"String": true, "Int": true, "Int64": true, "Uint": true, "Uint64": true,
	"Bool": true, "Float64": true, "Duration": true,
}

// flagFunc returns the interpreter's version of a function of package
// flag (or a method of its types), or nil for a function of another
// package. A function of the flag package the model cannot follow (one
// that hands the flag's value to the program's own code: Func, BoolFunc,
// TextVar, Var; or that works on a FlagSet or a Flag) stops the run with
// an error at its call, rather than giving the program a zero value.
func flagFunc(name string) extFunc {
	short, ok := strings.CutPrefix(name, "flag.")
	if !ok {
		if strings.Contains(name, "flag.FlagSet") || strings.Contains(name, "flag.Flag)") {
			return unsupportedFlag(name, "the model knows the command line's flags only (flag.String, flag.Int, ... and flag.Parse), not a flag.FlagSet of the program's")
		}
		return nil
	}
	if !flagFollowed(short) {
		return unsupportedFlag(name, "the model follows flags defined with flag.String, flag.Int, flag.Int64, flag.Uint, flag.Uint64, flag.Bool, flag.Float64, flag.Duration or their Var forms, and flag.Parse, Parsed, Arg, Args, NArg, Set, PrintDefaults; define the flag so and convert its value after flag.Parse")
	}
	switch {
	case flagKinds[short]:
		return func(p *proc, fr *frame, a []V, dst int, site string) ctl {
			return set(fr, dst, p.w.flags.define(short, a))
		}
	case strings.HasSuffix(short, "Var") && flagKinds[strings.TrimSuffix(short, "Var")]:
		kind := strings.TrimSuffix(short, "Var")
		return func(p *proc, fr *frame, a []V, dst int, site string) ctl {
			if err := p.w.flags.defineVar(kind, a); err != nil {
				return p.fail(site, name+": "+err.Error())
			}
			return cNext
		}
	}
	switch short {
	case "Parse":
		return func(p *proc, fr *frame, a []V, dst int, site string) ctl {
			if err := p.w.flags.parse(); err != nil {
				return p.fail(site, err.Error())
			}
			return cNext
		}
	case "Parsed":
		return func(p *proc, fr *frame, a []V, dst int, site string) ctl {
			return set(fr, dst, boolV(p.w.flags.parsed))
		}
	case "NArg":
		return func(p *proc, fr *frame, a []V, dst int, site string) ctl {
			return set(fr, dst, intV(int64(len(p.w.flags.rest))))
		}
	case "Arg":
		return func(p *proc, fr *frame, a []V, dst int, site string) ctl {
			i := int(a[0].I)
			s := ""
			if i >= 0 && i < len(p.w.flags.rest) {
				s = p.w.flags.rest[i]
			}
			return set(fr, dst, V{R: s})
		}
	case "Args":
		return func(p *proc, fr *frame, a []V, dst int, site string) ctl {
			rest := p.w.flags.rest
			vals := make([]V, len(rest))
			for i, s := range rest {
				vals[i] = V{R: s}
			}
			return set(fr, dst, V{R: &sliceV{a: &array{n: len(vals), elems: vals}, len: len(vals), cap: len(vals)}})
		}
	case "Set":
		return func(p *proc, fr *frame, a []V, dst int, site string) ctl {
			fname, _ := a[0].R.(string)
			val, _ := a[1].R.(string)
			var e V
			if err := p.w.flags.set(fname, val); err != nil {
				e = V{R: err}
			}
			return set(fr, dst, e)
		}
	case "PrintDefaults":
		// Output is not part of the prediction.
		return func(p *proc, fr *frame, a []V, dst int, site string) ctl { return cNext }
	}
	return nil
}

// flagFollowed reports whether the model follows the function of package
// flag with this name (short: without "flag.").
func flagFollowed(short string) bool {
	switch short {
	case "Parse", "Parsed", "NArg", "Arg", "Args", "Set", "PrintDefaults":
		return true
	}
	return flagKinds[short] || strings.HasSuffix(short, "Var") && flagKinds[strings.TrimSuffix(short, "Var")]
}

// unfollowedFlagCalls returns the static calls of the program's functions
// to functions of package flag the model does not follow, as "flag.Func
// at FILE:LINE", in source order.
func (prog *Program) unfollowedFlagCalls() []string {
	var out []string
	seen := map[*ssa.Function]bool{}
	for _, fn := range prog.SSA {
		if fn == nil || seen[fn] {
			continue
		}
		seen[fn] = true
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				call, ok := instr.(ssa.CallInstruction)
				if !ok {
					continue
				}
				callee := call.Common().StaticCallee()
				if callee == nil || callee.Pkg == nil || callee.Pkg.Pkg.Path() != "flag" {
					continue
				}
				name := callee.String()
				if short, ok := strings.CutPrefix(name, "flag."); ok && flagFollowed(short) {
					continue
				}
				out = append(out, name+" at "+prog.Loaded.PosString(call.Pos()))
			}
		}
	}
	sort.Strings(out)
	return out
}

// unsupportedFlag is a function of package flag the model cannot follow:
// its call stops the run with an error naming it and where it is called.
func unsupportedFlag(name, why string) extFunc {
	return func(p *proc, fr *frame, a []V, dst int, site string) ctl {
		return p.fail(site, fmt.Sprintf("%s is not modeled: %s", name, why))
	}
}

// flagSet gives the program's flags the values of its arguments, with
// the flag package's own parsing, when the program parses them: at its
// first flag.Parse, or in commlib.Main if it has not parsed them yet, as
// the real run does. A flag defined in main before that is known; one
// read before it holds its default.
type flagSet struct {
	fs     *flag.FlagSet
	args   []string
	parsed bool
	boxes  []func()
	rest   []string
	// setters give each flag its value, by name (flag.Set).
	setters map[string]func()
	// unfollowed are the calls of the program to flag functions the
	// model does not follow ("flag.Func at main.go:16"): the reduction
	// may drop them (they return nothing it needs), so an argument for
	// such a flag fails at parse, and the error names them.
	unfollowed []string
}

func newFlagSet(args []string, unfollowed []string) *flagSet {
	fs := flag.NewFlagSet("program", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	// commlib's own flags.
	fs.Int("np", 0, "")
	fs.String("trace", "", "")
	fs.Int("eager", 0, "")
	return &flagSet{fs: fs, args: args, setters: map[string]func(){}, unfollowed: unfollowed}
}

// define handles flag.String, flag.Int, ...: a variable holding the
// default until the arguments are parsed.
func (f *flagSet) define(kind string, a []V) V {
	b := &box{}
	f.bind(kind, func(v V) { b.v = v }, a[0], a[1])
	return V{R: b}
}

// defineVar handles flag.StringVar, ...: the variable is the first
// argument, a pointer to a variable, a field or an element.
func (f *flagSet) defineVar(kind string, a []V) error {
	switch a[0].R.(type) {
	case *box, *ptr:
	default:
		return fmt.Errorf("the model does not know the variable the flag is stored in (a %T)", a[0].R)
	}
	dst := a[0]
	f.bind(kind, func(v V) { storeTo(dst, v) }, a[1], a[2])
	return nil
}

// bind defines the flag named nameV of the given kind with default def:
// store receives the default now and the parsed value at parse.
func (f *flagSet) bind(kind string, store func(V), nameV, def V) {
	name, _ := nameV.R.(string)
	if f.fs.Lookup(name) != nil {
		return
	}
	var value func() V
	switch kind {
	case "String":
		s, _ := def.R.(string)
		p := f.fs.String(name, s, "")
		def = V{R: s}
		value = func() V { return V{R: *p} }
	case "Int", "Int64":
		p := f.fs.Int64(name, def.I, "")
		value = func() V { return intV(*p) }
	case "Uint", "Uint64":
		p := f.fs.Uint64(name, uint64(def.I), "")
		value = func() V { return intV(int64(*p)) }
	case "Bool":
		p := f.fs.Bool(name, def.B(), "")
		value = func() V { return boolV(*p) }
	case "Float64":
		p := f.fs.Float64(name, def.F(), "")
		value = func() V { return floatV(*p) }
	case "Duration":
		p := f.fs.Duration(name, time.Duration(def.I), "")
		value = func() V { return intV(int64(*p)) }
	default: // flagKinds lists the kinds handled here
		return
	}
	store(def)
	set := func() { store(value()) }
	f.boxes = append(f.boxes, set)
	f.setters[name] = set
}

// parse parses the arguments the first time it is called.
func (f *flagSet) parse() error {
	if f.parsed {
		return nil
	}
	f.parsed = true
	if err := f.fs.Parse(f.args); err != nil {
		if len(f.unfollowed) > 0 {
			return fmt.Errorf("program arguments %q: %v (the program defines flags the model does not follow: %s)", strings.Join(f.args, " "), err, strings.Join(f.unfollowed, ", "))
		}
		return fmt.Errorf("program arguments %q: %v", strings.Join(f.args, " "), err)
	}
	for _, set := range f.boxes {
		set()
	}
	f.rest = f.fs.Args()
	return nil
}

// set handles flag.Set: the flag takes the value as if it were given.
func (f *flagSet) set(name, value string) error {
	if err := f.fs.Set(name, value); err != nil {
		return err
	}
	if s := f.setters[name]; s != nil {
		s()
	}
	return nil
}
