package patterns_test

import (
	"testing"

	"github.com/predict-tools/predict/patterns"
	"github.com/predict-tools/predict/trace"
)

// The headers real runs (commlib: the executable and the command line) and
// predictions (interp: the package pattern and the program's arguments)
// write, as in testprogs' traces.
var (
	realStencil4 = trace.Header{Source: "commlib", Program: "/tmp/go-build2931/b001/exe/stencil", NP: 4,
		Args: []string{"-np", "4", "-trace", "/tmp/s.jsonl", "-class", "W"}, Clock: "monotonic"}
	modeledStencil4 = trace.Header{Source: "interp", Program: "./testprogs/stencil", NP: 4,
		Args: []string{"-class", "W"}, Clock: "virtual"}
)

// SameRun accepts the ideal-network trace of the same program, np and
// arguments, however each kind of trace names them, and refuses another
// program, np or problem with both sides named.
func TestSameRun(t *testing.T) {
	with := func(h trace.Header, f func(*trace.Header)) trace.Header {
		h.Args = append([]string(nil), h.Args...)
		f(&h)
		return h
	}
	for _, c := range []struct {
		name        string
		h, ideal    trace.Header
		err, caveat string
	}{
		{name: "real and modeled", h: realStencil4, ideal: modeledStencil4},
		{name: "modeled twice", h: modeledStencil4, ideal: modeledStencil4},
		{name: "commlib flags in any form", h: realStencil4, ideal: with(realStencil4, func(h *trace.Header) {
			h.Args = []string{"--trace=/tmp/ideal.jsonl", "-class=W", "-np=4", "-eager", "0"}
		})},
		{name: "same package, other names", h: with(realStencil4, func(h *trace.Header) { h.Package = "example.com/app" }),
			ideal: with(modeledStencil4, func(h *trace.Header) { h.Program, h.Package = ".", "example.com/app" })},
		{name: "other np", h: realStencil4, ideal: with(modeledStencil4, func(h *trace.Header) { h.NP = 8 }),
			err: "a trace of ./testprogs/stencil at np=8, but TRACE is of /tmp/go-build2931/b001/exe/stencil at np=4"},
		{name: "other program", h: modeledStencil4, ideal: with(modeledStencil4, func(h *trace.Header) { h.Program, h.NP = "example.com/app", 8 }),
			err: "a trace of example.com/app at np=8, but TRACE is of ./testprogs/stencil at np=4"},
		{name: "other package", h: with(modeledStencil4, func(h *trace.Header) { h.Package = "example.com/stencil" }),
			ideal: with(modeledStencil4, func(h *trace.Header) { h.Package = "example.com/app/stencil" }),
			err:   "a trace of example.com/app/stencil at np=4, but TRACE is of example.com/stencil at np=4"},
		{name: "other arguments", h: realStencil4, ideal: with(modeledStencil4, func(h *trace.Header) { h.Args = nil }),
			err: "a trace of ./testprogs/stencil at np=4 with no program arguments, but TRACE is with arguments -class W: other arguments make another problem"},
		{name: "arguments after --", h: with(modeledStencil4, func(h *trace.Header) { h.Args = []string{"--", "-np", "3"} }),
			ideal: with(modeledStencil4, func(h *trace.Header) { h.Args = []string{"--", "-np", "4"} }),
			err:   "a trace of ./testprogs/stencil at np=4 with arguments -- -np 4, but TRACE is with arguments -- -np 3: other arguments make another problem"},
		{name: "unnamed program", h: realStencil4, ideal: with(modeledStencil4, func(h *trace.Header) { h.Program = "." }),
			caveat: `cannot check that the two traces are of the same program: they record "." and "/tmp/go-build2931/b001/exe/stencil"`},
	} {
		caveat, err := patterns.SameRun(c.h, c.ideal)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.err || caveat != c.caveat {
			t.Errorf("%s: error %q, caveat %q; want %q, %q", c.name, got, caveat, c.err, c.caveat)
		}
	}
}
