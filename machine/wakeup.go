// This file defines the wake-up curve: the delay with which a rank that
// blocked resumes after the event that releases it, as a function of how
// long it was blocked.

package machine

import (
	"fmt"
	"sort"

	"github.com/predict-tools/predict/trace"
)

// A Wakeup curve is the delay between the event that releases a blocked
// rank (the message it waits for arrives, the last rank of a collective
// comes) and the moment the rank runs again, by how long the rank was
// blocked: points sorted by strictly increasing Blocked. Between points
// the delay is interpolated linearly, from (0, 0) before the first point;
// beyond the last point it stays at the last point's delay.
//
// It describes runtimes whose blocked ranks give up their core: the
// in-process runtime parks a blocked goroutine, and once its thread has
// stopped spinning (some microseconds) waking it takes an operating-system
// wake-up, longer the deeper the idle core has gone. MPI libraries poll
// while they wait, so the presets of clusters have no curve (delay 0).
type Wakeup []WakePoint

// WakePoint is one point of a [Wakeup] curve.
type WakePoint struct {
	Blocked trace.Time // how long the rank was blocked
	Delay   trace.Time // its delay in resuming
}

// At returns the delay of a rank blocked for d. w must be valid (see
// [Machine.Validate]); an empty curve gives 0.
func (w Wakeup) At(d trace.Time) trace.Time {
	n := len(w)
	if n == 0 || d <= 0 {
		return 0
	}
	if d >= w[n-1].Blocked {
		return w[n-1].Delay
	}
	i := sort.Search(n, func(i int) bool { return w[i].Blocked >= d })
	a := WakePoint{}
	if i > 0 {
		a = w[i-1]
	}
	b := w[i]
	// a.Blocked < d ≤ b.Blocked: neither difference wraps, and the result
	// stays between the two delays.
	return AddTime(a.Delay, trace.Time(mulDiv(int64(b.Delay)-int64(a.Delay), int64(d-a.Blocked), int64(b.Blocked-a.Blocked))))
}

// wakeup checks a curve: blocked times positive and increasing, delays
// not negative.
func (v *validator) wakeup(field string, w Wakeup) {
	for i, p := range w {
		f := fmt.Sprintf("%s[%d]", field, i)
		var prev trace.Time
		if i > 0 {
			prev = w[i-1].Blocked
		}
		v.increasingTime(f+".blocked", "blocked times", i, p.Blocked, prev)
		v.duration(f+".delay", p.Delay)
	}
}

// increasingTime checks t, the time at field of point i of a curve:
// positive, and above prev, the point before's, when i > 0; what names
// the times in the message ("blocked times").
func (v *validator) increasingTime(field, what string, i int, t, prev trace.Time) {
	switch {
	case t <= 0:
		v.errorf(field, "%s: want a positive time", FormatDuration(t))
	case i > 0 && t <= prev:
		v.errorf(field, "%s not increasing: %s after %s", what, FormatDuration(t), FormatDuration(prev))
	}
}

// wakeupText is the curve in a machine file.
func wakeupText(w Wakeup) string {
	s := "["
	for i, p := range w {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("{\"blocked\": %s, \"delay\": %s}", quote(FormatDuration(p.Blocked)), quote(FormatDuration(p.Delay)))
	}
	return s + "]"
}

// describeWakeup is the curve in a report.
func describeWakeup(w Wakeup) string {
	if len(w) == 0 {
		return "none (a blocked rank resumes when released)"
	}
	s := ""
	for i, p := range w {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s after %s", FormatDuration(p.Delay), FormatDuration(p.Blocked))
	}
	return s + " blocked"
}
