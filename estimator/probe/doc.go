// Package probe is the runtime of the probes the timing pass inserts into
// an instrumented copy of a program (see package estimator).
//
// The instrumented code calls [Now] before a fragment and [Seg] or [Loop]
// after it, with the start time kept in a local variable, so fragments run
// by several ranks at once do not disturb each other; [Iter] and [IterEnd]
// sample the iterations of loops timed whole, and [Branch] records the
// outcomes of opaque decisions per rank. Statistics live in one slot per
// fragment (sized by [Declare]) behind a mutex: a Now/Seg pair costs a
// few tens of nanoseconds, which [Overhead] measures so that the estimator
// can subtract it.
//
// Ranks are told apart only where it matters, in Branch: commlib's
// RankStart hook maps each rank's goroutine to its rank, and Branch looks
// its goroutine up (about a microsecond; skipped when there is one rank).
// When the run ends (commlib's RunEnd hook) the data is written as JSON to
// the file named by $PREDICT_PROBE_OUT ([Raw]).
package probe
