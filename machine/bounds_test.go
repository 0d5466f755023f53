package machine

import (
	"strings"
	"testing"

	"github.com/predict-tools/predict/trace"
)

// TestBoundsErrors checks every bound of bounds.go: the whole error text
// (file, line, column, field, message) of a machine file that passes it by
// a little, and that the value at the bound is accepted.
func TestBoundsErrors(t *testing.T) {
	for _, c := range []struct {
		old, new string // the change to the base file
		want     string // the whole error
	}{
		// Issue 14: cpu_factor 1e12 gave a wrong time; now it is refused.
		{`"cpu_factor": 1`, `"cpu_factor": 1e12`,
			"test.json:12:17: cpu_factor: 1e+12: compute times × 1e+12 overflow the picosecond clock (max ≈ 106 days) for fragments over 9.22us; want at most 1e+06"},
		{`"cpu_factor": 1`, `"cpu_factor": 2e6`,
			"test.json:12:17: cpu_factor: 2e+06: compute times × 2e+06 overflow the picosecond clock (max ≈ 106 days) for fragments over 4.61s; want at most 1e+06"},
		{`"cpu_factor": 1`, `"cpu_factor": 1e-9`,
			"test.json:12:17: cpu_factor: 1e-09: compute times × 1e-09 round to 0 for fragments under 500us (the clock counts whole picoseconds); want at least 1e-06"},
		{`"cpu_factor": 1`, `"cpu_factor": 5e-324`,
			"test.json:12:17: cpu_factor: 5e-324: compute times × 5e-324 round to 0 for every fragment (the clock counts whole picoseconds); want at least 1e-06"},
		{`"inter": {"L": "2.5us"`, `"inter": {"L": "1.5s"`,
			"test.json:14:18: inter.L: 1.5s: want at most 1s per message or operation (slower than any real link or runtime: a geostationary satellite hop takes 0.25s)"},
		{`"intra": {"L": "200ns", "o": "100ns"`, `"intra": {"L": "200ns", "o": 1e12`,
			"test.json:13:32: intra.o: 1000s: want at most 1s per message or operation (slower than any real link or runtime: a geostationary satellite hop takes 0.25s)"},
		{`"G": "6ns/B"`, `"G": "999B/s"`,
			"test.json:14:58: inter.G: 1.001001001001ms/B: want at most 1ms/B (1 KB/s, slower than any real link or copy: a 9600-baud serial line is 0.83ms/B)"},
		{`"copy": "0ns/B"`, `"copy": "2ms/B"`,
			"test.json:30:13: threads.copy: 2ms/B: want at most 1ms/B (1 KB/s, slower than any real link or copy: a 9600-baud serial line is 0.83ms/B)"},
		{`"create": "0ns"`, `"create": "1h"`, ""}, // not a unit: checked below as a parse error
		{`"create": "0ns"`, `"create": "3600s"`,
			"test.json:27:15: threads.create: 3600s: want at most 1s per message or operation (slower than any real link or runtime: a geostationary satellite hop takes 0.25s)"},
		{`{"bytes": 8192, "time": "9us"}`, `{"bytes": 8388608, "time": "3600.001s"}`,
			"test.json:22:7: table.inter[4]: time 3600.001s: want at most 3600s for one message of a ping-pong"},
		{`{"bytes": 8192, "time": "9us"}`, `{"bytes": 281474976710657, "time": "9us"}`,
			"test.json:22:7: table.inter[4]: size 281474976710657 B: want at most 281474976710656 B (256 TiB, the address space of a 64-bit processor: no message is larger)"},
		// 4096 B at 1 ms/B is 4.096 s: one picosecond more is over.
		{`{"bytes": 8192, "time": "9us"}`, `{"bytes": 8192, "time": "4.096008000001s"}`,
			"test.json:22:7: table.inter[4]: the last segment, which extrapolates larger messages, costs more than 1ms/B (4.096000000001s over 4096 B): want at most 1ms/B (1 KB/s)"},
		// At the bounds: accepted.
		{`"cpu_factor": 1`, `"cpu_factor": 1e6`, ""},
		{`"cpu_factor": 1`, `"cpu_factor": 1e-6`, ""},
		{`"inter": {"L": "2.5us"`, `"inter": {"L": "1s"`, ""},
		{`"G": "6ns/B"`, `"G": "1KB/s"`, ""},
		{`{"bytes": 8192, "time": "9us"}`, `{"bytes": 8192, "time": "4.096008s"}`, ""},
		{`{"bytes": 8192, "time": "9us"}`, `{"bytes": 281474976710656, "time": "3600s"}`, ""},
	} {
		text := base(t)
		if !strings.Contains(text, c.old) {
			t.Fatalf("the base file has no %s", c.old)
		}
		text = strings.Replace(text, c.old, c.new, 1)
		_, err := Parse([]byte(text), "test.json")
		switch {
		case c.new == `"create": "1h"`:
			if err == nil || !strings.Contains(err.Error(), `unknown unit "h"`) {
				t.Errorf("%s: %v, want an unknown unit", c.new, err)
			}
		case c.want == "" && err != nil:
			t.Errorf("%s: at the bound, refused: %v", c.new, err)
		case c.want != "" && (err == nil || err.Error() != c.want):
			t.Errorf("%s:\n got %v\nwant %s", c.new, err, c.want)
		}
	}
}

// TestBoundsMessagesTrue checks the figures the errors quote against the
// arithmetic: the longest fragment that cpu_factor 1e12 scales into the
// clock is 9.22 µs, and a fragment just longer overflows.
func TestBoundsMessagesTrue(t *testing.T) {
	m := testMachine()
	m.CPUFactor = 1e12
	if got, want := m.Compute(9223372), trace.Time(9223372)*1e12; got != want {
		t.Errorf("1e12 × 9.223372us = %d, want %d", got, want)
	}
	if got := m.Compute(9223373); got != Overflow {
		t.Errorf("1e12 × 9.223373us = %d, want Overflow", got)
	}
	m.CPUFactor = MaxCPUFactor
	if got, want := m.Compute(9223372036854), 9223372036854*trace.Time(MaxCPUFactor); got != want {
		t.Errorf("1e6 × 9.22s = %d, want %d", got, want)
	}
	if got := m.Compute(9223372036855); got != Overflow {
		t.Errorf("1e6 × 9.22s+1ps = %d, want Overflow", got)
	}
	// At MaxPerByte a message of 9.2 GB fills the clock.
	p := LogGOPS{GapPerByte: MaxPerByte}
	if got := p.Gap(9223372037); got != 9223372036*trace.Millisecond {
		t.Errorf("Gap(9.2GB) at 1ms/B = %d", got)
	}
	if got := p.Gap(9223372038); got != Overflow {
		t.Errorf("Gap(9.2GB+1) at 1ms/B = %d, want Overflow", got)
	}
}
