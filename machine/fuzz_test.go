package machine

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/predict-tools/predict/trace"
)

// FuzzMachine reads arbitrary machine files and, for those that validate,
// evaluates every cost function at an arbitrary size, time and np: no
// panic, no negative or wrapped cost (each is exact or Overflow, held to
// the reference of reference_test.go), a placement inside the job's nodes,
// and a written machine that reads back the same. A file that does not
// validate must be refused with an ErrorList.
//
// The seeds are the presets, a machine at every bound and the files of
// testdata/fuzz/FuzzMachine (cpu_factor 1e12, issue 14). Run it with
//
//	go test ./machine -run '^$' -fuzz FuzzMachine -fuzztime 1m
func FuzzMachine(f *testing.F) {
	for _, name := range PresetNames() {
		m, err := Preset(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(writeBytes(f, m), int64(1<<20), int64(trace.Second), 64)
	}
	f.Add(writeBytes(f, maxMachine(MaxCPUFactor)), int64(math.MaxInt64), int64(math.MaxInt64), math.MaxInt32)
	f.Add(writeBytes(f, maxMachine(MinCPUFactor)), int64(9223372038), int64(9223372036855), 1)
	f.Fuzz(func(t *testing.T, data []byte, s, ct int64, np int) {
		m, err := Parse(data, "fuzz.json")
		if err != nil {
			var list ErrorList
			if !errors.As(err, &list) || len(list) == 0 || err.Error() == "" {
				t.Fatalf("refused without an ErrorList: %v", err)
			}
			return
		}
		checkCosts(t, m, s, trace.Time(max(ct, 0)), int(s%(1<<20)))
		// Written and read back, it is the same machine.
		back, err := Parse(writeBytes(t, m), "written.json")
		if err != nil || !reflect.DeepEqual(m, back) {
			t.Fatalf("written and read back: %v\n%#v\n%#v", err, m, back)
		}
		// Placement: every rank of a job that fits lands on a node of it.
		if np = max(np, 1); m.CheckNP(np) == nil {
			used := m.NodesUsed(np)
			for _, rank := range []int{0, np / 2, np - 1} {
				if node := m.NodeOf(rank, np); node < 0 || node >= max(used, 1) {
					t.Errorf("NodeOf(%d, %d) = %d, want 0..%d", rank, np, node, used-1)
				}
			}
		}
		for _, name := range CollectiveNames() {
			if _, err := m.CollectiveAlgorithm(name, s, np); err != nil {
				t.Errorf("CollectiveAlgorithm(%s): %v", name, err)
			}
		}
	})
}

func writeBytes(tb testing.TB, m *Machine) []byte {
	tb.Helper()
	var b bytes.Buffer
	if err := m.Write(&b); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}
