package interp

import (
	"strings"
	"testing"
)

// TestFlagsDefinedInMain checks that a flag defined in main takes its value
// from the arguments when commlib.Main parses them, as in the real run: n
// barriers cost n times one, and an unknown flag is the program's error.
func TestFlagsDefinedInMain(t *testing.T) {
	p := prepare(t, "./interp/testdata/flagsinmain")
	m := handMachine(t)
	timeOf := func(args ...string) int64 {
		t.Helper()
		r, err := p.Run(Config{NP: 4, Machine: m, Args: args})
		if err != nil {
			t.Fatalf("args %q: %v", args, err)
		}
		return int64(r.Time)
	}
	one, three := timeOf(), timeOf("-iters", "3")
	if one <= 0 || three != 3*one {
		t.Errorf("1 barrier: %d ps, -iters 3: %d ps; want 3 × the first", one, three)
	}
	_, err := p.Run(Config{NP: 2, Machine: m, Args: []string{"-bogus"}})
	main := markPos(t, "interp/testdata/flagsinmain/main.go", "main")
	if err == nil || !strings.Contains(err.Error(), "flag provided but not defined: -bogus") || !strings.Contains(err.Error(), main) {
		t.Errorf("unknown flag: got %v, want the flag package's error at %s (the commlib.Main that parses them)", err, main)
	}
}

// TestFlagKinds checks every plain flag constructor of package flag, in
// both forms (flag.Uint64 and flag.Uint64Var, one Var into a struct's
// field): the program runs as many barriers as its flags add up to, 8 by
// default and 17 with the arguments below, as its real run does.
func TestFlagKinds(t *testing.T) {
	p := prepare(t, "./interp/testdata/flagkinds")
	m := handMachine(t)
	timeOf := func(args ...string) int64 {
		t.Helper()
		r, err := p.Run(Config{NP: 2, Machine: m, Args: args})
		if err != nil {
			t.Fatalf("args %q: %v", args, err)
		}
		return int64(r.Time)
	}
	one := timeOf("-seed", "0", "-u", "0", "-u64", "0", "-i64", "0", "-f64", "0", "-dur", "0s", "-name", "", "-reps", "0", "-extra", "1", "-want", "1")
	if one <= 0 {
		t.Fatalf("1 barrier: %d ps", one)
	}
	if got := timeOf(); got != 8*one {
		t.Errorf("defaults: %d ps, want 8 barriers (%d ps)", got, 8*one)
	}
	if got := timeOf("-seed", "3", "-u", "2", "-reps", "4", "-on", "-want", "17", "a", "b"); got != 17*one {
		t.Errorf("-seed 3 -u 2 -reps 4 -on a b: %d ps, want 17 barriers (%d ps)", got, 17*one)
	}
	if got := timeOf("-seed", "18446744073709551615", "-u64", "0", "-seed", "1", "-dur", "3ms", "-f64", "2.5", "-want", "10"); got != 10*one {
		t.Errorf("-dur 3ms -f64 2.5: %d ps, want 10 barriers (%d ps)", got, 10*one)
	}
}

// TestFlagFuncRefused checks that an argument for a flag whose value the
// program's own code handles (flag.Func, which the model does not
// follow) stops the prediction with an error naming the function and its
// call, rather than leaving the program's variable at its default.
func TestFlagFuncRefused(t *testing.T) {
	p := prepare(t, "./interp/testdata/flagfunc")
	_, err := p.Run(Config{NP: 2, Machine: handMachine(t), Args: []string{"-level", "3"}})
	call := markPos(t, "interp/testdata/flagfunc/main.go", "func")
	if err == nil || !strings.Contains(err.Error(), "flag provided but not defined: -level") || !strings.Contains(err.Error(), "flags the model does not follow: flag.Func at "+call) {
		t.Errorf("flag.Func: got %v, want an error naming flag.Func at %s", err, call)
	}
}
