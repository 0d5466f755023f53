// This file defines the recording of opaque communication arguments: a
// peer, a count or a buffer's length that the model does not compute, in
// order, per rank, for the interpreter to replay.

package probe

import (
	"reflect"
	"slices"
	"sync"
)

// The parts of an argument Arg records.
const (
	ArgValue    = 0 // an integer's value, or a slice's length
	ArgLength   = 1 // a slice's length
	ArgElements = 2 // a slice's length and its integer elements
)

// maxArgValues bounds the integers kept per rank and argument; past it
// the record is truncated (the interpreter replays it from the start and
// says so).
const maxArgValues = 1 << 18

// argRec is one rank's record of an argument: runs of equal values.
type argRec struct {
	mu        sync.Mutex
	runs      []RawArgRun
	kept      int // integers in runs
	truncated bool
}

// RawArgRun is a run of calls that passed the same value: Vals is an
// integer's value or a slice's length, then (ArgElements) its elements.
type RawArgRun struct {
	Len  int64   `json:"len"`
	Vals []int64 `json:"vals"`
}

// RawArg is one rank's sequence of an argument's values.
type RawArg struct {
	Rank      int         `json:"rank"`
	Runs      []RawArgRun `json:"runs"`
	Truncated bool        `json:"truncated,omitempty"`
}

// argOf returns rank r's record of argument fragment f.
func (f *frag) argOf(r int) *argRec { return perRank(&f.argRecs, &f.mu, r) }

// Arg records what part (ArgValue, ArgLength, ArgElements) of v, an
// argument of a commlib call, for the calling goroutine's rank, and
// returns v unchanged. Like Branch it records only in the run that
// records decisions.
func Arg[T any](id int32, part int, v T) T {
	if branchesOff {
		return v
	}
	if vals, ok := argValues(reflect.ValueOf(any(v)), part); ok {
		a := fragOf(id).argOf(callerRank())
		a.mu.Lock()
		a.record(vals)
		a.mu.Unlock()
	}
	return v
}

// argValues returns what a record holds of v: an integer's value, or a
// slice's length and, for ArgElements, its integer elements.
func argValues(v reflect.Value, part int) ([]int64, bool) {
	for v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return []int64{0}, true
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return []int64{v.Int()}, true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return []int64{int64(v.Uint())}, true
	case reflect.Slice, reflect.Array, reflect.String:
		out := []int64{int64(v.Len())}
		if part != ArgElements || v.Kind() == reflect.String {
			return out, true
		}
		for i := range v.Len() {
			e, ok := argValues(v.Index(i), ArgValue)
			if !ok || len(e) != 1 {
				return out, true // not integers: the length only
			}
			out = append(out, e[0])
		}
		return out, true
	}
	return nil, false
}

// record adds one call's values, under a.mu.
func (a *argRec) record(vals []int64) {
	if a.truncated {
		return
	}
	if k := len(a.runs); k > 0 && slices.Equal(a.runs[k-1].Vals, vals) {
		a.runs[k-1].Len++
		return
	}
	if a.kept+len(vals) > maxArgValues {
		a.truncated = true
		return
	}
	a.kept += len(vals)
	a.runs = append(a.runs, RawArgRun{Len: 1, Vals: vals})
}

// rawArgs returns the ranks' records of argument fragment f.
func (f *frag) rawArgs() []RawArg {
	var out []RawArg
	var recs []*argRec
	if p := f.argRecs.Load(); p != nil {
		recs = *p
	}
	for i, a := range recs {
		a.mu.Lock()
		if len(a.runs) > 0 {
			runs := make([]RawArgRun, len(a.runs))
			for k, r := range a.runs {
				runs[k] = RawArgRun{Len: r.Len, Vals: slices.Clone(r.Vals)}
			}
			out = append(out, RawArg{Rank: i - 1, Runs: runs, Truncated: a.truncated})
		}
		a.mu.Unlock()
	}
	return out
}
