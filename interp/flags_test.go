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
	if err == nil || !strings.Contains(err.Error(), "flag provided but not defined: -bogus") || !strings.Contains(err.Error(), "main.go:14") {
		t.Errorf("unknown flag: got %v, want the flag package's error at main.go:14 (the commlib.Main that parses them)", err)
	}
}
