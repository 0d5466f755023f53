// This file defines half-open time intervals and sets of them.

package patterns

import (
	"cmp"
	"slices"

	"github.com/predict-tools/predict/trace"
)

// interval is the half-open interval [lo, hi); empty when hi <= lo.
type interval struct{ lo, hi trace.Time }

func (i interval) len() trace.Time { return max(0, i.hi-i.lo) }

// intervals is a set of intervals; normalize makes it sorted and disjoint.
type intervals []interval

// normalize returns the set sorted, merged, without empty intervals.
func (s intervals) normalize() intervals {
	out := make(intervals, 0, len(s))
	for _, i := range s {
		if i.hi > i.lo {
			out = append(out, i)
		}
	}
	slices.SortFunc(out, func(a, b interval) int { return cmp.Compare(a.lo, b.lo) })
	merged := out[:0]
	for _, i := range out {
		if n := len(merged); n > 0 && i.lo <= merged[n-1].hi {
			merged[n-1].hi = max(merged[n-1].hi, i.hi)
			continue
		}
		merged = append(merged, i)
	}
	return merged
}

// measure is the total length of a normalized set.
func (s intervals) measure() trace.Time {
	var t trace.Time
	for _, i := range s {
		t += i.len()
	}
	return t
}

// intersect returns the normalized set clipped to w.
func (s intervals) intersect(w interval) intervals {
	var out intervals
	for _, i := range s {
		if c := (interval{max(i.lo, w.lo), min(i.hi, w.hi)}); c.hi > c.lo {
			out = append(out, c)
		}
	}
	return out
}

// complementIn returns w \ s, normalized, for a normalized s.
func (s intervals) complementIn(w interval) intervals {
	var out intervals
	at := w.lo
	for _, i := range s {
		if i.hi <= at || i.lo >= w.hi {
			continue
		}
		if i.lo > at {
			out = append(out, interval{at, i.lo})
		}
		at = max(at, i.hi)
	}
	if at < w.hi {
		out = append(out, interval{at, w.hi})
	}
	return out
}
