// Appendshape builds, every step, a message of -n values by append (the
// way agent codes collect the particles that leave) and sends it to the
// next rank with Sendrecv: the length of the appended slice sizes the
// messages, its values (from the rank's bulk data) are data no decision
// reads. It checks the sum of what it received.
package main

import (
	"flag"
	"fmt"

	"github.com/predict-tools/predict/commlib"
)

var n = flag.Int("n", 1000, "values appended per step")

const steps = 10

func main() {
	commlib.Main(func(c *commlib.Comm) {
		right, left := (c.Rank()+1)%c.Size(), (c.Rank()+c.Size()-1)%c.Size()
		data := make([]float64, *n) // the rank's bulk data
		for i := range data {
			data[i] = float64(i)
		}
		var sum float64
		for step := range steps {
			var out []float64
			for i := range *n {
				out = append(out, data[i]+float64(step))
			}
			in := make([]float64, len(out)) // every rank appends as many
			c.Sendrecv(out, right, 1, in, left, 1)
			for _, v := range in {
				sum += v
			}
		}
		// Σ_step Σ_i (i + step) = steps·n(n−1)/2 + n·steps(steps−1)/2
		m := float64(*n)
		if want := steps*m*(m-1)/2 + m*steps*(steps-1)/2; sum != want {
			c.Abort(fmt.Errorf("received values sum to %g, want %g", sum, want))
		}
		if c.Rank() == 0 {
			fmt.Println("checksum:", sum)
		}
	})
}
