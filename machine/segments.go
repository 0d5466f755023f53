// This file defines the piecewise-linear fit of a ping-pong table
// (Segments): ranges of message sizes, each with its own one-way time and
// cost per byte, as SimGrid/SMPI's network model gives each range of sizes
// its own latency and bandwidth factors, and the model they make between
// and beyond their ranges.

package machine

import (
	"sort"

	"github.com/predict-tools/predict/trace"
)

// A Segment is one range of a piecewise-linear (piecewise LogGP) fit of a
// ping-pong table: from Lo to Hi bytes (both measured sizes, both
// included) the one-way time is Intercept + (s − Lo) × Slope. Slope is the
// range's own G + O (its bandwidth), Intercept the time at the range's
// first size (in the range's own coordinate s − Lo, so that it is a time
// of the range and never negative; a line's value at 1 B, LogGP's 2o + L,
// goes below zero for a range whose cost per byte grows with the size).
//
// SimGrid/SMPI keys its factors the same way, a list of
// "size:factor" pairs each of which holds from its size to the next
// (smpi/bw-factor, smpi/lat-factor; NetworkSmpiModel::get_bandwidth_factor),
// fitted range by range to a ping-pong (contrib/network_model/
// calibrate_piecewise.py: one regression per range).
type Segment struct {
	Lo, Hi    int64
	Intercept trace.Time
	Slope     PerByte
}

// at is the segment's line at s bytes (s may lie outside the range), or
// [Overflow].
func (g Segment) at(s int64) trace.Time {
	return AddTime(g.Intercept, g.Slope.Times(s-g.Lo))
}

// Segments are the ranges of a fit, sorted by size, disjoint. They model
// the one-way time of every size (see [Segments.At]); a [Link] uses the
// last one's Slope beyond its table's last point.
type Segments []Segment

// At returns the segments' one-way time of a message of s bytes:
//
//   - inside a range, its line;
//   - below the first range, the first range's Intercept (a message never
//     costs less than the smallest one measured, as [Table.At]);
//   - beyond the last range, the last range's line (SimGrid's last factor
//     holds for every larger size);
//   - between two ranges, a straight bridge from the end of the one to the
//     start of the next, so that the model is continuous there: a size
//     between two measured sizes costs between what the two ranges say of
//     their ends;
//   - except where the eager limit (eagerLimit, S) falls between two
//     ranges: a change of protocol is a jump, not a ramp, so sizes up to S
//     follow the lower range's line and sizes above it the upper range's
//     (never less than the lower range at S).
//
// ss must be valid (see [Machine.Validate]); no segments give 0.
// [Overflow] when the time does not fit the clock.
func (ss Segments) At(s, eagerLimit int64) trace.Time {
	n := len(ss)
	switch {
	case n == 0:
		return 0
	case s <= ss[0].Lo:
		return ss[0].Intercept
	}
	// k is the last range that starts at or below s.
	k := sort.Search(n, func(i int) bool { return ss[i].Lo > s }) - 1
	lower := ss[k]
	if s <= lower.Hi || k == n-1 {
		return lower.at(s)
	}
	upper := ss[k+1]
	if lower.Hi <= eagerLimit && eagerLimit < upper.Lo {
		if s <= eagerLimit {
			return lower.at(s)
		}
		return max(upper.at(s), lower.at(eagerLimit))
	}
	a, b := lower.at(lower.Hi), upper.Intercept
	if Overflowed(a) || Overflowed(b) {
		return Overflow
	}
	// lower.Hi < s < upper.Lo: neither difference wraps, and mulDiv
	// keeps a falling bridge between its two ends.
	return AddTime(a, trace.Time(mulDiv(int64(b-a), s-lower.Hi, upper.Lo-lower.Hi)))
}
