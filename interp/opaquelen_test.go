// This file defines the test of communication arguments the model does
// not compute (testdata/opaquelen): never a silent zero.

package interp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/predict-tools/predict/trace"
)

// TestOpaqueLengthReported checks that a message whose length depends on
// data the model does not compute (a buffer made or sliced to a random
// length, or to a length received in a message) is reported at its call
// site: the model has no length for it, and the run says that it takes
// zero, naming the random draw. The Bcasts of computed lengths keep their
// bytes and are not reported.
func TestOpaqueLengthReported(t *testing.T) {
	p := prepare(t, "./interp/testdata/opaquelen")
	var events []trace.Event
	r, err := p.Run(Config{NP: 4, Machine: handMachine(t), Trace: func(e trace.Event) { events = append(events, e) }})
	if err != nil {
		t.Fatal(err)
	}
	const file = "interp/testdata/opaquelen/main.go"
	bytes := map[int]int64{} // line → bytes of rank 1's Bcast there
	for _, e := range events {
		if e.Op == "Bcast" && e.Rank == 1 && e.Kind == trace.KindOp {
			var line, col int
			if _, err := fmt.Sscanf(strings.TrimPrefix(e.Site, file+":"), "%d:%d", &line, &col); err != nil {
				t.Fatalf("Bcast at %q: %v", e.Site, err)
			}
			bytes[line] = e.Bytes
		}
	}
	noted := func(line int) string {
		for _, a := range r.Assumptions {
			if strings.HasPrefix(a, fmt.Sprintf("%s:%d:", file, line)) {
				return a
			}
		}
		return ""
	}
	for _, c := range []struct {
		line   int
		bytes  int64
		opaque bool
	}{
		{18, 16 * 8, false}, // make([]float64, 16)
		{23, 0, true},       // make([]float64, batch)
		{27, 0, true},       // make([]float64, 16)[:batch]
		{30, 8, false},      // []int{batch}
		{33, 0, true},       // make([]float64, n[0]), n received
	} {
		if got, ok := bytes[c.line]; !ok || got != c.bytes {
			t.Errorf("%s:%d: Bcast of %d bytes (seen: %v), want %d", file, c.line, got, ok, c.bytes)
		}
		a := noted(c.line)
		want := "the length of Comm.Bcast's buf depends on random numbers ((*math/rand.Rand).Intn at " + file + ":20), which the model does not compute: taken as zero"
		switch {
		case c.opaque && !strings.HasSuffix(a, want):
			t.Errorf("%s:%d: the opaque length is not reported: assumption %q, want one ending %q (all: %q)", file, c.line, a, want, r.Assumptions)
		case !c.opaque && a != "":
			t.Errorf("%s:%d: a computed length is reported: %q", file, c.line, a)
		}
	}
}
