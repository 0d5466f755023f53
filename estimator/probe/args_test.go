package probe

import (
	"reflect"
	"testing"
)

// TestArgs records the arguments of calls as a goroutine outside any rank
// (rank -1): integers by value, slices by length or with their integer
// elements, through an interface and a pointer; equal consecutive values
// make one run; Arg returns its argument unchanged.
func TestArgs(t *testing.T) {
	forget(idArgs)
	var buf any = make([]float64, 5)
	if got := Arg(idArgs, ArgLength, buf); got.([]float64) == nil || len(got.([]float64)) != 5 {
		t.Fatalf("Arg returned %v", got)
	}
	Arg(idArgs, ArgLength, buf)
	Arg(idArgs, ArgValue, int32(-3))
	Arg(idArgs, ArgElements, []int{4, 0, 2})
	n := uint16(9)
	Arg(idArgs, ArgValue, &n)
	Arg(idArgs, ArgElements, []float64{1.5}) // not integers: the length only
	want := []RawArg{{Rank: -1, Runs: []RawArgRun{
		{Len: 2, Vals: []int64{5}},
		{Len: 1, Vals: []int64{-3}},
		{Len: 1, Vals: []int64{3, 4, 0, 2}},
		{Len: 1, Vals: []int64{9}},
		{Len: 1, Vals: []int64{1}},
	}}}
	rf := fragment(t, idArgs)
	if rf.Kind != "arg" || rf.Count != 6 || !reflect.DeepEqual(rf.Args, want) {
		t.Errorf("kind %q, count %d, args %+v; want arg, 6, %+v", rf.Kind, rf.Count, rf.Args, want)
	}
}

// TestArgsTruncated: past maxArgValues integers a rank's record stops and
// says so.
func TestArgsTruncated(t *testing.T) {
	forget(idArgsTrunc)
	elems := make([]int, 1023) // 1024 integers a call with the length
	for i := range maxArgValues/1024 + 2 {
		elems[0] = i // each call differs: a run each
		Arg(idArgsTrunc, ArgElements, elems)
	}
	rf := fragment(t, idArgsTrunc)
	if len(rf.Args) != 1 || !rf.Args[0].Truncated || len(rf.Args[0].Runs) != maxArgValues/1024 {
		t.Errorf("truncated %v, %d runs; want true, %d", len(rf.Args) == 1 && rf.Args[0].Truncated, len(rf.Args[0].Runs), maxArgValues/1024)
	}
}
