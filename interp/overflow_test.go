package interp

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/profile"
	"github.com/predict-tools/predict/trace"
)

// overflowSetup loads interp/testdata/overflow, its machine file at the
// bounds (G = 1 ms/B, L = o = g = 1 s, cpu_factor 1e6) and a synthetic
// profile in which an iteration of spin's loop costs unit; at(s) is the
// file:line of the program's first line holding s.
func overflowSetup(t *testing.T, unit int64) (p *Program, m *machine.Machine, pf *profile.File, at func(string) string) {
	t.Helper()
	m, err := machine.Load("testdata/overflow/bounds.machine.json")
	if err != nil {
		t.Fatal(err)
	}
	p = prepare(t, "./interp/testdata/overflow")
	pf = spinProfile(t, p, 2, unit)
	src, err := os.ReadFile("testdata/overflow/main.go")
	if err != nil {
		t.Fatal(err)
	}
	at = func(s string) string {
		for i, line := range strings.Split(string(src), "\n") {
			if strings.Contains(line, s) {
				return fmt.Sprintf("interp/testdata/overflow/main.go:%d", i+1)
			}
		}
		t.Fatalf("no line of the program holds %q", s)
		return ""
	}
	return p, m, pf, at
}

// TestClockOverflow: at the machine file's bounds, a message of 10 GB
// (10¹⁰ B × 1 ms/B = 10⁷ s), many messages of 1 MB, a 10 s fragment at
// cpu_factor 1e6, or a loop of 10⁶ iterations of 10 s take the modeled
// time past the picosecond clock (2⁶³−1 ps ≈ 106 days): the run stops
// with an *OverflowError at the line being executed, never a wrapped
// (negative or small) time.
func TestClockOverflow(t *testing.T) {
	const second = int64(trace.Second)
	cases := []struct {
		name string
		unit int64 // an iteration of spin's loop, before cpu_factor
		args []string
		site string // a text of the line the run stops at
		who  string // rank and operation
		rank int
	}{
		// One cost past the limit: the transfer of the message.
		{name: "one message", args: []string{"-bytes", "10000000000"}, site: "c.Recv(buf, 0, 0)", who: "rank 1's Recv", rank: 1},
		// 10⁴ messages of 10³ s each (9223 fit): the clock's sum.
		{name: "many messages", args: []string{"-bytes", "1000000", "-reps", "10000"}, site: "c.Recv(buf, 0, 0)", who: "rank 1's Recv", rank: 1},
		{name: "nonblocking", args: []string{"-part", "isend", "-bytes", "10000000000"}, site: "c.Wait(c.Irecv(buf, 0, 0))", who: "rank 1's Wait", rank: 1},
		{name: "collective", args: []string{"-part", "bcast", "-bytes", "10000000000"}, site: "c.Bcast(buf, 0)", who: "rank 1's Bcast", rank: 1},
		// 10 s × cpu_factor 1e6 = 10⁷ s: the fragment's target time.
		{name: "fragment", unit: 10 * second, args: []string{"-part", "compute"}, site: "for i := 0; i < units; i++", who: "rank 0's compute"},
		// 10⁶ × 10 s measured: the loop's trips × time per iteration.
		{name: "loop", unit: 10 * second, args: []string{"-part", "compute", "-units", "1000000"}, site: "for i := 0; i < units; i++", who: "rank 0's compute"},
		// 10 calls of 10⁶ s each: the clock's sum of compute.
		{name: "compute sum", unit: second, args: []string{"-part", "compute", "-reps", "10"}, site: "for i := 0; i < units; i++", who: "rank 0's compute"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, m, pf, at := overflowSetup(t, max(c.unit, 1))
			if c.unit == 0 {
				// Profiled with these arguments: the count of the
				// profile's run at np=2 passes the clock on this
				// machine too, and counts without its communication.
				pf.Args = c.args
			}
			r, err := p.Run(Config{NP: 4, Machine: m, Profile: pf, Args: c.args})
			var oe *OverflowError
			if !errors.As(err, &oe) {
				t.Fatalf("want an *OverflowError, got %v (result %+v)", err, r)
			}
			want := fmt.Sprintf("%s: the modeled time passes the picosecond clock's limit (≈ 106 days) at np=4: %s costs more than the clock holds", at(c.site), c.who)
			if err.Error() != want || oe.Rank != c.rank || oe.NP != 4 {
				t.Errorf("got  %v (rank %d)\nwant %s", err, oe.Rank, want)
			}
		})
	}
}

// TestClockMonotone is a property of the clocks near the limit: every
// rank's trace events move forward in time (each ends no earlier than it
// starts, and no earlier than the one before ends), the predicted time
// grows with the number of messages, and once a run passes the limit
// every longer one does too: no count gives a wrapped, smaller time.
func TestClockMonotone(t *testing.T) {
	p, m, pf, _ := overflowSetup(t, 1)
	var last trace.Time
	overflowed := false
	for _, reps := range []int{1, 1000, 4000, 8000, 9000, 9200, 9300, 10000, 20000} {
		ends := map[int]trace.Time{}
		var bad string
		cfg := Config{NP: 2, Machine: m, Profile: pf, Args: []string{"-bytes", "1000000", "-reps", fmt.Sprint(reps)},
			Trace: func(e trace.Event) {
				switch {
				case bad != "":
				case e.Enter < 0 || e.Exit < e.Enter:
					bad = fmt.Sprintf("rank %d event %d: enter %d, exit %d", e.Rank, e.Seq, e.Enter, e.Exit)
				case e.Enter < ends[e.Rank]:
					bad = fmt.Sprintf("rank %d event %d enters at %d, before its previous event ends (%d)", e.Rank, e.Seq, e.Enter, ends[e.Rank])
				}
				ends[e.Rank] = max(ends[e.Rank], e.Exit)
			}}
		r, err := p.Run(cfg)
		if bad != "" {
			t.Fatalf("reps %d: %s", reps, bad)
		}
		var oe *OverflowError
		switch {
		case errors.As(err, &oe):
			overflowed = true
			continue
		case err != nil:
			t.Fatalf("reps %d: %v", reps, err)
		case overflowed:
			t.Fatalf("reps %d: predicted %v after a shorter run passed the limit", reps, r.Time)
		case r.Time <= last:
			t.Fatalf("reps %d: predicted %d ps, not more than %d ps with fewer messages", reps, r.Time, last)
		}
		last = r.Time
	}
	if !overflowed {
		t.Fatalf("no run passed the limit; the longest predicted %v", last)
	}
}
