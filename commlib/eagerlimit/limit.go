package eagerlimit

import (
	"flag"
	"fmt"
	"os"
	"strconv"
)

// Env is the environment variable of the eager limit.
const Env = "COMMLIB_EAGER_LIMIT"

// From is the commlib.Config.EagerLimit that commlib.Main configures:
// fs's -eager when it was given (fs nil or unparsed: never), else
// COMMLIB_EAGER_LIMIT, else 0 (commlib.DefaultEagerLimit). A limit of 0
// bytes makes every standard send rendezvous: −1 here. commlib.Main
// passes flag.CommandLine.
func From(fs *flag.FlagSet) (int, error) {
	given := false
	if fs != nil && fs.Parsed() {
		fs.Visit(func(f *flag.Flag) { given = given || f.Name == "eager" })
	}
	if given {
		n, ok := fs.Lookup("eager").Value.(flag.Getter).Get().(int)
		switch {
		case !ok || n < 0:
			return 0, fmt.Errorf("-eager %v: want a number of bytes, 0 or more", fs.Lookup("eager").Value)
		case n == 0:
			return -1, nil // every standard send is rendezvous
		}
		return n, nil
	}
	v := os.Getenv(Env)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s=%q: want a number of bytes, 0 or more", Env, v)
	}
	if n == 0 {
		return -1, nil
	}
	return n, nil
}
