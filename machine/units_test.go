package machine

import (
	"math"
	"testing"

	"github.com/predict-tools/predict/trace"
)

func TestParseDuration(t *testing.T) {
	for _, c := range []struct {
		in   string
		want trace.Time
	}{
		{"2500ns", 2500 * trace.Nanosecond},
		{"1.5us", 1500 * trace.Nanosecond},
		{"1.5µs", 1500 * trace.Nanosecond},
		{"0.3ms", 300 * trace.Microsecond},
		{"2s", 2 * trace.Second},
		{"41ps", 41},
		{"1e3ns", trace.Microsecond},
		{" 7 ns ", 7 * trace.Nanosecond},
		{"0", 0},
		{"0.0004ns", 0}, // rounds to the nearest picosecond
		{"0.0005ns", 1},
		{"-5ns", -5 * trace.Nanosecond}, // parsed; Validate rejects it
	} {
		got, err := ParseDuration(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseDuration(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "ns", "2500", "1.5 minutes", "1..5us", "abc"} {
		if _, err := ParseDuration(bad); err == nil {
			t.Errorf("ParseDuration(%q): no error", bad)
		}
	}
}

func TestParsePerByte(t *testing.T) {
	for _, c := range []struct {
		in   string
		want PerByte
	}{
		{"6ns/B", 6 * NanosecondPerByte},
		{"0.3ns/B", 300 * PicosecondPerByte},
		{"41.667ps/B", 41667},
		{"24GB/s", 41667},     // 10^15/24e9 = 41666.67
		{"1.1GB/s", 909091},   // 909090.9
		{"200Gb/s", 40000},    // 25 GB/s
		{"1GiB/s", 931323},    // 10^15/2^30 = 931322.57
		{"1000MB/s", 1000000}, // 1 ns/B
		{"0", 0},
	} {
		got, err := ParsePerByte(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParsePerByte(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"6ns", "0GB/s", "-1GB/s", "fast", "6"} {
		if _, err := ParsePerByte(bad); err == nil {
			t.Errorf("ParsePerByte(%q): no error", bad)
		}
	}
}

func TestParseBytes(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{
		{"65536", 65536}, {"64KiB", 65536}, {"4MiB", 4 << 20}, {"1.5KB", 1500}, {"12 B", 12},
	} {
		got, err := ParseBytes(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"1.5", "0.3KiB", "64kb", "many", "1e30"} {
		if _, err := ParseBytes(bad); err == nil {
			t.Errorf("ParseBytes(%q): no error", bad)
		}
	}
}

// The text forms are exact: formatting and parsing back gives the value.
func TestFormatRoundTrip(t *testing.T) {
	for _, v := range []trace.Time{0, 1, 41, 999, 1000, 1500, 2500000, 1234567891, 3 * trace.Second, -2500} {
		s := FormatDuration(v)
		back, err := ParseDuration(s)
		if err != nil || back != v {
			t.Errorf("FormatDuration(%d) = %q, reads back as %d, %v", v, s, back, err)
		}
	}
	for _, v := range []PerByte{0, 1, 999, 41667, 909091, 6 * NanosecondPerByte, 1e12, 123456789012345} {
		s := v.String()
		back, err := ParsePerByte(s)
		if err != nil || back != v {
			t.Errorf("PerByte(%d).String() = %q, reads back as %d, %v", v, s, back, err)
		}
	}
	if got := FormatDuration(2500 * trace.Nanosecond); got != "2.5us" {
		t.Errorf("FormatDuration(2500ns) = %q, want 2.5us", got)
	}
	if got := PerByte(41667).String(); got != "41.667ps/B" {
		t.Errorf("PerByte(41667) = %q, want 41.667ps/B", got)
	}
}

func TestPerByteTimes(t *testing.T) {
	for _, c := range []struct {
		p    PerByte
		n    int64
		want trace.Time
	}{
		{6 * NanosecondPerByte, 1023, 6138 * trace.Nanosecond},
		{100 * PicosecondPerByte, 1 << 20, 104857600}, // seed-003 §11: 0.1 ns/B × 1 MiB = 104857.6 ns
		{41667, 1, 42}, // 41.667 ps rounds to 42
		{41667, 1000, 41667},
		{1, 499, 0}, {1, 500, 1}, // halves round up
		{0, 1 << 40, 0},
		{NanosecondPerByte, math.MaxInt64, math.MaxInt64}, // saturates
		{909091, 1 << 40, 999556125206512},                // 1 TiB at 1.1 GB/s, no overflow
	} {
		if got := c.p.Times(c.n); got != c.want {
			t.Errorf("PerByte(%d).Times(%d) = %d, want %d", c.p, c.n, got, c.want)
		}
	}
}

func TestMulDiv(t *testing.T) {
	for _, c := range []struct{ a, b, c, want int64 }{
		{10, 3, 4, 8}, // 7.5 rounds away from zero
		{-10, 3, 4, -8},
		{1 << 62, 1 << 20, 1 << 30, 1 << 52},
		{7, 1, 3, 2},
		{math.MaxInt64, 2, 1, math.MaxInt64},
	} {
		if got := mulDiv(c.a, c.b, c.c); got != c.want {
			t.Errorf("mulDiv(%d, %d, %d) = %d, want %d", c.a, c.b, c.c, got, c.want)
		}
	}
}
