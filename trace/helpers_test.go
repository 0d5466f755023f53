package trace

import (
	"os"
	"path/filepath"
	"testing"
)

// realTraces returns the traces of testdata/*.jsonl, written by the test
// programs (testdata/README.md), by file name.
func realTraces(t testing.TB) map[string]struct {
	h      Header
	events []Event
} {
	t.Helper()
	files, err := filepath.Glob("testdata/*.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no traces in testdata: %v", err)
	}
	out := map[string]struct {
		h      Header
		events []Event
	}{}
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
		out[filepath.Base(file)] = struct {
			h      Header
			events []Event
		}{h, events}
	}
	return out
}

// ev builds an operation event of rank (main thread) from enter to exit
// (in nanoseconds), with no peer and root.
func ev(rank int, op string, enter, exit int64, seq int64) Event {
	return Event{Rank: rank, Kind: KindOp, Op: op, Peer: NoPeer, Root: NoPeer,
		Enter: Time(enter) * Nanosecond, Exit: Time(exit) * Nanosecond, Seq: seq}
}
