// Command units is the interpreter's test of loops counted in units: loops
// over the ranks whose inner work shrinks as np grows, as FT's packing and
// unpacking loops do.
package main

import (
	"flag"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/predict-tools/predict/commlib"
)

var (
	part = flag.String("part", "pack", "pack, copy, alloc, segcopy, segappend, segsort, segrec, segdyn, segiface, segshared, cyclic or fill")
	n    = flag.Int("n", 4096, "problem size")
)

func main() {
	commlib.Main(func(c *commlib.Comm) {
		np := c.Size()
		out := make([]float64, *n)
		switch *part {
		case "pack":
			// np iterations of n/np² inner iterations: n/np a rank.
			for q := range np {
				for k := range *n / (np * np) { // mark:pack
					out[k] += float64(q)
				}
			}
		case "alloc":
			// A rank's share of the problem, allocated (and zeroed).
			buf := make([]float64, *n/np) // mark:alloc
			for i := range buf {
				buf[i] = 1
			}
		case "segcopy":
			// A rank's share of the problem copied in straight-line code,
			// from a slice expression and into a slice the model makes.
			dst := make([]int32, *n/np)
			part := out[:*n/np]
			copy(dst, []int32{})
			copy(part, out[np:])              // mark:segcopy
			c.Send(part, commlib.ProcNull, 0) // the model keeps their lengths
			c.Send(dst, commlib.ProcNull, 0)
		case "segappend":
			// A rank's share allocated afresh and copied by append, whose
			// contents and lengths the model drops (nothing reads them),
			// two elements appended, and four bytes of a string.
			fresh := make([]float64, *n/np) // mark:segappend
			kept := append([]float64(nil), fresh...)
			kept = append(kept, 1, 2)
			name := "partition"
			b := append([]byte(nil), name[2:6]...) // 4 bytes of a string
			_, _ = kept, b
		case "segsort":
			// A rank's share sorted by the standard library, in a segment
			// that starts with the call (a leaf of its own) and goes on
			// with an allocation of the whole problem, and sorted again
			// by sort.Sort (the slice passed as an interface) and by
			// sort.Slice (the slice a variable its closure captures);
			// slices.Contains, which the model runs itself, is not
			// counted.
			keys := make([]int, *n/np)
			c.Barrier()
			slices.Sort(keys) // mark:segsort
			idx := make([]int32, *n)
			sort.Sort(sort.IntSlice(keys))
			sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
			found := slices.Contains(keys, 3)
			_, _ = idx, found
		case "segrec":
			// A rank's share sorted by a recursion of the program's own,
			// whose course is the keys' (sealed: the model never enters
			// it), in a segment that goes on with an allocation of the
			// whole problem.
			keys := make([]int, *n/np)
			c.Barrier()
			quick(keys) // mark:segrec
			idx := make([]int32, *n)
			_ = idx
		case "segdyn":
			// A rank's share handed to a kernel drawn at random (sealed:
			// the model never follows the call), in a segment that goes on
			// with an allocation of the whole problem.
			keys := make([]int64, *n/np)
			c.Barrier()
			kernels[rand.IntN(2)](keys) // mark:segdyn
			idx := make([]int32, *n)
			_ = idx
		case "segiface":
			// segdyn's kernels as the methods of an interface value drawn
			// at random.
			keys := make([]int64, *n/np)
			c.Barrier()
			filters[rand.IntN(2)].filter(keys) // mark:segiface
			idx := make([]int32, *n)
			_ = idx
		case "segshared":
			// A kernel drawn at random, one of which is also called
			// directly: only the drawn call is sealed, the kernels stay
			// the model's.
			keys := make([]int64, *n/np)
			c.Barrier()
			shared[rand.IntN(2)](keys) // mark:segshared
			idx := make([]int32, *n)
			_ = idx
			halveAll(keys)
		case "cyclic":
			// A cyclic distribution of n items: rank r takes r, r + np,
			// …, ⌈(n − r)/np⌉ of them.
			for k := c.Rank(); k < *n; k += np { // mark:cyclic
				out[k] += 1
			}
		case "fill":
			// np runs of n/np² items each, appended to a list whose
			// length is sent: the model keeps the appends, so it runs
			// both loops (an iterated nest, not a sealed one).
			var list []int
			for q := range np {
				for range *n / (np * np) { // mark:fill
					list = append(list, q)
				}
			}
			c.Send(list, commlib.ProcNull, 0)
		case "copy":
			// np·4 copies of 64/np elements.
			src := make([]float64, *n)
			for p := range np {
				for line := range 4 { // mark:copy
					copy(out[line*64:][:64/np], src[p*64+line:][:64/np])
				}
			}
		}
	})
}

// kernels are drawn at random by part segdyn.
var kernels = []func([]int64){negate, double}

func negate(v []int64) {
	for i := range v {
		v[i] = -v[i]
	}
}

func double(v []int64) {
	for i := range v {
		v[i] *= 2
	}
}

// shared are drawn at random by part segshared, which calls halveAll
// directly too.
var shared = []func([]int64){halveAll, incAll}

func halveAll(v []int64) {
	for i := range v {
		v[i] /= 2
	}
}

func incAll(v []int64) {
	for i := range v {
		v[i]++
	}
}

// filterer is the interface part segiface draws a value of.
type filterer interface{ filter(v []int64) }

type negater struct{}

type doubler struct{}

func (negater) filter(v []int64) { negate(v) }

func (doubler) filter(v []int64) { double(v) }

var filters = []filterer{negater{}, doubler{}}

// quick sorts a in place (Hoare's partition around its middle key).
func quick(a []int) {
	if len(a) < 2 {
		return
	}
	p := a[len(a)/2]
	i, j := 0, len(a)-1
	for i <= j {
		for a[i] < p {
			i++
		}
		for a[j] > p {
			j--
		}
		if i <= j {
			a[i], a[j] = a[j], a[i]
			i++
			j--
		}
	}
	quick(a[:j+1])
	quick(a[i:])
}
