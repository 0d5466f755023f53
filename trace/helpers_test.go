package trace

import (
	"os"
	"path/filepath"
	"testing"
)

// testTrace is a trace read from testdata.
type testTrace struct {
	h      Header
	events []Event
}

// realTraces returns the traces of testdata/*.jsonl, written by the test
// programs (testdata/README.md), by file name.
func realTraces(t testing.TB) map[string]testTrace {
	t.Helper()
	return readTraces(t, "testdata/*.jsonl")
}

// modeledTraces returns the traces of testdata/modeled/*.jsonl, written by
// predict run --trace (testdata/README.md), by file name.
func modeledTraces(t testing.TB) map[string]testTrace {
	t.Helper()
	return readTraces(t, "testdata/modeled/*.jsonl")
}

// readTraces returns the native traces matching pattern, by file name.
func readTraces(t testing.TB, pattern string) map[string]testTrace {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("no traces %s: %v", pattern, err)
	}
	out := map[string]testTrace{}
	for _, file := range files {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		h, events, err := ReadJSONL(f, file)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(file)] = testTrace{h, events}
	}
	return out
}

// ev builds an operation event of rank (main thread) from enter to exit
// (in nanoseconds), with no peer and root.
func ev(rank int, op string, enter, exit int64, seq int64) Event {
	return Event{Rank: rank, Kind: KindOp, Op: op, Peer: NoPeer, Root: NoPeer,
		Enter: Time(enter) * Nanosecond, Exit: Time(exit) * Nanosecond, Seq: seq}
}
