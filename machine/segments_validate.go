// This file defines the validation of a level's ping-pong table with its
// segments, whose errors name the field (table.intra.segments[2].hi).

package machine

import "fmt"

// tableLevel checks a level's table and its segments. With segments the
// machine file holds the level as an object, its points under "points"
// (table.intra.points[3]); without, as the list of points (table.intra[3]).
func (v *validator) tableLevel(field string, t Table, ss Segments) {
	if len(ss) == 0 {
		v.table(field, t)
		return
	}
	v.table(field+".points", t)
	if len(t) == 0 {
		v.errorNear(field+".points", field, "missing: segments extend the level's ping-pong table, and it has no points")
	}
	v.segments(field+".segments", ss)
}

// segments checks each segment's range, time and cost per byte, and that
// the ranges are sorted and disjoint.
func (v *validator) segments(field string, ss Segments) {
	for i, g := range ss {
		f := fmt.Sprintf("%s[%d]", field, i)
		switch {
		case g.Lo < 0:
			v.errorf(f+".lo", "negative size %d", g.Lo)
		case g.Lo > MaxTableBytes:
			v.errorf(f+".lo", "size %d B: want at most %d B (as a table point)", g.Lo, MaxTableBytes)
		case i > 0 && g.Lo < ss[i-1].Lo:
			v.errorf(f+".lo", "segments not sorted: lo %d B after %s.lo %d B", g.Lo, fmt.Sprintf("%s[%d]", field, i-1), ss[i-1].Lo)
		case i > 0 && g.Lo <= ss[i-1].Hi:
			v.errorf(f+".lo", "%d B: overlaps %s[%d] (%d B to %d B): segments share no size", g.Lo, field, i-1, ss[i-1].Lo, ss[i-1].Hi)
		}
		switch {
		case g.Hi < g.Lo:
			v.errorf(f+".hi", "%d B is below lo %d B: want hi ≥ lo", g.Hi, g.Lo)
		case g.Hi > MaxTableBytes:
			v.errorf(f+".hi", "size %d B: want at most %d B (as a table point)", g.Hi, MaxTableBytes)
		}
		switch {
		case g.Intercept < 0:
			v.errorf(f+".intercept", "negative time %s: want the one-way time at lo", FormatDuration(g.Intercept))
		case g.Intercept > MaxTableTime:
			v.errorf(f+".intercept", "time %s: want at most %s for one message of a ping-pong", FormatDuration(g.Intercept), FormatDuration(MaxTableTime))
		}
		v.perByte(f+".slope", g.Slope)
	}
}
