//go:build mpi

// This file defines the cgo layer over the MPI C API: handles, datatypes,
// operators and the few C helpers that Go cannot express (predefined
// handles are addresses in Open MPI, not constants).

package commlib

/*
#cgo !mpich pkg-config: ompi-c
#cgo mpich pkg-config: mpich
#include "commlib_mpi.h"
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// mpiTypes and mpiOps map commlib's element kinds and operators to MPI's.
var (
	mpiTypes [numKinds]C.MPI_Datatype
	mpiOps   [Bxor + 1]C.MPI_Op
)

func init() {
	for k := kindInt; k < numKinds; k++ {
		mpiTypes[k] = C.cl_type(C.int(k))
	}
	for op := Sum; op <= Bxor; op++ {
		mpiOps[op] = C.cl_op(C.int(op))
	}
}

// mpiRank maps commlib's special ranks to MPI's.
func mpiRank(r int) C.int {
	switch r {
	case AnySource:
		return C.MPI_ANY_SOURCE
	case ProcNull:
		return C.MPI_PROC_NULL
	}
	return C.int(r)
}

func mpiTag(tag int) C.int {
	if tag == AnyTag {
		return C.MPI_ANY_TAG
	}
	return C.int(tag)
}

// status converts a filled status to commlib's.
func statusOf(s *C.cl_status) Status {
	st := Status{Source: int(s.source), Tag: int(s.tag), Count: int(s.count)}
	if s.source == C.MPI_PROC_NULL {
		st.Source = ProcNull
	}
	if s.tag == C.MPI_ANY_TAG {
		st.Tag = AnyTag
	}
	if st.Count < 0 { // MPI_UNDEFINED: not a whole number of elements
		st.Count = 0
	}
	return st
}

// mpiErrorString is the text of an MPI error code.
func mpiErrorString(code C.int) string {
	var buf [C.MPI_MAX_ERROR_STRING + 1]C.char
	var n C.int
	if C.MPI_Error_string(code, &buf[0], &n) != C.MPI_SUCCESS {
		return fmt.Sprintf("MPI error %d", int(code))
	}
	return C.GoStringN(&buf[0], n)
}

// dataOf returns the address of buf's first element (nil when empty).
func dataOf(buf any) unsafe.Pointer {
	switch b := buf.(type) {
	case []float64:
		return unsafe.Pointer(unsafe.SliceData(b))
	case []int:
		return unsafe.Pointer(unsafe.SliceData(b))
	case []byte:
		return unsafe.Pointer(unsafe.SliceData(b))
	case []int32:
		return unsafe.Pointer(unsafe.SliceData(b))
	case []int64:
		return unsafe.Pointer(unsafe.SliceData(b))
	case []float32:
		return unsafe.Pointer(unsafe.SliceData(b))
	case []complex128:
		return unsafe.Pointer(unsafe.SliceData(b))
	case []complex64:
		return unsafe.Pointer(unsafe.SliceData(b))
	case []int8:
		return unsafe.Pointer(unsafe.SliceData(b))
	case []int16:
		return unsafe.Pointer(unsafe.SliceData(b))
	case []uint:
		return unsafe.Pointer(unsafe.SliceData(b))
	case []uint16:
		return unsafe.Pointer(unsafe.SliceData(b))
	case []uint32:
		return unsafe.Pointer(unsafe.SliceData(b))
	case []uint64:
		return unsafe.Pointer(unsafe.SliceData(b))
	case []bool:
		return unsafe.Pointer(unsafe.SliceData(b))
	}
	return nil
}

// cints converts counts or displacements to C ints.
func cints(xs []int) []C.int {
	out := make([]C.int, len(xs))
	for i, x := range xs {
		out[i] = C.int(x)
	}
	return out
}

// cintsPtr is the address of xs's first element, nil when empty.
func cintsPtr(xs []C.int) *C.int {
	if len(xs) == 0 {
		return nil
	}
	return &xs[0]
}
