// Flagkinds defines a flag of every plain kind of package flag, in both
// forms (flag.Uint64 and flag.Uint64Var, ...; one into a struct's field),
// and runs as many barriers as their values add up to, so that a flag the
// model reads wrong changes the predicted time. It checks the count
// against -want.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/predict-tools/predict/commlib"
)

var (
	seed  = flag.Uint64("seed", 1, "a uint64 flag")
	u     uint
	u64   uint64
	i64   int64
	f64   float64
	dur   time.Duration
	name  string
	on    bool
	extra = flag.Int("extra", 0, "barriers added")
	want  = flag.Int("want", 8, "the barriers the flags add up to")
)

type config struct{ reps int64 }

func main() {
	var cfg config
	flag.UintVar(&u, "u", 1, "a uint flag")
	flag.Uint64Var(&u64, "u64", 1, "a uint64 flag")
	flag.Int64Var(&i64, "i64", 1, "an int64 flag")
	flag.Float64Var(&f64, "f64", 1, "a float64 flag")
	flag.DurationVar(&dur, "dur", time.Millisecond, "a duration flag")
	flag.StringVar(&name, "name", "x", "a string flag")
	flag.BoolVar(&on, "on", false, "a bool flag")
	flag.Int64Var(&cfg.reps, "reps", 1, "an int64 flag in a struct's field")
	flag.Parse()
	n := int(*seed) + int(u) + int(u64) + int(i64) + int(f64) + int(dur/time.Millisecond) + len(name) + *extra + int(cfg.reps) + flag.NArg()
	if on {
		n++
	}
	commlib.Main(func(c *commlib.Comm) {
		for range n {
			c.Barrier()
		}
		if n != *want {
			fmt.Fprintf(os.Stderr, "flagkinds: %d barriers, want %d\n", n, *want)
			os.Exit(1)
		}
		if c.Rank() == 0 {
			fmt.Printf("flagkinds: %d barriers on %d ranks, ok\n", n, c.Size())
		}
	})
}
