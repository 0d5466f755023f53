// Command knn finds each query point's nearest reference point with a k-d
// tree, the way such a search is usually written: every rank builds the
// tree of all the reference points (recursively, splitting at the median
// along the wider axis by a quickselect), then answers its block of the
// queries by a recursive descent that visits the far side of a split only
// when the best distance so far crosses it.
//
// Communication pattern: none while building and searching; the sum of
// the distances and the count of queries whose nearest point lies in
// their own quadrant are summed with Allreduce, and the slowest rank's
// search time is found with a max Allreduce.
//
// Classes (reference points, queries): S 2^12, 2^12; W 2^17, 2^18;
// A 2^19, 2^21; B 2^21, 2^24; C 2^23, 2^26. The points are a hash of
// their index, so the answers do not depend on np; the checksum is the
// distance sum to 9 significant digits and the quadrant count.
package main

import (
	"flag"
	"fmt"
	"math"

	"github.com/predict-tools/predict/commlib"
	"github.com/predict-tools/predict/testprogs/internal/progutil"
)

var class = flag.String("class", "S", "problem class: S, W, A, B or C")

var (
	classRefs    = []int{1 << 12, 1 << 17, 1 << 19, 1 << 21, 1 << 23}
	classQueries = []int{1 << 12, 1 << 18, 1 << 21, 1 << 24, 1 << 26}
)

// point is a point of the unit square.
type point struct{ x, y float64 }

// at is point i of a sequence seeded by seed.
func at(seed, i uint64) point {
	z := (i + seed) * 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return point{float64(z&0xffffffff) / (1 << 32), float64(z>>32) / (1 << 32)}
}

// node is a node of the k-d tree: a leaf holds one point.
type node struct {
	p           point
	axis        int // 0: x, 1: y
	left, right *node
}

func coord(p point, axis int) float64 {
	if axis == 0 {
		return p.x
	}
	return p.y
}

// selectK reorders ps so that ps[k] is the k-th smallest along axis, the
// smaller before it and the larger after it (Hoare's quickselect).
func selectK(ps []point, k, axis int) {
	lo, hi := 0, len(ps)-1
	for lo < hi {
		pivot := coord(ps[(lo+hi)/2], axis)
		i, j := lo, hi
		for i <= j {
			for coord(ps[i], axis) < pivot {
				i++
			}
			for coord(ps[j], axis) > pivot {
				j--
			}
			if i <= j {
				ps[i], ps[j] = ps[j], ps[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return
		}
	}
}

// build makes the tree of ps (which it reorders), splitting along the
// wider side of their bounding box.
func build(ps []point) *node {
	if len(ps) == 0 {
		return nil
	}
	minX, maxX, minY, maxY := ps[0].x, ps[0].x, ps[0].y, ps[0].y
	for _, p := range ps[1:] {
		minX, maxX = math.Min(minX, p.x), math.Max(maxX, p.x)
		minY, maxY = math.Min(minY, p.y), math.Max(maxY, p.y)
	}
	axis := 0
	if maxY-minY > maxX-minX {
		axis = 1
	}
	m := len(ps) / 2
	selectK(ps, m, axis)
	return &node{p: ps[m], axis: axis, left: build(ps[:m]), right: build(ps[m+1:])}
}

// nearest returns the point of t nearest q, if nearer than best (squared
// distance d2).
func nearest(t *node, q point, best point, d2 float64) (point, float64) {
	if t == nil {
		return best, d2
	}
	dx, dy := t.p.x-q.x, t.p.y-q.y
	if d := dx*dx + dy*dy; d < d2 {
		best, d2 = t.p, d
	}
	diff := coord(q, t.axis) - coord(t.p, t.axis)
	near, far := t.left, t.right
	if diff > 0 {
		near, far = t.right, t.left
	}
	best, d2 = nearest(near, q, best, d2)
	if diff*diff < d2 {
		best, d2 = nearest(far, q, best, d2)
	}
	return best, d2
}

// quadrant is the quadrant of the unit square p lies in.
func quadrant(p point) int {
	q := 0
	if p.x >= 0.5 {
		q++
	}
	if p.y >= 0.5 {
		q += 2
	}
	return q
}

func main() {
	commlib.Main(func(c *commlib.Comm) {
		ci, err := progutil.ClassIndex(*class)
		if err != nil {
			c.Abort(err)
		}
		nRef, nQ := classRefs[ci], classQueries[ci]
		rank, np := c.Rank(), c.Size()
		if np > nQ {
			c.Abort(fmt.Errorf("np=%d: want at most %d ranks (a query each)", np, nQ))
		}
		refs := make([]point, nRef)
		for i := range refs {
			refs[i] = at(1, uint64(i))
		}
		start := commlib.Wtime()
		root := build(refs)
		first, count := progutil.Block(nQ, rank, np)
		sum, same := 0.0, int64(0)
		for i := first; i < first+count; i++ {
			q := at(2, uint64(i))
			p, d2 := nearest(root, q, point{}, math.Inf(1))
			sum += math.Sqrt(d2)
			if quadrant(p) == quadrant(q) {
				same++
			}
		}
		elapsed := progutil.Elapsed(start)

		totals := []float64{sum, float64(same)}
		c.Allreduce(totals, totals, commlib.Sum)
		slowest := []float64{elapsed}
		c.Allreduce(slowest, slowest, commlib.Max)
		progutil.Printf(c, "knn class %s: %d reference points, %d queries, np=%d, time %.3f s\n", *class, nRef, nQ, np, slowest[0])
		progutil.Checksum(c, fmt.Sprintf("distance=%s same-quadrant=%d", progutil.RoundSig(totals[0], 9), int64(totals[1])))
	})
}
