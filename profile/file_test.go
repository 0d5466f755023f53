package profile

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadErrors checks that Read refuses what is not a profile of this
// version, with the line and column of a JSON error.
func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	for name, tc := range map[string]struct{ text, want string }{
		"corrupt": {`{"format": "predict-profile", "version": 1, "np": }`, "line 1 col"},
		"foreign": {`{"format": "something"}`, `format "something"`},
		"old":     {`{"format": "predict-profile", "version": 0}`, "version 0"},
		"unknown": {`{"format": "predict-profile", "version": 1, "bogus": 1}`, `unknown field "bogus"`},
	} {
		path := filepath.Join(dir, name+".json")
		os.WriteFile(path, []byte(tc.text), 0o644)
		if _, err := Read(path); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error containing %q", name, err, tc.want)
		}
	}
	if _, err := Read(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("a missing profile is accepted")
	}
}

// TestRoundTrip reads a profile that predict profile wrote before the
// format moved to this package (the stencil at np=2) and writes it back:
// the bytes are the same, so profiles keep loading in both directions.
func TestRoundTrip(t *testing.T) {
	path := filepath.Join("testdata", "stencil.profile.json")
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Fragments) == 0 || len(p.Loops) == 0 || len(p.Decisions) == 0 {
		t.Fatalf("read %d fragments, %d loops, %d decisions: want some of each", len(p.Fragments), len(p.Loops), len(p.Decisions))
	}
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if got := buf.Bytes(); !bytes.Equal(got, want) {
		t.Errorf("written back: %d bytes that differ from the %d read", len(got), len(want))
	}
}
