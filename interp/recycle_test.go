package interp

import (
	"reflect"
	"runtime"
	"testing"

	"github.com/predict-tools/predict/trace"
)

// TestRecycleSafe runs every test program three ways: recycling released
// messages and requests, never recycling them (the reference), and
// poisoning them instead of reusing them. If anything read an object after
// its release, the result or the trace would differ from the reference
// (or the run would crash).
func TestRecycleSafe(t *testing.T) {
	dirs, m := testPrograms(t)
	pkgs := []string{"./interp/testdata/pingpong"}
	for _, d := range dirs {
		pkgs = append(pkgs, "./testprogs/"+d)
	}
	for _, pkg := range pkgs {
		t.Run(pkg, func(t *testing.T) {
			p := prepare(t, pkg)
			run := func(mode int) (*Result, []trace.Event) {
				recycling = mode
				defer func() { recycling = recycleOn }()
				var events []trace.Event
				r, err := p.Run(Config{NP: 5, Machine: m, Trace: func(e trace.Event) { events = append(events, e) }})
				if err != nil {
					t.Fatal(err)
				}
				return r, events
			}
			r0, e0 := run(recycleOff)
			for _, mode := range []int{recycleOn, recyclePoison} {
				r, e := run(mode)
				if !reflect.DeepEqual(r0, r) {
					t.Errorf("mode %d: results differ from a run without recycling:\n%+v\n%+v", mode, r0, r)
				}
				if !reflect.DeepEqual(e0, e) {
					t.Errorf("mode %d: traces differ from a run without recycling (%d and %d events)", mode, len(e0), len(e))
				}
			}
		})
	}
}

// TestNoAllocPerMessage: blocking point-to-point traffic reuses its
// messages and requests, so 2000 more round trips of the ping-pong
// allocate (almost) nothing more.
func TestNoAllocPerMessage(t *testing.T) {
	p := prepare(t, "./interp/testdata/pingpong")
	m := handMachine(t)
	allocs := func(reps string) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := p.Run(Config{NP: 2, Machine: m, Args: []string{"-reps", reps}}); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		return after.Mallocs - before.Mallocs
	}
	allocs("10") // warm up lazily built state
	few, many := allocs("10"), allocs("2010")
	if extra := int64(many) - int64(few); extra > 100 {
		t.Errorf("2000 more round trips (8000 events) allocate %d more objects", extra)
	}
}

// TestEventCount pins what Result.Events counts: each send, each receive
// when it is matched, each rank's call of a collective (not the messages
// inside it, which Result.Messages counts).
func TestEventCount(t *testing.T) {
	p := prepare(t, "./interp/testdata/pingpong")
	m := handMachine(t)
	cases := []struct {
		np           int
		args         []string
		events, msgs int64
		what         string
	}{
		{2, []string{"-reps", "3"}, 12, 6, "3 round trips: 6 sends, 6 receives"},
		{8, []string{"-part", "ring"}, 16, 8, "a ring of 8 messages"},
		{4, []string{"-part", "iring", "-reps", "5"}, 40, 20, "5 nonblocking rings of 4"},
		// A Bcast at np=8: one event per rank. (Messages counts np per
		// round of a collective's schedule, 24 here, not the 7 messages
		// of its binomial tree: not checked.)
		{8, []string{"-part", "bcast"}, 8, -1, "a Bcast at np=8"},
	}
	for _, c := range cases {
		r, err := p.Run(Config{NP: c.np, Machine: m, Args: c.args})
		if err != nil {
			t.Fatal(err)
		}
		if r.Events != c.events || c.msgs >= 0 && r.Messages != c.msgs {
			t.Errorf("%s: %d events, %d messages; want %d, %d", c.what, r.Events, r.Messages, c.events, c.msgs)
		}
	}
}
