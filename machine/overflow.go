// This file defines the overflow-safe arithmetic of costs: the Overflow
// sentinel that a cost beyond the picosecond clock saturates at, saturating
// addition and multiplication of times, and the exact scaling of a time by
// a float64 factor.

package machine

import (
	"math"
	"math/bits"

	"github.com/predict-tools/predict/trace"
)

// Overflow is what every cost function returns when the exact cost does not
// fit the picosecond clock, trace.Time (an int64: at most 2⁶³−1 ps ≈ 106
// days). No cost function wraps round or returns a rounded-off value: the
// result is exact, or it is Overflow. Overflow is sticky: a cost built from
// an Overflow (a sum, a NIC queue behind it, a maximum with it) is Overflow.
//
// A caller that advances clocks must add with [AddTime], which keeps the
// sentinel, and refuse the result when [Overflowed] reports it: the
// prediction does not fit the clock.
const Overflow trace.Time = math.MaxInt64

// Overflowed reports whether t is the [Overflow] sentinel: a cost or a
// clock that the picosecond arithmetic cannot hold.
func Overflowed(t trace.Time) bool { return t == Overflow }

// AddTime returns a + b, or [Overflow] when the sum does not fit (and
// math.MinInt64 below the range, which only negative inputs reach). An
// Overflow operand gives Overflow whatever the other.
func AddTime(a, b trace.Time) trace.Time {
	if a == Overflow || b == Overflow {
		return Overflow
	}
	s := a + b
	switch {
	case b > 0 && s < a:
		return Overflow
	case b < 0 && s > a:
		return math.MinInt64
	}
	return s
}

// subTime returns a − b, saturating like [AddTime]; an Overflow a gives
// Overflow.
func subTime(a, b trace.Time) trace.Time {
	if a == Overflow {
		return Overflow
	}
	s := a - b
	switch {
	case b < 0 && s < a:
		return Overflow
	case b > 0 && s > a:
		return math.MinInt64
	}
	return s
}

// MulTime returns t·n, or [Overflow] (math.MinInt64 for a negative
// product) when it does not fit. An Overflow t gives Overflow for n > 0.
func MulTime(t trace.Time, n int64) trace.Time {
	return trace.Time(mulSat(int64(t), n))
}

// mulSat returns a·b, saturated at the int64 range.
func mulSat(a, b int64) int64 {
	neg := (a < 0) != (b < 0)
	hi, lo := bits.Mul64(absU(a), absU(b))
	if hi != 0 || lo > math.MaxInt64 {
		if neg && hi == 0 && lo == 1<<63 {
			return math.MinInt64
		}
		return int64(saturate(neg))
	}
	if neg {
		return -int64(lo)
	}
	return int64(lo)
}

// scaleTime returns t·f rounded to the nearest picosecond (halves away from
// zero), computed exactly from the binary value of f: f = mant·2^−shift
// with a 53-bit integer mant, so t·f is a 117-bit product shifted right.
// A product beyond the clock saturates (see [Overflow]). f must be finite:
// NaN and infinities, which validation refuses, give Overflow rather than a
// float-to-integer conversion out of range, whose result Go leaves to the
// implementation.
func scaleTime(t trace.Time, f float64) trace.Time {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return Overflow
	}
	if t == 0 || f == 0 {
		return 0
	}
	neg := (t < 0) != (f < 0)
	frac, exp := math.Frexp(math.Abs(f)) // |f| = frac·2^exp, 0.5 ≤ frac < 1
	mant := uint64(math.Ldexp(frac, 53)) // exact: an integer in [2⁵², 2⁵³)
	shift := 53 - exp                    // |f| = mant·2^−shift
	hi, lo := bits.Mul64(absU(int64(t)), mant)
	var q uint64
	switch {
	case shift <= 0: // |f| ≥ 2⁵³: a left shift
		if hi != 0 || -shift >= 63 || lo > math.MaxInt64>>-shift {
			return saturate(neg)
		}
		q = lo << -shift
	case shift >= 118: // the product is below 2¹¹⁷, so t·f < ½
		return 0
	default:
		// Add half of the last kept unit, then shift right.
		var carry uint64
		if shift-1 < 64 {
			lo, carry = bits.Add64(lo, 1<<(shift-1), 0)
			hi += carry
		} else {
			hi += 1 << (shift - 1 - 64)
		}
		if shift >= 64 {
			q = hi >> (shift - 64)
		} else {
			if hi>>shift != 0 {
				return saturate(neg)
			}
			q = lo>>shift | hi<<(64-shift)
		}
	}
	if q > math.MaxInt64 {
		return saturate(neg)
	}
	if neg {
		return -trace.Time(q)
	}
	return trace.Time(q)
}

// floorMulDiv returns ⌊a·b/c⌋ for a, b ≥ 0 and c > 0 with a 128-bit
// intermediate; the caller ensures the quotient fits (a < c).
func floorMulDiv(a, b, c int64) int64 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi >= uint64(c) {
		return math.MaxInt64
	}
	q, _ := bits.Div64(hi, lo, uint64(c))
	return int64(q)
}

// RoundTime converts x picoseconds to a time, rounded to the nearest
// picosecond (halves away from zero), or [Overflow] (math.MinInt64 below
// the range) when it does not fit; NaN gives Overflow. Use it for every
// float64 that becomes a time: Go leaves the conversion of an
// out-of-range float to an integer to the implementation.
func RoundTime(x float64) trace.Time {
	r := math.Round(x)
	switch {
	case math.IsNaN(r) || r >= 1<<63:
		return Overflow
	case r < -(1 << 63):
		return math.MinInt64
	}
	return trace.Time(r)
}
