package interp

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/predict-tools/predict/testprogs"
)

// TestUnsupported lists, without running anything, what the interpreter
// does not support in every test program and corpus program: nothing (the
// interpreter runs them all; pool's goroutines and spmv's maps included).
// interp/testdata/unsupported's constructs are refused (cmd/predict's
// unsupported.txtar).
func TestUnsupported(t *testing.T) {
	if testing.Short() {
		t.Skip("loads every test program")
	}
	dirs, err := testprogs.AllDirs("../testprogs")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{}
	for _, dir := range dirs {
		name := filepath.ToSlash(dir)
		prog, err := Prepare("..", "./testprogs/"+name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		list, err := prog.Unsupported()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		subs, ok := want[name]
		if !ok {
			if len(list) > 0 {
				t.Errorf("%s: unsupported %v, want none", name, list)
			}
			continue
		}
		found := false
		for _, u := range list {
			s := u.String()
			all := true
			for _, sub := range subs {
				all = all && strings.Contains(s, sub)
			}
			found = found || all
		}
		if !found {
			t.Errorf("%s: unsupported %v, want one that says %q", name, list, subs)
		}
	}
}
