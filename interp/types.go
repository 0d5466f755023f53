// This file defines the interpreter's view of Go types and constants:
// constant values, basic-type predicates and integer truncation.

package interp

import (
	"go/constant"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

func constValue(k *ssa.Const) V {
	if k.Value == nil {
		return zeroOf(k.Type())
	}
	switch k.Value.Kind() {
	case constant.Bool:
		return boolV(constant.BoolVal(k.Value))
	case constant.String:
		return V{R: constant.StringVal(k.Value)}
	case constant.Int:
		if isFloat(k.Type()) {
			f, _ := constant.Float64Val(k.Value)
			return floatV(f)
		}
		if i, ok := constant.Int64Val(k.Value); ok {
			return intV(i)
		}
		u, _ := constant.Uint64Val(k.Value)
		return intV(int64(u))
	case constant.Float:
		f, _ := constant.Float64Val(k.Value)
		if !isFloat(k.Type()) { // an untyped float constant converted to an integer
			return intV(int64(f))
		}
		return floatV(f)
	}
	return V{}
}

func basicInfo(t types.Type) types.BasicInfo {
	if b, ok := t.Underlying().(*types.Basic); ok {
		return b.Info()
	}
	return 0
}

func isFloat(t types.Type) bool    { return basicInfo(t)&types.IsFloat != 0 }
func isString(t types.Type) bool   { return basicInfo(t)&types.IsString != 0 }
func isUnsigned(t types.Type) bool { return basicInfo(t)&types.IsUnsigned != 0 }
func isInteger(t types.Type) bool  { return basicInfo(t)&types.IsInteger != 0 }

// wrap truncates an integer result to the size of its type.
func wrap(t types.Type) func(int64) int64 {
	b, ok := t.Underlying().(*types.Basic)
	if !ok {
		return nil
	}
	switch b.Kind() {
	case types.Int8:
		return func(x int64) int64 { return int64(int8(x)) }
	case types.Int16:
		return func(x int64) int64 { return int64(int16(x)) }
	case types.Int32:
		return func(x int64) int64 { return int64(int32(x)) }
	case types.Uint8:
		return func(x int64) int64 { return int64(uint8(x)) }
	case types.Uint16:
		return func(x int64) int64 { return int64(uint16(x)) }
	case types.Uint32:
		return func(x int64) int64 { return int64(uint32(x)) }
	}
	return nil
}
