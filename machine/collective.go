// This file defines the collective algorithms and how "auto" chooses one.

package machine

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"
)

// Algorithm names a collective algorithm: a schedule of point-to-point
// steps that the interpreter runs. See the package documentation for the
// schedule each name stands for.
type Algorithm string

// The algorithms. Auto is not one: it asks Machine.CollectiveAlgorithm to
// choose by size and np.
const (
	Auto              Algorithm = "auto"
	Linear            Algorithm = "linear"
	Binomial          Algorithm = "binomial"
	RecursiveDoubling Algorithm = "recursive-doubling"
	Ring              Algorithm = "ring"
	Rabenseifner      Algorithm = "rabenseifner"
	Bruck             Algorithm = "bruck"
	Pairwise          Algorithm = "pairwise"
	ScatterAllgather  Algorithm = "scatter-allgather"
)

// algorithms lists every algorithm, in the order error messages give them.
var algorithms = []Algorithm{Linear, Binomial, RecursiveDoubling, Ring, Rabenseifner, Bruck, Pairwise, ScatterAllgather}

// applicable lists, per collective, the algorithms that implement it.
var applicable = map[string][]Algorithm{
	"barrier":    {Linear, Binomial, RecursiveDoubling, Bruck, Ring},
	"bcast":      {Linear, Binomial, Ring, ScatterAllgather},
	"reduce":     {Linear, Binomial, Rabenseifner},
	"allreduce":  {Linear, Binomial, RecursiveDoubling, Ring, Rabenseifner},
	"gather":     {Linear, Binomial},
	"gatherv":    {Linear},
	"scatter":    {Linear, Binomial},
	"scatterv":   {Linear},
	"allgather":  {Linear, RecursiveDoubling, Ring, Bruck},
	"allgatherv": {Linear, RecursiveDoubling, Ring, Bruck},
	"alltoall":   {Linear, Pairwise, Bruck},
	"alltoallv":  {Linear, Pairwise},
	"scan":       {Linear, RecursiveDoubling},
	"exscan":     {Linear, RecursiveDoubling},
}

// CollectiveNames returns the collectives a machine can choose algorithms
// for, sorted: commlib's collectives in lower case.
func CollectiveNames() []string {
	return slices.Sorted(func(yield func(string) bool) {
		for k := range applicable {
			if !yield(k) {
				return
			}
		}
	})
}

// Algorithms returns the algorithms that implement collective name (nil for
// an unknown name).
func Algorithms(name string) []Algorithm {
	return slices.Clone(applicable[strings.ToLower(name)])
}

// checkAlgorithm validates the choice a for collective name.
func checkAlgorithm(name string, a Algorithm) error {
	algs, ok := applicable[name]
	switch {
	case !ok:
		return fmt.Errorf("unknown collective %q: want one of %s", name, strings.Join(CollectiveNames(), ", "))
	case a == Auto || slices.Contains(algs, a):
		return nil
	case slices.Contains(algorithms, a):
		return fmt.Errorf("%q does not apply to %s: want auto or one of %s", a, name, joinAlgorithms(algs))
	default:
		return fmt.Errorf("%q is not an algorithm: want auto or one of %s", a, joinAlgorithms(algs))
	}
}

func joinAlgorithms(algs []Algorithm) string {
	s := make([]string, len(algs))
	for i, a := range algs {
		s[i] = string(a)
	}
	return strings.Join(s, ", ")
}

// Thresholds of the automatic choice, in bytes: MPICH's defaults (the
// MPIR_CVAR_* control variables of MPICH 3.x; Thakur, Rabenseifner and
// Gropp, "Optimization of collective communication operations in MPICH",
// IJHPCA 2005).
const (
	bcastShort        = 12288  // MPIR_CVAR_BCAST_SHORT_MSG_SIZE
	bcastMinProcs     = 8      // MPIR_CVAR_BCAST_MIN_PROCS
	reduceShort       = 2048   // MPIR_CVAR_REDUCE_SHORT_MSG_SIZE
	allreduceShort    = 2048   // MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE
	allgatherShort    = 81920  // MPIR_CVAR_ALLGATHER_SHORT_MSG_SIZE (total bytes)
	allgatherLong     = 524288 // MPIR_CVAR_ALLGATHER_LONG_MSG_SIZE (total bytes)
	alltoallShort     = 256    // MPIR_CVAR_ALLTOALL_SHORT_MSG_SIZE (per pair)
	alltoallMedium    = 32768  // MPIR_CVAR_ALLTOALL_MEDIUM_MSG_SIZE (per pair)
	alltoallMinProcs  = 8      // Bruck's alltoall only from 8 ranks on
	assumedElementLen = 8      // bytes per element where MPICH tests a count (float64)
)

// CollectiveAlgorithm returns the algorithm of collective name (commlib's
// name, any case: "Allreduce" or "allreduce"; "Alltoallv" and the other
// v-variants have their own entries) for a call moving bytes in a job of
// np ranks. bytes is the caller's contribution as commlib's trace records
// it: the buffer of Bcast, Reduce, Allreduce, Scan and Exscan; one rank's
// block of Gather, Scatter and Allgather; the whole send buffer of
// Alltoall (np blocks); for v-variants, the average contribution.
//
// An explicit choice in [Machine.Collectives] wins. Auto applies the rules
// of MPICH 3.x's default selection (and Open MPI's tuned component for the
// barrier), where pof2 is the largest power of two ≤ np:
//
//   - barrier: recursive-doubling when np is a power of two, else bruck
//     (dissemination) (Open MPI tuned; MPICH always disseminates, which is
//     the same schedule on powers of two);
//   - bcast: binomial below 12288 B or below 8 ranks, else
//     scatter-allgather (van de Geijn's binomial scatter + ring allgather);
//   - reduce: rabenseifner (reduce-scatter + gather) above 2048 B when the
//     vector has at least pof2 elements (8-byte elements assumed: bytes ≥
//     8·pof2), else binomial;
//   - allreduce: rabenseifner (reduce-scatter + allgather) under the same
//     condition, else recursive-doubling;
//   - gather, scatter: binomial; gatherv, scatterv: linear;
//   - allgather, allgatherv: with total = bytes·np, recursive-doubling when
//     total < 512 KiB and np is a power of two, else bruck when total <
//     80 KiB, else ring;
//   - alltoall: with block = bytes/np, bruck when block ≤ 256 B and np ≥ 8,
//     else linear (all sends and receives posted at once) when block ≤
//     32 KiB, else pairwise; alltoallv: linear;
//   - scan, exscan: recursive-doubling.
//
// The error reports an unknown collective name.
func (m *Machine) CollectiveAlgorithm(name string, bytes int64, np int) (Algorithm, error) {
	key := name
	if _, ok := applicable[key]; !ok {
		key = strings.ToLower(name)
	}
	if _, ok := applicable[key]; !ok {
		return "", fmt.Errorf("unknown collective %q: want one of %s", name, strings.Join(CollectiveNames(), ", "))
	}
	if a, ok := m.Collectives[key]; ok && a != Auto {
		return a, nil
	}
	return autoAlgorithm(key, bytes, np), nil
}

// autoAlgorithm implements the automatic choice for a known collective.
func autoAlgorithm(name string, bytes int64, np int) Algorithm {
	np = max(np, 1)
	pof2 := int64(1) << (bits.Len(uint(np)) - 1)
	isPof2 := pof2 == int64(np)
	switch name {
	case "barrier":
		if isPof2 {
			return RecursiveDoubling
		}
		return Bruck
	case "bcast":
		if bytes < bcastShort || np < bcastMinProcs {
			return Binomial
		}
		return ScatterAllgather
	case "reduce":
		if bytes > reduceShort && bytes >= assumedElementLen*pof2 {
			return Rabenseifner
		}
		return Binomial
	case "allreduce":
		if bytes > allreduceShort && bytes >= assumedElementLen*pof2 {
			return Rabenseifner
		}
		return RecursiveDoubling
	case "gather", "scatter":
		return Binomial
	case "allgather", "allgatherv":
		total := mulSat(bytes, int64(np)) // saturated: a wrapped total chose the small-message algorithm
		switch {
		case total < allgatherLong && isPof2:
			return RecursiveDoubling
		case total < allgatherShort:
			return Bruck
		default:
			return Ring
		}
	case "alltoall":
		block := bytes / int64(np)
		switch {
		case block <= alltoallShort && np >= alltoallMinProcs:
			return Bruck
		case block <= alltoallMedium:
			return Linear
		default:
			return Pairwise
		}
	case "scan", "exscan":
		return RecursiveDoubling
	default: // gatherv, scatterv, alltoallv
		return Linear
	}
}
