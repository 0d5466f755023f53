package interp

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestProgramChecks runs interp/testdata/checks, which tests its
// parameters against np: where the real run ends (go run
// ./interp/testdata/checks -np 3 …), the modeled run must end the same
// way, with the program's message, rank and site; elsewhere it predicts.
func TestProgramChecks(t *testing.T) {
	p := prepare(t, "./interp/testdata/checks")
	const file = "interp/testdata/checks/main.go"
	src, err := os.ReadFile("testdata/checks/main.go")
	if err != nil {
		t.Fatal(err)
	}
	// at is file:line of the first line of the program that holds s.
	at := func(s string) string {
		for i, line := range strings.Split(string(src), "\n") {
			if strings.Contains(line, s) {
				return fmt.Sprintf("%s:%d", file, i+1)
			}
		}
		t.Fatalf("no line of %s holds %q", file, s)
		return ""
	}
	resultCheck := at("sum[0] != float64") + ":"
	cases := []struct {
		np   int
		args []string
		want *AbortError // nil: the run predicts
	}{
		{4, nil, nil},
		{8, nil, nil},
		{3, nil, &AbortError{Rank: 0, Site: at("c.Abort(fmt.Errorf(\"%s\", msg))"), How: "Comm.Abort", Message: "n=4096 not divisible by np=3", Modeled: true}},
		{3, []string{"-n", "3000"}, nil},
		// A check in a helper, of a parameter its caller computes from
		// np and the arguments.
		{4, []string{"-min", "2048"}, &AbortError{Rank: 0, Site: at("c.Abort(fmt.Errorf(format, args...))"), How: "Comm.Abort",
			Message: "np=4 leaves 1024 points per rank, fewer than -min 2048", Modeled: true}},
		{2, []string{"-min", "2048"}, nil},
		{3, []string{"-how", "panic"}, &AbortError{Rank: 0, Site: at("panic(msg)"), How: "panic", Message: "n=4096 not divisible by np=3", Modeled: true}},
		{3, []string{"-how", "fatal"}, &AbortError{Rank: 0, Site: at("log.Fatal(msg)"), How: "log.Fatal", Message: "n=4096 not divisible by np=3", Modeled: true}},
		{3, []string{"-how", "exit"}, &AbortError{Rank: 0, Site: at("os.Exit(3)"), How: "os.Exit", Message: "3", Modeled: true}},
		// Before commlib.Main: the driver.
		{2, []string{"-iters", "-1"}, &AbortError{Rank: -1, Site: at("log.Fatalf("), How: "log.Fatalf", Message: "-iters -1: want at least 0", Modeled: true}},
		// A message that shows data the model does not compute.
		{2, []string{"-iters", "5", "-max", "4"}, &AbortError{Rank: 0, Site: at("(sum so far"), How: "Comm.Abort", Message: unmodeledMessage}},
		{2, []string{"-iters", "5", "-max", "5"}, nil},
	}
	for _, c := range cases {
		name := fmt.Sprintf("np %d %s", c.np, strings.Join(c.args, " "))
		r, err := p.Run(Config{NP: c.np, Args: c.args})
		if c.want == nil {
			if err != nil {
				t.Errorf("%s: %v, want a prediction", name, err)
				continue
			}
			// The verification of the result is a check on data: it is
			// assumed to pass, and the result says so.
			var noted bool
			for _, d := range r.Decisions {
				noted = noted || strings.HasPrefix(d.Pos, resultCheck) && strings.Contains(d.Source, "assumed to pass")
			}
			if !noted {
				t.Errorf("%s: the check on data at %s is not among the decisions: %+v", name, resultCheck, r.Decisions)
			}
			continue
		}
		var ae *AbortError
		if !errors.As(err, &ae) {
			t.Errorf("%s: got %v, want %v", name, err, c.want)
			continue
		}
		if *ae != *c.want {
			t.Errorf("%s: got %+v, want %+v", name, *ae, *c.want)
		}
	}
}

// TestAbortErrorText checks that the error reads as commlib's does.
func TestAbortErrorText(t *testing.T) {
	for _, c := range []struct {
		e    AbortError
		want string
	}{
		{AbortError{Rank: 1, Site: "main.go:9", How: "Comm.Abort", Message: "bad n"}, "rank 1 aborted the run at main.go:9: bad n"},
		{AbortError{Rank: 0, Thread: 3, Site: "main.go:9", How: "panic", Message: "x"}, "rank 0 thread 2 panicked at main.go:9: x"},
		{AbortError{Rank: 2, Site: "main.go:9", How: "os.Exit", Message: "3"}, "rank 2 exited at main.go:9 with os.Exit(3)"},
		{AbortError{Rank: -1, Site: "main.go:9", How: "log.Fatalf", Message: "m"}, "the program, before commlib.Main, ended the run at main.go:9 with log.Fatalf: m"},
	} {
		if got := c.e.Error(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}
