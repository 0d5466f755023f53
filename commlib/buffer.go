// This file defines message buffers: the slice types commlib accepts, their
// sizes, copies, and the reduction operators on them.

package commlib

import "fmt"

// elemKind is the element type of a buffer.
type elemKind uint8

const (
	kindInvalid elemKind = iota
	kindInt
	kindInt8
	kindInt16
	kindInt32
	kindInt64
	kindUint
	kindUint8
	kindUint16
	kindUint32
	kindUint64
	kindFloat32
	kindFloat64
	kindComplex64
	kindComplex128
	kindBool
	numKinds
)

// kindOps holds the per-element-type operations on buffers stored as any.
type kindOps struct {
	name   string // the slice type, for messages
	size   int    // bytes per element
	clone  func(src any, off, n int) any
	copy   func(dst any, doff int, src any, soff, n int)
	make   func(n int) any
	reduce func(op Op, acc, src any) // acc[i] = acc[i] op src[i]
	valid  func(op Op) bool          // whether op applies to this type
}

var kinds = [numKinds]kindOps{
	kindInt:        numeric("int", 8, reduceInteger[int], integerOps),
	kindInt8:       numeric("int8", 1, reduceInteger[int8], integerOps),
	kindInt16:      numeric("int16", 2, reduceInteger[int16], integerOps),
	kindInt32:      numeric("int32", 4, reduceInteger[int32], integerOps),
	kindInt64:      numeric("int64", 8, reduceInteger[int64], integerOps),
	kindUint:       numeric("uint", 8, reduceInteger[uint], integerOps),
	kindUint8:      numeric("byte", 1, reduceInteger[uint8], integerOps),
	kindUint16:     numeric("uint16", 2, reduceInteger[uint16], integerOps),
	kindUint32:     numeric("uint32", 4, reduceInteger[uint32], integerOps),
	kindUint64:     numeric("uint64", 8, reduceInteger[uint64], integerOps),
	kindFloat32:    numeric("float32", 4, reduceFloat[float32], floatOps),
	kindFloat64:    numeric("float64", 8, reduceFloat[float64], floatOps),
	kindComplex64:  numeric("complex64", 8, reduceComplex[complex64], complexOps),
	kindComplex128: numeric("complex128", 16, reduceComplex[complex128], complexOps),
	kindBool:       numeric("bool", 1, reduceBool, boolOps),
}

// inspect returns the element kind and length of buf, or kindInvalid.
func inspect(buf any) (elemKind, int) {
	switch b := buf.(type) {
	case []float64:
		return kindFloat64, len(b)
	case []int:
		return kindInt, len(b)
	case []byte:
		return kindUint8, len(b)
	case []int32:
		return kindInt32, len(b)
	case []int64:
		return kindInt64, len(b)
	case []float32:
		return kindFloat32, len(b)
	case []complex128:
		return kindComplex128, len(b)
	case []complex64:
		return kindComplex64, len(b)
	case []int8:
		return kindInt8, len(b)
	case []int16:
		return kindInt16, len(b)
	case []uint:
		return kindUint, len(b)
	case []uint16:
		return kindUint16, len(b)
	case []uint32:
		return kindUint32, len(b)
	case []uint64:
		return kindUint64, len(b)
	case []bool:
		return kindBool, len(b)
	}
	return kindInvalid, 0
}

// typeName names the Go type of buf for error messages.
func typeName(buf any) string {
	if buf == nil {
		return "nil"
	}
	if k, _ := inspect(buf); k != kindInvalid {
		return "[]" + kinds[k].name
	}
	return fmt.Sprintf("%T", buf)
}

// element is every type a buffer may hold.
type element interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 |
		~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 |
		~float32 | ~float64 | ~complex64 | ~complex128 | ~bool
}

func numeric[T element](name string, size int, reduce func(Op, []T, []T), valid func(Op) bool) kindOps {
	return kindOps{
		name: name,
		size: size,
		clone: func(src any, off, n int) any {
			out := make([]T, n)
			copy(out, src.([]T)[off:off+n])
			return out
		},
		copy: func(dst any, doff int, src any, soff, n int) {
			copy(dst.([]T)[doff:doff+n], src.([]T)[soff:soff+n])
		},
		make:   func(n int) any { return make([]T, n) },
		reduce: func(op Op, acc, src any) { reduce(op, acc.([]T), src.([]T)) },
		valid:  valid,
	}
}
