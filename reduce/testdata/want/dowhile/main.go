// Command dowhile fills and scans buffers with loops tested at the bottom
// ("for { ...; if done { break } }") and loops without a test, as ports of
// C code write them.
package main

import (
	"flag"

	"github.com/predict-tools/predict/commlib"
)

var n = flag.Int("n", 1000, "buffer length")

// fill is a do-while of one block: its bound is computed in its header.
func fill(xs []float64) {
	i := 0
	for { // want collapse:"counted" sealed trips:"1 + max(0, len(xs) - 1)"
		xs[i] = 1
		i++
		if i >= len(xs) {
			break
		}
	}
}

// fillEven is a do-while whose test is in a block of its own: its bound,
// len(xs), does not change in it, and nothing inside it is kept.
func fillEven(xs []float64) {
	i := 0
	for { // want collapse:"counted" sealed trips:"1 + max(0, len(xs) - 1)"
		if i%2 == 0 {
			xs[i] = 1
		}
		i++
		if i >= len(xs) {
			break
		}
	}
}

// share deals total items over the ranks: the counts are kept (they are
// message lengths), so it iterates whatever its bound.
func share(counts []int, total int) {
	r := 0
	for { // want iterate:"it has effects the model keeps" source:"counted" trips:"1 + max(0, len(counts) - 1)"
		counts[r] = total / len(counts)
		if r < total%len(counts) { // want computed
			counts[r]++
		}
		r++
		if r >= len(counts) {
			break
		}
	}
}

// search returns where it stops: its trips are not a formula, and the
// index it computes is used after it.
func search(xs []int) int {
	for i := 0; ; i++ { // want iterate:"a value it computes is used after it" source:"replayed"
		if xs[i] == 0 { // want computed
			return i
		}
	}
}

// settle spins until a moment: the clock is read in the bottom test, which
// the plan does not take for a clock loop (only a header's test is); its
// trips are replayed.
func settle(end float64, xs []float64) {
	for { // want collapse:"replayed" source:"replayed"
		xs[0]++
		if commlib.Wtime() >= end {
			break
		}
	}
}

// churn runs until the program ends: no test, no trip count.
func churn(xs []int) {
	for i := 0; ; i++ { // want iterate:"no trip count"
		xs[i%len(xs)]++
	}
}

func main() {
	commlib.Main(func(c *commlib.Comm) {
		buf := make([]float64, *n) // want shape:"make([]float64, *n)"
		fill(buf)
		fillEven(buf)
		settle(commlib.Wtime()+0.001, buf)
		counts := make([]int, c.Size())
		share(counts, *n)
		displs := make([]int, c.Size())
		for r := 1; r < c.Size(); r++ { // want iterate:"effects the model keeps"
			displs[r] = displs[r-1] + counts[r-1]
		}
		all := make([]float64, *n) // want shape:"make([]float64, *n)"
		c.Allgatherv(buf[:counts[c.Rank()]], all, counts, displs)
		ids := make([]int, c.Size()+1)
		ids[c.Size()] = 0
		if search(ids) > c.Size() { // want computed
			churn(ids)
		}
	})
}
