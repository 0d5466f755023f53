// This file defines the eager limit a calibration's runtime runs with:
// the one commlib.Main gives a program here (-eager, COMMLIB_EAGER_LIMIT,
// else commlib.DefaultEagerLimit), which the in-process calibration
// configures and the MPI tester reads as commlib.Main does.

package estimator

import (
	"flag"
	"fmt"
	"os"
	"strconv"

	"github.com/predict-tools/predict/commlib"
)

// inProcessEagerLimit is the eager limit of a program that commlib.Main
// runs in-process here, as commlib.Config.EagerLimit: COMMLIB_EAGER_LIMIT
// (0: every standard send rendezvous, −1 here), else 0 (the default).
func inProcessEagerLimit() (int, error) {
	v := os.Getenv("COMMLIB_EAGER_LIMIT")
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("COMMLIB_EAGER_LIMIT=%q: want a number of bytes, 0 or more", v)
	}
	if n == 0 {
		return -1, nil
	}
	return n, nil
}

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

// commandLineEagerLimit is the eager limit commlib.Main configures from
// fs (its flags are on flag.CommandLine), as commlib.Config.EagerLimit:
// -eager when given (0: every standard send rendezvous, −1 here), else
// inProcessEagerLimit.
func commandLineEagerLimit(fs *flag.FlagSet) (int, error) {
	set := false
	if fs.Parsed() {
		fs.Visit(func(f *flag.Flag) { set = set || f.Name == "eager" })
	}
	if !set {
		return inProcessEagerLimit()
	}
	n, ok := fs.Lookup("eager").Value.(flag.Getter).Get().(int)
	switch {
	case !ok || n < 0:
		return 0, fmt.Errorf("-eager %v: want a number of bytes, 0 or more", fs.Lookup("eager").Value)
	case n == 0:
		return -1, nil
	}
	return n, nil
}

// runtimeLimit is the runtime's eager limit of a commlib.Config.EagerLimit:
// the default for 0, −1 for none.
func runtimeLimit(config int) int64 {
	if config == 0 {
		return commlib.DefaultEagerLimit
	}
	return int64(config)
}
