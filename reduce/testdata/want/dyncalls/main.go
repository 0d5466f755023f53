// Command dyncalls calls through function and interface values: a kernel
// and a shape drawn at random (their targets the model does not have:
// sealed, each call timed whole) and
// the ones the model must follow: a kernel chosen by a flag (computed),
// one drawn at random that communicates and one whose result bounds a
// loop. A drawn call that may be a function also called directly is
// sealed at its site only: its functions stay the model's.
package main

import (
	"flag"
	"math/rand"

	"github.com/predict-tools/predict/commlib"
)

var pick = flag.Int("pick", 0, "the kernel the flag chooses")

// scale and shift are the drawn kernels: sealed, never entered. (The
// model's candidates for a call through a value are the functions of its
// type taken as values: a kernel of the type of twice, also called
// directly, would not be sealed.)
func scale(v []float64, a float64) { // want sealedfn:"function or interface value"
	for i := range v { // want collapse:"never run" sealed
		v[i] *= a
	}
}

func shift(v []float64, a float64) { // want sealedfn:"function or interface value"
	for i := 0; i < len(v); i += 16 { // want collapse:"never run" sealed
		v[i] += a
	}
}

// square and cube are chosen by the flag: computed, followed.
func square(v []float64) {
	for i := range v { // want collapse:"counted" sealed
		v[i] *= v[i]
	}
}

func cube(v []float64) {
	for i := range v { // want collapse:"counted" sealed
		v[i] *= v[i] * v[i]
	}
}

// send and keep are drawn, and send communicates: followed.
func send(c *commlib.Comm, v []float64) { c.Send(v[:1], commlib.ProcNull, 0) }

func keep(c *commlib.Comm, v []float64) {}

// first and last are drawn, and their result bounds a loop: followed.
func first(v []float64) int { return len(v) / 4 }

func last(v []float64) int { return len(v) / 2 }

// twice is drawn, and also called directly: followed where called
// directly, and the drawn call is sealed alone (its functions stay the
// model's).
func twice(v []float64) {
	for i := range v { // want collapse:"counted" sealed
		v[i] *= 2
	}
}

func halve(v []float64) {
	for i := range v { // want collapse:"counted" sealed
		v[i] /= 2
	}
}

// shape is an interface whose value is drawn: its methods are sealed.
type shape interface{ fill(v []float64) }

type stripes struct{ every int }

type ramp struct{ slope float64 }

func (s stripes) fill(v []float64) { // want sealedfn:"interface value"
	for i := 0; i < len(v); i += s.every { // want collapse:"never run"
		v[i] = 1
	}
}

func (r ramp) fill(v []float64) { // want sealedfn:"interface value"
	for i := range v { // want collapse:"never run" sealed
		v[i] = r.slope * float64(i)
	}
}

// syncer is an interface that *commlib.Comm implements too: a call
// through a value of it drawn at random may communicate, so it is not
// sealed (the model needs the value). The reduction of this call through
// an interface to commlib, its receiver opaque, stopped with a nil
// dereference before (opaqueArg took the callee from a static call). The
// program is only reduced, never run: its ranks draw apart and may meet
// the Barrier alone.
type syncer interface{ Barrier() }

type idle struct{}

func (idle) Barrier() {}

func main() {
	commlib.Main(func(c *commlib.Comm) {
		r := rand.New(rand.NewSource(int64(c.Rank())))
		v := make([]float64, 1<<12)
		drawn := []func([]float64, float64){scale, shift}
		for range 100 { // want collapse:"counted"
			k := drawn[r.Intn(2)]
			k(v, 1.0001) // want sealedcall
		}
		chosen := []func([]float64){square, cube}[*pick%2]
		chosen(v)
		comm := []func(*commlib.Comm, []float64){send, keep}[r.Intn(2)]
		comm(c, v) // want opaque:"random numbers"
		bound := []func([]float64) int{first, last}[r.Intn(2)]
		for i := 0; i < bound(v); i++ { // want opaque:"random numbers" iterate
			v[i]--
		}
		both := []func([]float64){twice, halve}[r.Intn(2)]
		both(v) // want sealedcall
		twice(v)
		var s shape = []shape{stripes{3}, ramp{0.5}}[r.Intn(2)]
		s.fill(v) // want sealedcall
		var sy syncer = []syncer{c, idle{}}[r.Intn(2)]
		sy.Barrier() // want opaque:"random numbers"
	})
}
