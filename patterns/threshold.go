// This file defines the noise threshold ε of an analysis that was given
// none: a millionth of the run's span, with a floor for the noise of real
// runs.

package patterns

import (
	"fmt"

	"github.com/predict-tools/predict/trace"
)

// The automatic noise threshold (Options.Eps zero) is
// max(span/AutoEpsDivisor, floor): a millionth of the run's span, and at
// least RealEpsFloor in a real trace (1 ps in a modeled one).
//
// The threshold applies to each wait instance, and the waits of an
// iterative program are many small instances (a modeled stencil at np=8,
// a 15.8 ms run, loses 1 ms in 700 Allreduce and Sendrecv waits of
// 0.1-2 µs each): a threshold that is a sizeable share of the run, or the
// former fixed 1 ms, hides them all. A modeled trace has no measurement
// noise (the machine's noise, when the prediction draws it, is in its
// compute and the waits it causes are the model's), only the precision of
// the model: the profile's means are integer picoseconds,
// about a millionth of a µs fragment, so a wait below a millionth of the
// run is not resolved. A real trace carries the noise of the runtime and
// the operating system on every call (waking a blocked goroutine, a
// preempted rank): up to a few hundred µs on a loaded 2-core machine, so
// its threshold is at least 100 µs, and the occasional ms lost to waking
// a CPU still shows (README of testprogs/patterns).
const (
	AutoEpsDivisor = 1_000_000
	RealEpsFloor   = 100 * trace.Microsecond
)

// autoEps returns the threshold for a run of the given span and why.
func autoEps(span trace.Time, modeled bool) (trace.Time, string) {
	share := span / AutoEpsDivisor
	if modeled {
		return max(share, 1), fmt.Sprintf("a millionth of the run's span %v: a modeled trace has no measurement noise", span)
	}
	if share >= RealEpsFloor {
		return share, fmt.Sprintf("a millionth of the run's span %v, a real trace", span)
	}
	return RealEpsFloor, fmt.Sprintf("the noise floor of a real trace; a millionth of the run's span %v is less", span)
}
