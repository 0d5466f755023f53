// Command opaque is a Monte Carlo estimate of π with a convergence test:
// its decisions on random numbers, on data received in messages, on what
// it reads from a file and the check of its result are opaque (their
// outcomes come from the profile); those on the problem size and the rank
// are computed.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"math/rand"
	"os"

	"github.com/predict-tools/predict/commlib"
)

var (
	samples = flag.Int("samples", 1<<14, "samples per round and rank")
	rounds  = flag.Int("rounds", 8, "at most this many rounds")
	tol     = flag.Float64("tol", 1e-3, "stop when the estimate moves less")
	seeds   = flag.String("seeds", "", "a file whose first line is a seed")
)

// seed reads a seed from a file, if any: what it reads is input.
func seed(path string) int64 {
	if path == "" { // want computed
		return 1
	}
	f, err := os.Open(path)
	if err != nil { // want opaque:"input/output"
		return 1
	}
	defer f.Close()
	var s int64
	if _, err := fmt.Fscan(bufio.NewReader(f), &s); err != nil { // want opaque:"input/output"
		return 1
	}
	return s
}

// hits throws darts: the count of hits follows the outcomes of a branch
// on random numbers, which the profile replays.
func hits(r *rand.Rand, n int) int {
	h := 0
	for i := 0; i < n; i++ { // want iterate:"decides what the model keeps" trips:"max(0, n)"
		x, y := r.Float64(), r.Float64()
		if x*x+y*y <= 1 { // want opaque:"random numbers"
			h++
		}
	}
	return h
}

// spread is the mean distance of the darts from the centre: a value of
// random numbers.
func spread(r *rand.Rand, n int) float64 {
	d := 0.0
	for i := 0; i < n; i++ { // want collapse:"counted" sealed trips:"max(0, n)"
		x, y := r.Float64()-0.5, r.Float64()-0.5
		d += math.Sqrt(x*x + y*y)
	}
	return d / float64(n)
}

// drain empties a work queue that grows when a random draw says so. No
// data flows from the draws into the queue, but which way they went
// decides its length (an implicit flow): the loop's test is opaque, its
// trips are replayed, and nothing of its body is kept for it.
func drain(r *rand.Rand) {
	queue := []int{0}
	for len(queue) > 0 { // want collapse:"replayed" opaque:"how the opaque decision at"
		u := queue[0]
		queue = queue[1:]
		if r.Float64() < 0.45 { // want opaque:"random numbers"
			queue = append(queue, u+1, u+2)
		}
	}
}

// settle repeats until a draw sets a flag: the flag's test is opaque.
func settle(r *rand.Rand) {
	done := false
	for !done { // want collapse:"replayed" opaque:"how the opaque decision at"
		if r.Float64() < 0.1 { // want opaque:"random numbers"
			done = true
		}
	}
}

// neighbour is a peer and a buffer of a random length.
type neighbour struct {
	rank int
	buf  []float64
}

// exchange sends to the neighbours of a list built by append: what its
// elements hold is what was appended, a buffer of a random length (and,
// the struct being tainted as a whole, its peer too: the timing pass
// records both).
func exchange(c *commlib.Comm, r *rand.Rand) {
	var nbs []neighbour
	for p := range c.Size() { // want iterate:"effects the model keeps"
		nbs = append(nbs, neighbour{rank: p, buf: make([]float64, 1+r.Intn(8))}) // want shape:"append"
	}
	for _, nb := range nbs { // want iterate:"it calls Comm.Send"
		c.Send(nb.buf, nb.rank, 0) // want opaque:"random numbers" opaque:"random numbers"
	}
}

// accepted keeps, through a closure, the items a draw accepts: the model
// runs the loop calling it iteration by iteration and replays the
// closure's decision at each call (the timing pass times the loop whole,
// and records the closure's decisions alone).
func accepted(r *rand.Rand, items []int) int {
	var next []int
	visit := func(v int) {
		if r.Float64() < 0.5 { // want opaque:"random numbers"
			next = append(next, v) // want shape:"append"
		}
	}
	for _, v := range items { // want iterate:"effects the model keeps" trips:"max(0, len(items))"
		visit(v)
	}
	return len(next)
}

// owners gives items to buckets, moving to the next bucket where a draw
// says so: the bucket index is used after the inner loop (stored, and
// carried into the next item), and which way the draws went decides it
// (an implicit flow). Computed from replayed draws it would hold at the
// profile's np only, so it is opaque: what the owners decide is recorded,
// and the nest is timed whole.
func owners(r *rand.Rand, n int) []int {
	owner := make([]int, 8)
	b := 0
	for i := range owner { // want collapse:"counted" sealed trips:"max(0, len(owner))"
		owner[i] = b
		for b < n && r.Float64() < 0.5 { // want iterate:"left from several places"
			b++
		}
	}
	return owner
}

func main() {
	commlib.Main(func(c *commlib.Comm) {
		r := rand.New(newLCG(seed(*seeds) + int64(c.Rank())))
		drain(r)
		settle(r)
		exchange(c, r)
		if accepted(r, []int{1, 2, 3}) > 1 { // want computed
			c.Barrier()
		}
		if owners(r, 4)[7] > 2 { // want opaque:"how the opaque decision at"
			c.Barrier()
		}
		if hits(r, 64) == 0 { // want computed
			fmt.Fprintln(os.Stderr, "no hit in 64 darts: a bad generator?")
		}
		prev := 0.0
		total, dist := make([]int, 1), make([]float64, 1)
		for k := 0; k < *rounds; k++ { // want iterate:"it calls Comm.Allreduce"
			// An Allreduce's members receive what any Allreduce call
			// sends: the spread's random numbers make the hits received
			// opaque too.
			c.Allreduce([]int{hits(r, *samples)}, total, commlib.Sum)
			pi := 4 * float64(total[0]) / float64((k+1)**samples*c.Size())
			if math.Abs(pi-prev) < *tol { // want opaque:"random numbers ((*math/rand.Rand).Float64 at"
				break
			}
			prev = pi
			// The spread is random data, received by every rank.
			c.Allreduce([]float64{spread(r, *samples)}, dist, commlib.Sum)
			if dist[0] > 0.4*float64(c.Size()) { // want opaque:"communicated"
				break
			}
		}
		// A batch of a random length (the same on every rank, drawn from
		// the common seed): the length of the message is opaque, whether
		// the buffer is made or sliced to it.
		batch := 1 + rand.New(newLCG(seed(*seeds))).Intn(16)
		c.Bcast(make([]float64, 16)[:batch], 0) // want opaque:"random numbers"
		c.Bcast(make([]float64, batch), 0)      // want opaque:"random numbers"
		// A length received in a collective is what that collective's
		// calls send: here random (what the Bcasts send).
		n := []int{batch}
		c.Bcast(n, 0)
		c.Bcast(make([]float64, n[0]), 0) // want opaque:"random numbers"

		if c.Rank() == 0 { // want computed
			if d := dist[0] / float64(c.Size()); d < 0.3 || d > 0.5 { // want opaque:"a check of the program" opaque:"a check of the program"
				c.Abort(fmt.Errorf("mean distance %g is far from 0.38", d))
			}
		}
	})
}

// lcg is a source of the program's own, a linear congruential generator:
// the model does not run it, so what a generator over it draws is random
// numbers to the model (a generator over rand.NewSource it would compute).
type lcg struct{ x uint64 }

func newLCG(seed int64) *lcg { return &lcg{x: uint64(seed)} }

func (s *lcg) Int63() int64 {
	s.x = s.x*6364136223846793005 + 1442695040888963407
	return int64(s.x >> 1)
}

func (s *lcg) Seed(seed int64) { s.x = uint64(seed) }
