// Package validate compares predictions with real runs: predict validate.
//
// [Run] builds the program once without probes, runs it for real K times at
// each process count (the process's time and the program's own span, from
// its first rank's start to its last rank's end, as the timing pass measures
// it), predicts the same process counts with the same profile and machine,
// and reports per np the measured time (min, median, spread), the predicted
// time and the error.
//
// Where the difference is comes from one more run per np with commlib's
// trace, set against the modeled trace of the prediction ([Attribute]):
// both are cut the same way into regions, per rank, the time inside the
// calls at each call site and the compute between two consecutive calls
// (from the call at one site to the next call, at another or the same
// site), so that the measured and the charged time of each region can be
// compared. A profile whose fragments read half their time shows as −50 %
// in the compute regions that hold them.
//
// The report states what limits its own reading: the profile's coverage
// (the time no fragment measured), its probed/plain disturbance and error
// bound, and whether the real runs vary more than the error they report.
package validate
