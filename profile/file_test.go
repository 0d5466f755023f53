package profile

import (
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
