// Command ep is the NAS Parallel Benchmarks' EP ("embarrassingly parallel")
// kernel: it generates pairs of uniform pseudo-random numbers with the NPB
// linear congruential generator (a = 5^13, modulus 2^46, seed 271828183),
// turns the pairs inside the unit circle into Gaussian deviates by the
// Marsaglia polar method, counts them in ten square annuli q[0..9] and sums
// them (sx, sy).
//
// Communication pattern: none while computing. Each rank takes a contiguous
// block of the 2^M pairs (split as evenly as possible for any np), jumps to
// its block in the global random sequence by skip-ahead, and at the end the
// counts and sums are combined on rank 0 with two Reduce calls. The result is
// the same global sequence for every np.
//
// Classes (2^M pairs): S M=24, W M=25, A M=28, B M=30, C M=32. The sums are
// verified against the NPB reference values (relative tolerance 1e-8). The
// checksum holds the exact counts and sx, sy at 10 significant digits.
package main

import (
	"flag"
	"fmt"
	"math"
	"strings"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/testprogs/internal/progutil"
)

var class = flag.String("class", "S", "problem class: S, W, A, B or C")

// classM is log2 of the number of pairs of each class.
var classM = []int{24, 25, 28, 30, 32}

// reference holds NPB's verification values of sx and sy per class.
var reference = [][2]float64{
	{-3.247834652034740e+03, -6.958407078382297e+03},
	{-2.863319731645753e+03, -6.320053679109499e+03},
	{-4.295875165629892e+03, -1.580732573678431e+04},
	{4.033815542441498e+04, -2.660669192809235e+04},
	{4.764367927995374e+04, -8.084072988043731e+04},
}

const (
	batchPairs = 1 << 16 // pairs generated per call of vranlc (NPB's 2^MK)
	annuli     = 10
	tolerance  = 1e-8
)

func main() {
	commlib.Main(func(c *commlib.Comm) {
		ci, err := progutil.ClassIndex(*class)
		if err != nil {
			c.Abort(err)
		}
		m := classM[ci]
		pairs := int64(1) << m
		lo, hi := block(pairs, c.Rank(), c.Size())

		start := commlib.Wtime()
		q, sx, sy := gaussianPairs(lo, hi)

		counts := make([]int64, annuli)
		sums := make([]float64, 2)
		c.Reduce(q, counts, commlib.Sum, 0)
		c.Reduce([]float64{sx, sy}, sums, commlib.Sum, 0)
		elapsed := progutil.Elapsed(start)

		if c.Rank() != 0 {
			return
		}
		var gc int64
		for _, n := range counts {
			gc += n
		}
		ref := reference[ci]
		progutil.Printf(c, "EP class %s: 2^%d pairs, np=%d, %d Gaussian pairs, time %.3f s\n", *class, m, c.Size(), gc, elapsed)
		progutil.Printf(c, "sx = %.15e  sy = %.15e\n", sums[0], sums[1])
		progutil.Verify(c, relErr(sums[0], ref[0]) <= tolerance && relErr(sums[1], ref[1]) <= tolerance,
			"class %s: sx = %.15e, sy = %.15e, NPB reference sx = %.15e, sy = %.15e", *class, sums[0], sums[1], ref[0], ref[1])
		progutil.Checksum(c, fmt.Sprintf("q=%s sx=%s sy=%s", joinCounts(counts),
			progutil.RoundSig(sums[0], 10), progutil.RoundSig(sums[1], 10)))
	})
}

// block returns the pairs [lo, hi) of rank out of np: the first n%np ranks
// get one pair more.
func block(n int64, rank, np int) (lo, hi int64) {
	size, extra := n/int64(np), n%int64(np)
	r := int64(rank)
	lo = r*size + min(r, extra)
	hi = lo + size
	if r < extra {
		hi++
	}
	return lo, hi
}

// gaussianPairs processes the pairs [lo, hi) of the global sequence: pair p
// uses the uniform numbers 2p+1 and 2p+2 after the seed.
func gaussianPairs(lo, hi int64) (q []int64, sx, sy float64) {
	q = make([]int64, annuli)
	x := make([]float64, 2*batchPairs)
	state := skipAhead(lcgSeed, uint64(2*lo))
	for first := lo; first < hi; first += batchPairs {
		n := min(int64(batchPairs), hi-first)
		state = vranlc(state, x[:2*n])
		for i := int64(0); i < n; i++ {
			x1 := 2*x[2*i] - 1
			x2 := 2*x[2*i+1] - 1
			t1 := x1*x1 + x2*x2
			if t1 <= 1 {
				t2 := math.Sqrt(-2 * math.Log(t1) / t1)
				t3 := x1 * t2
				t4 := x2 * t2
				l := int(math.Max(math.Abs(t3), math.Abs(t4)))
				q[l]++
				sx += t3
				sy += t4
			}
		}
	}
	return q, sx, sy
}

func relErr(v, ref float64) float64 { return math.Abs((v - ref) / ref) }

func joinCounts(q []int64) string {
	s := make([]string, len(q))
	for i, n := range q {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ",")
}
