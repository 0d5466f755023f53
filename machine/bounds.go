// This file defines the bounds of a machine's values: the largest costs and
// sizes, and the range of cpu_factor, that validation accepts so that the
// picosecond arithmetic of the cost functions stays exact, and their errors.

package machine

import (
	"fmt"
	"math"
	"strconv"

	"github.com/predict-tools/predict/trace"
)

// The bounds of a machine's values. The clock is an int64 of picoseconds:
// it holds 2⁶³−1 ps ≈ 9.2·10⁶ s ≈ 106 days. Each bound is far beyond any
// real machine, so that only a mistake (a unit, an exponent) meets it, and
// far enough below the clock that a run of many operations at the bound
// still fits; what still does not fit at run time is reported by the cost
// functions as [Overflow], never wrapped round.
const (
	// MaxDuration bounds a cost per message or per operation: L, o, g and
	// the thread costs. The slowest real link, a geostationary satellite
	// hop, takes 0.25 s one way; at 1 s the clock still holds 9·10⁶
	// operations.
	MaxDuration = trace.Second

	// MaxPerByte bounds a cost per byte: G, O, nic.injection,
	// nic.ejection, threads.copy and the last segment of a ping-pong table,
	// 1 ms/B (1 KB/s): slower than any real link (a 9600-baud serial line
	// is 0.83 ms/B). At the bound a message of 9.2 GB fills the clock.
	MaxPerByte = PerByte(1e12)

	// MaxTableTime bounds the one-way time of a ping-pong table point: one
	// hour, longer than any measurement of one message takes.
	MaxTableTime = 3600 * trace.Second

	// MaxTableBytes bounds the size of a ping-pong table point: 2⁴⁸ B
	// (256 TiB), the virtual address space of today's 64-bit processors,
	// so no message is larger.
	MaxTableBytes int64 = 1 << 48

	// MinCPUFactor and MaxCPUFactor bound cpu_factor: a target a million
	// times faster or slower than the profiling machine is a mistake. At
	// 10⁶ a fragment of up to 9.2 s scales exactly into the clock; at
	// 10⁻⁶ a fragment under 0.5 µs scales to 0 ps.
	MinCPUFactor = 1e-6
	MaxCPUFactor = 1e6

	// MinMemoryBandwidth and MaxMemoryBandwidth bound memory_bandwidth, in
	// bytes per second: no node's memory is slower than 1 MB/s (a floppy
	// disk's rate), nor faster than 1 PB/s (a GPU's HBM delivers a few
	// TB/s); either is a unit mistaken.
	MinMemoryBandwidth = 1e6
	MaxMemoryBandwidth = 1e15
)

// maxClock is the largest time the clock holds, for messages.
const maxClock = trace.Time(math.MaxInt64)

// cpuFactor checks the range of cpu_factor; it must already be finite and
// positive.
func (v *validator) cpuFactor(f float64) {
	if math.IsNaN(f) || math.IsInf(f, 0) || f <= 0 {
		return
	}
	switch {
	case f > MaxCPUFactor:
		// The longest fragment that still fits: ⌊(2⁶³−1)/f⌋ ps.
		longest := trace.Time(float64(maxClock) / f)
		v.errorf("cpu_factor", "%s: compute times × %s overflow the picosecond clock (max ≈ 106 days) for fragments over %s; want at most %s",
			formatFactor(f), formatFactor(f), approxDuration(longest), formatFactor(MaxCPUFactor))
	case f < MinCPUFactor:
		// The shortest fragment that does not scale to 0 ps: ½/f, unless
		// that is beyond the clock (a conversion Go leaves undefined).
		under := "every fragment"
		if half := 0.5 / f; half < float64(maxClock) {
			under = "fragments under " + approxDuration(trace.Time(half))
		}
		v.errorf("cpu_factor", "%s: compute times × %s round to 0 for %s (the clock counts whole picoseconds); want at least %s",
			formatFactor(f), formatFactor(f), under, formatFactor(MinCPUFactor))
	}
}

func (v *validator) maxDuration(field string, t trace.Time) {
	if t > MaxDuration {
		v.errorf(field, "%s: want at most %s per message or operation (slower than any real link or runtime: a geostationary satellite hop takes 0.25s)",
			FormatDuration(t), FormatDuration(MaxDuration))
	}
}

func (v *validator) maxPerByte(field string, p PerByte) {
	if p > MaxPerByte {
		v.errorf(field, "%s: want at most %s (1 KB/s, slower than any real link or copy: a 9600-baud serial line is 0.83ms/B)",
			p, MaxPerByte)
	}
}

// memoryBandwidth checks memory_bandwidth: 0 (unknown) or a finite
// bandwidth within the bounds.
func (v *validator) memoryBandwidth(bw float64) {
	switch {
	case bw == 0:
	case math.IsNaN(bw) || math.IsInf(bw, 0) || bw < 0:
		v.errorf("memory_bandwidth", "%v: want a bandwidth in bytes per second greater than 0 (or 0: unknown)", bw)
	case bw < MinMemoryBandwidth || bw > MaxMemoryBandwidth:
		v.errorf("memory_bandwidth", "%s B/s: want between %s and %s B/s (1 MB/s to 1 PB/s; a unit mistaken?)",
			formatFactor(bw), formatFactor(MinMemoryBandwidth), formatFactor(MaxMemoryBandwidth))
	}
}

// tablePointBounds checks the size and the time of one point of a table.
func (v *validator) tablePointBounds(field string, p TablePoint) {
	if p.Bytes > MaxTableBytes {
		v.errorf(field, "size %d B: want at most %d B (256 TiB, the address space of a 64-bit processor: no message is larger)", p.Bytes, MaxTableBytes)
	}
	if p.Time > MaxTableTime {
		v.errorf(field, "time %s: want at most %s for one message of a ping-pong", FormatDuration(p.Time), FormatDuration(MaxTableTime))
	}
}

// lastSegmentBound checks the slope of a table's last segment, which
// extrapolates every larger message, against MaxPerByte. The caller has
// checked that the table has two points and that its sizes increase.
func (v *validator) lastSegmentBound(field string, t Table) {
	n := len(t)
	a, b := t[n-2], t[n-1]
	if a.Bytes < 0 || a.Time < 0 || b.Time < a.Time || b.Bytes <= a.Bytes {
		return // reported by table
	}
	// Compare exactly: dt/db > MaxPerByte ⇔ dt > db·MaxPerByte (in ps).
	db, dt := b.Bytes-a.Bytes, int64(b.Time-a.Time)
	if dt > mulSat(db, int64(MaxPerByte/PicosecondPerByte)) {
		slope := PerByte(mulDiv(dt, 1000, db)) // to the nearest fs/B
		cost := slope.String()
		if slope <= MaxPerByte { // over by less than the rounding
			cost = "more than " + MaxPerByte.String()
		}
		v.errorf(fmt.Sprintf("%s[%d]", field, n-1), "the last segment, which extrapolates larger messages, costs %s (%s over %d B): want at most %s (1 KB/s)",
			cost, FormatDuration(b.Time-a.Time), db, MaxPerByte)
	}
}

// formatFactor prints a factor as Go's %g does: 1e+12, 1e+06, 0.5.
func formatFactor(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// approxDuration prints t to three significant digits with a unit:
// "9.22us", "4.61s", "5.79 days".
func approxDuration(t trace.Time) string {
	units := []struct {
		name string
		size trace.Time
	}{{" days", 86400 * trace.Second}, {"s", trace.Second}, {"ms", trace.Millisecond}, {"us", trace.Microsecond}, {"ns", trace.Nanosecond}}
	for _, u := range units {
		if t >= u.size {
			return strconv.FormatFloat(float64(t)/float64(u.size), 'g', 3, 64) + u.name
		}
	}
	return strconv.FormatInt(int64(t), 10) + "ps"
}
