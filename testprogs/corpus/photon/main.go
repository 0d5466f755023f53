// Command photon follows particles through a slab shield by Monte Carlo,
// the way a transport code is often organised: a cross-section table by
// energy (data), and an interaction handler per kind behind an interface,
// chosen at each collision by where a random number falls among the
// kinds' cross sections.
//
// Each particle enters the slab at x = 0 moving inwards with the source
// energy. It flies an exponential distance (the total cross section at
// its energy), then either leaves the slab (transmitted or reflected) or
// collides: it is captured, scattered isotropically with some energy
// loss, or scattered forward with little. Below a cut-off energy it is
// absorbed.
//
// Communication pattern: none while the particles fly; each rank follows
// its block of the particles, then the tallies are summed with Allreduce
// and the collision count per rank is gathered on rank 0 (Gather) to
// report the imbalance.
//
// Classes (particles, energy bins): S 2^12, 2^10; W 2^18, 2^14; A 2^21,
// 2^16; B 2^24, 2^18; C 2^27, 2^20. Each particle's random numbers come
// from its own generator, seeded by its index, so the tallies do not
// depend on np; the checksum is the four tallies and the collision count.
package main

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/testprogs/internal/progutil"
)

var (
	class     = flag.String("class", "S", "problem class: S, W, A, B or C")
	thickness = flag.Float64("thickness", 8, "slab thickness in mean free paths at the source energy")
)

var (
	classN    = []int{1 << 12, 1 << 18, 1 << 21, 1 << 24, 1 << 27}
	classBins = []int{1 << 10, 1 << 14, 1 << 16, 1 << 18, 1 << 20}
)

const (
	sourceE = 1.0  // source energy (arbitrary units)
	cutoffE = 1e-3 // below it a particle is absorbed
)

// particle is a particle in flight.
type particle struct {
	x, mu, e float64 // depth, direction cosine, energy
	alive    bool
}

// tally counts how particles end, and their collisions.
type tally struct {
	transmitted, reflected, captured, cut, collisions int64
}

// xsTable holds the cross sections by energy bin: capture, isotropic and
// forward scattering.
type xsTable struct {
	capture, iso, fwd []float64
}

// bin is the energy bin of e (logarithmic from cutoffE to sourceE).
func (t *xsTable) bin(e float64) int {
	n := len(t.capture)
	b := int(float64(n) * math.Log(e/cutoffE) / math.Log(sourceE/cutoffE))
	return min(max(b, 0), n-1)
}

// interaction is what a collision does to a particle.
type interaction interface {
	act(p *particle, r *rand.Rand, t *tally)
}

type capture struct{}

type isotropic struct{ loss float64 }

type forward struct{ loss, spread float64 }

func (capture) act(p *particle, _ *rand.Rand, t *tally) {
	p.alive = false
	t.captured++
}

func (s isotropic) act(p *particle, r *rand.Rand, t *tally) {
	p.mu = 2*r.Float64() - 1
	p.e *= 1 - s.loss*r.Float64()
}

func (f forward) act(p *particle, r *rand.Rand, t *tally) {
	p.mu = math.Max(-1, math.Min(1, p.mu+f.spread*(2*r.Float64()-1)))
	p.e *= 1 - f.loss*r.Float64()
}

// follow tracks particle i to its end.
func follow(i int, xs *xsTable, kinds [3]interaction, t *tally) {
	r := rand.New(rand.NewPCG(0x5eed, uint64(i)))
	p := particle{x: 0, mu: 1, e: sourceE, alive: true}
	for p.alive {
		b := xs.bin(p.e)
		sc, si, sf := xs.capture[b], xs.iso[b], xs.fwd[b]
		total := sc + si + sf
		p.x += p.mu * -math.Log(1-r.Float64()) / total
		switch {
		case p.x >= *thickness:
			t.transmitted++
			return
		case p.x < 0:
			t.reflected++
			return
		}
		t.collisions++
		u := r.Float64() * total
		k := 2
		if u < sc {
			k = 0
		} else if u < sc+si {
			k = 1
		}
		kinds[k].act(&p, r, t)
		if p.alive && p.e < cutoffE {
			p.alive = false
			t.cut++
		}
	}
}

func main() {
	commlib.Main(func(c *commlib.Comm) {
		ci, err := progutil.ClassIndex(*class)
		if err != nil {
			c.Abort(err)
		}
		if !(*thickness > 0) {
			c.Abort(fmt.Errorf("-thickness %g: want a positive thickness", *thickness))
		}
		n, bins := classN[ci], classBins[ci]
		rank, np := c.Rank(), c.Size()
		// The cross sections: capture grows as the energy falls (1/v),
		// scattering is flat with a resonance band.
		xs := &xsTable{capture: make([]float64, bins), iso: make([]float64, bins), fwd: make([]float64, bins)}
		for b := range bins {
			e := cutoffE * math.Pow(sourceE/cutoffE, (float64(b)+0.5)/float64(bins))
			xs.capture[b] = 0.05 / math.Sqrt(e)
			xs.iso[b] = 0.6
			xs.fwd[b] = 0.4 + 0.5*math.Exp(-math.Pow((math.Log10(e)+1.5)/0.1, 2))
		}
		kinds := [3]interaction{capture{}, isotropic{loss: 0.5}, forward{loss: 0.1, spread: 0.2}}

		first, count := progutil.Block(n, rank, np)
		start := commlib.Wtime()
		var t tally
		for i := first; i < first+count; i++ {
			follow(i, xs, kinds, &t)
		}
		elapsed := progutil.Elapsed(start)

		local := []int64{t.transmitted, t.reflected, t.captured, t.cut, t.collisions}
		sum := make([]int64, len(local))
		c.Allreduce(local, sum, commlib.Sum)
		per := make([]int64, np)
		c.Gather([]int64{t.collisions}, per, 0)
		most := int64(0)
		for _, k := range per {
			most = max(most, k)
		}
		progutil.Printf(c, "photon class %s: %d particles, np=%d, time %.3f s, collisions %d (busiest rank %.2f× the mean)\n",
			*class, n, np, elapsed, sum[4], float64(most)*float64(np)/float64(max(sum[4], 1)))
		progutil.Checksum(c, fmt.Sprintf("transmitted=%d reflected=%d captured=%d cut=%d collisions=%d", sum[0], sum[1], sum[2], sum[3], sum[4]))
	})
}
