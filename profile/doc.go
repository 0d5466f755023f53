// Package profile is the profile of predict (DESIGN.md §6): what the timing
// pass measured on one node, once, and what the interpreter reads in place
// of the computation the reduced model leaves out.
//
// A [File] is versioned JSON ([Format], [Version]) keyed by the model's node
// IDs and by the [ContentHash] of the program's sources: per fragment its
// statistics ([FragmentStats]: executions, mean, deviation, extremes, error
// bound), per loop timed whole its trip counts and balance ([LoopStats],
// with each rank's trip sequence, [RankTrips], where the bound is opaque),
// per opaque decision its outcomes per rank ([DecisionStats],
// [RankOutcomes]), and what a run at a second np recorded of those
// replayed values ([Replay], whose [Trend] between the two records the
// interpreter follows at other np). Package estimator writes it; interp
// reads it.
//
// A profile is a file a user may copy from another machine, edit or
// truncate, so [Read] checks it before anyone uses it: the format and
// version, unknown fields, and every value the model would use
// ([File.Validate], errors naming the JSON field: fragments[3].mean_ps).
// [File.Check] refuses a profile of another package or of other sources
// (a stale one), and [File.CheckNodes] one that times nodes the model does
// not have. [File.CheckDisturbance] tells a measurement that the machine's
// other load disturbed: used, loudly, but not kept.
//
// A [Cache] keeps the profiles that run and scale measure when no profile
// is given, in the user's cache directory, keyed by package, content hash,
// ranks, arguments and the version of the timing pass ([Key]). A
// measurement not to keep (disturbed, or taken under load) is never
// cached.
//
// The JSON encoding is part of the format: field names, order and
// omissions stay as they are, so profiles written by earlier versions of
// predict keep loading and a profile written now reads the same in them.
package profile
