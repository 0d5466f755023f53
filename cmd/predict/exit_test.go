package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestExitStatus pins the exit statuses the scripts can only see as
// failure: 2 for a wrong command line, 1 for a command that failed.
func TestExitStatus(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		status int
		stderr string
	}{
		{[]string{}, exitOK, ""},
		{[]string{"help", "model"}, exitOK, ""},
		{[]string{"model"}, exitUsage, "missing PKG"},
		{[]string{"model", "a", "b"}, exitUsage, "want one package"},
		{[]string{"model", ".", "--format", "xml"}, exitUsage, `--format "xml"`},
		{[]string{"model", ".", "--bogus"}, exitUsage, "unknown flag: --bogus"},
		{[]string{"model", ".", "-o"}, exitUsage, "flag needs an argument: 'o' in -o"},
		{[]string{"bogus"}, exitUsage, `unknown command "bogus"`},
		{[]string{"model", "./nowhere"}, exitFailure, "PKG ./nowhere: no such directory"},
		{[]string{"model", "../../model/testdata/shapes"}, exitFailure, "not an SPMD program"},
	} {
		var stdout, stderr bytes.Buffer
		status := Main(tc.args, &stdout, &stderr)
		if status != tc.status || !strings.Contains(stderr.String(), tc.stderr) || tc.stderr == "" && stderr.Len() > 0 {
			t.Errorf("predict %s: status %d, stderr %q; want %d and %q", strings.Join(tc.args, " "), status, stderr.String(),
				tc.status, tc.stderr)
		}
	}
}
