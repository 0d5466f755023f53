// This file defines the units of a machine description: durations in
// picoseconds, per-byte costs in femtoseconds per byte, byte sizes, and
// their exact text forms.

package machine

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"strings"

	"github.com/predict-tools/predict/trace"
)

// PerByte is a cost per byte in femtoseconds per byte (1 fs = 10⁻³ ps).
//
// Femtoseconds, not picoseconds: per-byte costs of fast links and memory
// copies are tens of picoseconds (24 GB/s is 41.667 ps/B), so whole
// picoseconds per byte would round bandwidths by up to a few percent, the
// size of the prediction error the project aims for. At femtoseconds the
// rounding is below 10⁻⁴ for anything slower than 100 TB/s, and an int64
// still holds up to 9·10⁶ s/B. [PerByte.Times] converts to [trace.Time]
// with 128-bit intermediates, so no size overflows silently.
type PerByte int64

// Common per-byte costs.
const (
	FemtosecondPerByte PerByte = 1
	PicosecondPerByte  PerByte = 1000
	NanosecondPerByte  PerByte = 1000 * PicosecondPerByte
)

// Times returns the cost of n bytes, p·n, rounded to the nearest picosecond
// (halves away from zero). A result beyond the range of trace.Time
// saturates at its maximum (or minimum).
func (p PerByte) Times(n int64) trace.Time {
	neg := (p < 0) != (n < 0)
	hi, lo := bits.Mul64(absU(int64(p)), absU(n))
	lo, carry := bits.Add64(lo, 500, 0)
	hi += carry
	if hi >= 1000 {
		return saturate(neg)
	}
	q, _ := bits.Div64(hi, lo, 1000)
	if q > math.MaxInt64 {
		return saturate(neg)
	}
	if neg {
		return -trace.Time(q)
	}
	return trace.Time(q)
}

// BytesPerSecond is the bandwidth 1/p (+Inf for a zero cost).
func (p PerByte) BytesPerSecond() float64 {
	if p == 0 {
		return math.Inf(1)
	}
	return 1e15 / float64(p)
}

// String prints p exactly, with a unit chosen for readability ("41.667ps/B").
func (p PerByte) String() string {
	a := absU(int64(p))
	switch {
	case a == 0:
		return "0ns/B"
	case a >= 1e15:
		return decimal(int64(p), 1e15) + "s/B"
	case a >= 1e12:
		return decimal(int64(p), 1e12) + "ms/B"
	case a >= 1e9:
		return decimal(int64(p), 1e9) + "us/B"
	case a >= 1e6:
		return decimal(int64(p), 1e6) + "ns/B"
	case a >= 1e3:
		return decimal(int64(p), 1e3) + "ps/B"
	default:
		return decimal(int64(p), 1) + "fs/B"
	}
}

// FormatDuration prints t exactly, with a unit chosen for readability
// ("2.5us", "41ps"), in the form the machine file uses. (trace.Time's own
// String rounds to six digits.)
func FormatDuration(t trace.Time) string {
	a := absU(int64(t))
	switch {
	case a == 0:
		return "0ns"
	case a >= 1e12:
		return decimal(int64(t), 1e12) + "s"
	case a >= 1e9:
		return decimal(int64(t), 1e9) + "ms"
	case a >= 1e6:
		return decimal(int64(t), 1e6) + "us"
	case a >= 1e3:
		return decimal(int64(t), 1e3) + "ns"
	default:
		return decimal(int64(t), 1) + "ps"
	}
}

// ParseDuration reads a duration: a number with a unit, "1.5us", "2500ns",
// "0.3ms" (units ps, ns, us or µs, ms, s), rounded to the nearest
// picosecond.
func ParseDuration(s string) (trace.Time, error) {
	v, err := parseScaled(s, durationUnits, "a duration", `"2500ns" or "1.5us"`)
	return trace.Time(v), err
}

// ParsePerByte reads a per-byte cost: a time per byte, "0.3ns/B",
// "41.667ps/B" (units fs/B, ps/B, ns/B, us/B, ms/B, s/B), or a bandwidth,
// "24GB/s", "1.1GB/s", "200Gb/s" (B/s, KB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s,
// GiB/s, and bits: Kb/s, Mb/s, Gb/s, Tb/s), rounded to the nearest
// femtosecond per byte.
func ParsePerByte(s string) (PerByte, error) {
	num, unit := splitNumber(s)
	if f, ok := bandwidthUnits[unit]; ok {
		r, ok := new(big.Rat).SetString(num)
		if !ok {
			return 0, fmt.Errorf("%q is not a bandwidth: want a number and a unit, like \"24GB/s\"", s)
		}
		if r.Sign() <= 0 {
			return 0, fmt.Errorf("bandwidth %q: want more than 0", s)
		}
		// fs/B = 10¹⁵ / (bytes per second)
		inv := new(big.Rat).Quo(big.NewRat(1e15, 1), r.Mul(r, new(big.Rat).SetFrac64(f.num, f.den)))
		v, err := roundRat(inv)
		if err != nil {
			return 0, fmt.Errorf("bandwidth %q: %v", s, err)
		}
		return PerByte(v), nil
	}
	v, err := parseScaled(s, perByteUnits, "a cost per byte", `"0.3ns/B" or "24GB/s"`)
	return PerByte(v), err
}

// ParseBytes reads a size in bytes: an integer, or a number with a unit,
// "64KiB", "4MiB", "1.5KB" (B, KB, MB, GB, KiB, MiB, GiB); the result must be
// a whole number of bytes.
func ParseBytes(s string) (int64, error) {
	num, unit := splitNumber(s)
	f, ok := sizeUnits[unit]
	if !ok {
		return 0, fmt.Errorf("%q is not a size: want a number of bytes, like 65536 or \"64KiB\"", s)
	}
	r, ok := new(big.Rat).SetString(num)
	if !ok {
		return 0, fmt.Errorf("%q is not a size: want a number of bytes, like 65536 or \"64KiB\"", s)
	}
	r.Mul(r, new(big.Rat).SetInt64(f))
	if !r.IsInt() {
		return 0, fmt.Errorf("size %q is not a whole number of bytes", s)
	}
	if !r.Num().IsInt64() {
		return 0, fmt.Errorf("size %q is too large", s)
	}
	return r.Num().Int64(), nil
}

// ratio is an exact factor num/den.
type ratio struct{ num, den int64 }

var (
	durationUnits = map[string]int64{
		"ps": 1, "ns": 1e3, "us": 1e6, "µs": 1e6, "μs": 1e6, "ms": 1e9, "s": 1e12,
	}
	perByteUnits = map[string]int64{
		"fs/B": 1, "ps/B": 1e3, "ns/B": 1e6, "us/B": 1e9, "µs/B": 1e9, "μs/B": 1e9, "ms/B": 1e12, "s/B": 1e15,
	}
	// bandwidthUnits give bytes per second per unit.
	bandwidthUnits = map[string]ratio{
		"B/s": {1, 1}, "KB/s": {1e3, 1}, "MB/s": {1e6, 1}, "GB/s": {1e9, 1}, "TB/s": {1e12, 1},
		"KiB/s": {1 << 10, 1}, "MiB/s": {1 << 20, 1}, "GiB/s": {1 << 30, 1},
		"Kb/s": {1e3, 8}, "Mb/s": {1e6, 8}, "Gb/s": {1e9, 8}, "Tb/s": {1e12, 8},
	}
	sizeUnits = map[string]int64{
		"": 1, "B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30,
	}
)

// parseScaled reads a number with one of units (each a factor to the base
// unit) and rounds it to an integer in the base unit.
func parseScaled(s string, units map[string]int64, what, example string) (int64, error) {
	num, unit := splitNumber(s)
	if num == "" {
		return 0, fmt.Errorf("%q is not %s: want a number and a unit, like %s", s, what, example)
	}
	f, ok := units[unit]
	if !ok {
		if r, isNum := new(big.Rat).SetString(num); unit == "" && isNum && r.Sign() == 0 {
			return 0, nil // a bare zero needs no unit
		}
		if unit == "" {
			return 0, fmt.Errorf("%q has no unit: write %s, or a JSON number (nanoseconds)", s, example)
		}
		return 0, fmt.Errorf("%q: unknown unit %q for %s (like %s)", s, unit, what, example)
	}
	r, ok := new(big.Rat).SetString(num)
	if !ok {
		return 0, fmt.Errorf("%q is not %s: want a number and a unit, like %s", s, what, example)
	}
	v, err := roundRat(r.Mul(r, new(big.Rat).SetInt64(f)))
	if err != nil {
		return 0, fmt.Errorf("%q: %v", s, err)
	}
	return v, nil
}

// parseNumber reads a JSON number literal as a multiple of unit (the number
// is in units of unit base units), rounded to an integer.
func parseNumber(lit string, unit int64) (int64, error) {
	r, ok := new(big.Rat).SetString(lit)
	if !ok {
		return 0, fmt.Errorf("%s is not a number", lit)
	}
	return roundRat(r.Mul(r, new(big.Rat).SetInt64(unit)))
}

// splitNumber splits "1.5e3 us" into "1.5e3" and "us".
func splitNumber(s string) (num, unit string) {
	s = strings.TrimSpace(s)
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := false
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		digits = digits || s[i] != '.'
		i++
	}
	if !digits {
		return "", strings.TrimSpace(s)
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && s[j] >= '0' && s[j] <= '9' {
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			i = j
		}
	}
	return s[:i], strings.TrimSpace(s[i:])
}

// roundRat rounds r to the nearest integer, halves away from zero.
func roundRat(r *big.Rat) (int64, error) {
	num, den := new(big.Int).Abs(r.Num()), r.Denom()
	q, m := new(big.Int).QuoRem(num, den, new(big.Int))
	if m.Lsh(m, 1).Cmp(den) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	if r.Sign() < 0 {
		q.Neg(q)
	}
	if !q.IsInt64() {
		return 0, fmt.Errorf("out of range")
	}
	return q.Int64(), nil
}

// decimal prints v/unit exactly, without trailing zeros ("2.5", "41.667").
func decimal(v, unit int64) string {
	sign := ""
	a := absU(v)
	if v < 0 {
		sign = "-"
	}
	u := uint64(unit)
	s := sign + strconv.FormatUint(a/u, 10)
	if frac := a % u; frac != 0 {
		width := len(strconv.FormatUint(u, 10)) - 1
		f := fmt.Sprintf("%0*d", width, frac)
		s += "." + strings.TrimRight(f, "0")
	}
	return s
}

func absU(v int64) uint64 {
	if v < 0 {
		return uint64(-(v + 1)) + 1
	}
	return uint64(v)
}

func saturate(neg bool) trace.Time {
	if neg {
		return math.MinInt64
	}
	return math.MaxInt64
}

// mulDiv returns a·b/c rounded to the nearest integer (halves away from
// zero), with a 128-bit intermediate; c > 0. It saturates out of range.
func mulDiv(a, b, c int64) int64 {
	neg := (a < 0) != (b < 0)
	hi, lo := bits.Mul64(absU(a), absU(b))
	half := uint64(c) / 2
	lo, carry := bits.Add64(lo, half, 0)
	hi += carry
	if hi >= uint64(c) {
		return int64(saturate(neg))
	}
	q, _ := bits.Div64(hi, lo, uint64(c))
	if q > math.MaxInt64 {
		return int64(saturate(neg))
	}
	if neg {
		return -int64(q)
	}
	return int64(q)
}

// PerByteOver returns the per-byte cost of t spread over n bytes, to the
// nearest fs/B (saturated where it does not fit).
func PerByteOver(t trace.Time, n int64) PerByte {
	return PerByte(mulDiv(int64(t), 1000, n))
}
