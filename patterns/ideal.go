// This file defines the check that an ideal-network trace is of the same
// run as the trace it is compared with.

package patterns

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/predict-tools/predict/trace"
)

// SameRun returns an error when the trace whose header is ideal cannot be
// the ideal-network run of the trace whose header is h (Options.Ideal):
// another program, another np or other program arguments. A different
// problem gives a different span and useful time, so the serialization and
// transfer factors built from the two would be meaningless.
//
// The program is compared by the main package's import path when both
// headers record it (Header.Package); otherwise by the last element of
// Header.Program, the one name a real run (its executable) and a modeled
// one (the package pattern given to predict) share. When neither header
// names its program well enough to compare (a modeled trace of "."), the
// check is left out and caveat says so. Arguments are compared without
// commlib's own flags (-np, -trace, -eager: the np is compared by itself,
// the trace file always differs, the eager limit belongs to the network),
// with "--x" read as "-x" and "-x=v" as "-x v". The message names the
// ideal trace's run first and is phrased for the command line: TRACE is
// the trace analyzed.
func SameRun(h, ideal trace.Header) (caveat string, err error) {
	same, known := samePrograms(h, ideal)
	args, idealArgs := programArgs(h.Args), programArgs(ideal.Args)
	if !same || h.NP != ideal.NP {
		return "", fmt.Errorf("a trace of %s at np=%d, but TRACE is of %s at np=%d",
			programOf(ideal), ideal.NP, programOf(h), h.NP)
	}
	if !slices.Equal(args, idealArgs) {
		return "", fmt.Errorf("a trace of %s at np=%d with %s, but TRACE is with %s: "+
			"other arguments make another problem", programOf(ideal), ideal.NP, argsText(idealArgs), argsText(args))
	}
	if !known {
		caveat = fmt.Sprintf("cannot check that the two traces are of the same program: they record %q and %q",
			ideal.Program, h.Program)
	}
	return caveat, nil
}

// samePrograms compares the programs of two headers; known is false when
// they do not name them well enough to tell.
func samePrograms(a, b trace.Header) (same, known bool) {
	if a.Package != "" && b.Package != "" {
		return a.Package == b.Package, true
	}
	na, nb := programName(a), programName(b)
	if na == "" || nb == "" {
		return true, false
	}
	return na == nb, true
}

// programName is the last element of the header's package or program: the
// name of the executable of a real run ("/tmp/go-build1/b001/exe/stencil"),
// of the package of a modeled one ("./testprogs/stencil",
// "example.com/app"); "" when it says nothing (".", "..", absent).
func programName(h trace.Header) string {
	p := h.Package
	if p == "" {
		p = strings.ReplaceAll(h.Program, `\`, "/")
	}
	p = strings.TrimSuffix(strings.TrimRight(p, "/"), ".exe")
	name := path.Base(p)
	if p == "" || name == "." || name == ".." || name == "/" {
		return ""
	}
	return name
}

// programOf names the program of a header in messages.
func programOf(h trace.Header) string {
	switch {
	case h.Package != "":
		return h.Package
	case h.Program != "":
		return h.Program
	}
	return "an unnamed program"
}

// commlibFlags are the flags every program that calls commlib.Main
// accepts, all with a value.
var commlibFlags = map[string]bool{"np": true, "trace": true, "eager": true}

// programArgs returns the program's own arguments of a header's Args:
// without commlib's flags and their values, "--x" as "-x", "-x=v" as
// "-x", "v". After "--" every argument is the program's, as written.
func programArgs(args []string) []string {
	out := []string{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			out = append(out, a)
			continue
		}
		name := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		value, hasValue := "", false
		if k, v, ok := strings.Cut(name, "="); ok {
			name, value, hasValue = k, v, true
		}
		if commlibFlags[name] {
			if !hasValue {
				i++ // the flag's value is the next argument
			}
			continue
		}
		out = append(out, "-"+name)
		if hasValue {
			out = append(out, value)
		}
	}
	return out
}

// argsText prints program arguments for a message.
func argsText(args []string) string {
	if len(args) == 0 {
		return "no program arguments"
	}
	return "arguments " + strings.Join(args, " ")
}
