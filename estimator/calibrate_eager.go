// This file defines the eager limit a calibration's runtime runs with:
// the one commlib.Main gives a program here (eagerlimit.From: -eager,
// COMMLIB_EAGER_LIMIT, else commlib.DefaultEagerLimit), which the in-process
// calibration configures and the MPI tester reads as commlib.Main does.

package estimator

import "github.com/predict-tools/predict/commlib"

// eagerS is the machine's S of the runtime's eager limit: 0 for none
// (every message rendezvous), the default where it was not recorded.
func (cal *Calibration) eagerS() int64 {
	switch {
	case cal.EagerLimit < 0:
		return 0
	case cal.EagerLimit == 0:
		return commlib.DefaultEagerLimit
	}
	return cal.EagerLimit
}

// runtimeLimit is the runtime's eager limit of a commlib.Config.EagerLimit:
// the default for 0, −1 for none.
func runtimeLimit(config int) int64 {
	if config == 0 {
		return commlib.DefaultEagerLimit
	}
	return int64(config)
}
