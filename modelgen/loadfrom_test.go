package modelgen

import (
	"path/filepath"
	"testing"
)

// TestLoadFromElsewhere loads a program by its directory from a current
// directory outside its module (a temporary one): the package resolves in
// its own module.
func TestLoadFromElsewhere(t *testing.T) {
	abs, err := filepath.Abs("../testprogs/pingpong")
	if err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	rel, err := filepath.Rel(outside, abs)
	if err != nil {
		t.Fatal(err)
	}
	for _, pattern := range []string{abs, rel} {
		l, err := Load(Config{Dir: outside, Pattern: pattern})
		if err != nil {
			t.Fatalf("Load(%s) from %s: %v", pattern, outside, err)
		}
		if got, want := l.Main.Pkg.Path(), "github.com/predict-tools/predict/testprogs/pingpong"; got != want {
			t.Errorf("Load(%s): package %s, want %s", pattern, got, want)
		}
	}
}
