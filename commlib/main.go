// This file defines the entry point of SPMD programs and the clock.

package commlib

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/predict-tools/predict/commlib/eagerlimit"
)

// Flags every program that calls Main accepts. They are registered when the
// package is initialized, so a program may call flag.Parse itself.
var (
	npFlag    = flag.Int("np", 0, "number of ranks (default: $COMMLIB_NP, else 1)")
	traceFlag = flag.String("trace", "", "write the event trace of the run to `FILE` (default: $COMMLIB_TRACE)")
	eagerFlag = flag.Int("eager", 0, "eager limit in `BYTES`: larger standard sends wait for the receiver (default: $COMMLIB_EAGER_LIMIT, else 65536)")
)

// Main runs body once per rank and exits the process with status 1 if the
// run fails, after printing the failure. The rank count comes from -np or
// the environment variable COMMLIB_NP; -trace (COMMLIB_TRACE) writes the
// event trace; -eager (COMMLIB_EAGER_LIMIT) sets the eager limit.
func Main(body func(c *Comm)) {
	if !flag.Parsed() {
		flag.Parse()
	}
	cfg, err := configFromFlags()
	if err != nil {
		fmt.Fprintf(os.Stderr, "commlib: %v\n", err)
		os.Exit(2)
	}
	if err := runMain(cfg, body); err != nil {
		fmt.Fprintf(os.Stderr, "commlib: %v\n", err)
		os.Exit(1)
	}
}

// runMain runs the ranks of Main: RunWith, or the MPI runtime's runner in
// a build with the mpi tag.
var runMain = RunWith

// configFromFlags builds the run configuration from flags and environment.
func configFromFlags() (Config, error) {
	cfg := Config{NP: *npFlag, TraceFile: *traceFlag, EagerLimit: *eagerFlag, Program: os.Args[0], Args: os.Args[1:]}
	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["np"] {
		if cfg.NP < 1 {
			return cfg, fmt.Errorf("-np %d: want at least 1 rank", cfg.NP)
		}
	} else if v := os.Getenv("COMMLIB_NP"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return cfg, fmt.Errorf("COMMLIB_NP=%q: want a number of ranks, at least 1", v)
		}
		cfg.NP = n
	} else {
		cfg.NP = 1
	}
	if !set["trace"] {
		cfg.TraceFile = os.Getenv("COMMLIB_TRACE")
	}
	if v := os.Getenv("COMMLIB_SPIN_WAIT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return cfg, fmt.Errorf("COMMLIB_SPIN_WAIT=%q: want a duration such as 100us, 0 to park blocked calls at once", v)
		}
		cfg.SpinWait = d
		if d == 0 {
			cfg.SpinWait = -1
		}
	}
	switch v := os.Getenv("COMMLIB_SERIAL"); v {
	case "", "0":
	case "1":
		cfg.Serial = true
	default:
		return cfg, fmt.Errorf("COMMLIB_SERIAL=%q: want 1 (ranks and threads take turns) or 0", v)
	}
	if v := os.Getenv("COMMLIB_STREAM"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > maxStreams {
			return cfg, fmt.Errorf("COMMLIB_STREAM=%q: want a number of goroutines streaming through memory beside the ranks, 0 to %d", v, maxStreams)
		}
		cfg.Stream = n
	}
	if v := os.Getenv("COMMLIB_THREADS"); v != "" {
		if n, err := strconv.Atoi(v); err != nil || n < 1 {
			return cfg, fmt.Errorf("COMMLIB_THREADS=%q: want a number of threads per rank, at least 1", v)
		}
	}
	var err error
	cfg.EagerLimit, err = eagerlimit.From(flag.CommandLine)
	return cfg, err
}

// Threads returns the number of threads per rank for the program's pools
// and parallel regions: the environment variable COMMLIB_THREADS when set,
// else def (the program's own choice, from its flags). Programs that size
// their pools with it let a run, and the predictor's --threads, change it.
// (commlib registers no -threads flag: programs often have their own.)
func Threads(def int) int {
	if n, err := strconv.Atoi(os.Getenv("COMMLIB_THREADS")); err == nil && n > 0 {
		return n
	}
	return def
}

// Wtime returns the time in seconds since the process started, from the
// monotonic clock (MPI_Wtime under MPI). When the predictor interprets a
// program, Wtime returns the modeled time instead.
func Wtime() float64 { return clock() }
