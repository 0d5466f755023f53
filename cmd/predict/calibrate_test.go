package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCalibrateUsage pins the errors of predict calibrate's command line,
// all found before anything is measured or written.
func TestCalibrateUsage(t *testing.T) {
	dir := t.TempDir()
	readOnly := filepath.Join(dir, "ro")
	if err := os.Mkdir(readOnly, 0o555); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args   []string
		stderr string
	}{
		{[]string{"calibrate", "extra"}, `calibrate takes no arguments, got ["extra"]`},
		{[]string{"calibrate", "--ci", "0"}, "--ci 0: want a percentage above 0 and at most 50"},
		{[]string{"calibrate", "--ci", "80"}, "--ci 80: want a percentage"},
		{[]string{"calibrate", "--ci", "two"}, `invalid argument "two" for "--ci"`},
		{[]string{"calibrate", "--budget", "-1s"}, "--budget -1s: want a positive duration"},
		{[]string{"calibrate", "--max-size", "1"}, `--max-size "1": want a size from 2 B to 1 GiB`},
		{[]string{"calibrate", "--max-size", "lots"}, `--max-size "lots"`},
		{[]string{"calibrate", "-o", ""}, `-o "": want the machine file to write`},
		{[]string{"calibrate", "-o", dir}, "-o " + dir + ": is a directory"},
		{[]string{"calibrate", "-o", filepath.Join(dir, "nowhere", "m.json")}, "m.json: cannot write there"},
		{[]string{"calibrate", "--bogus"}, "unknown flag: --bogus"},
		{[]string{"calibrate", "--buffers", "warm"}, `--buffers "warm": want hot`},
		{[]string{"calibrate", "--launcher", "mpirun -np 1"}, "1 rank: calibration measures between ranks 0 and 1"},
		{[]string{"calibrate", "--launcher", "mpirun"}, "no number of ranks"},
		{[]string{"calibrate", "--launcher", "mpirun -np 'two"}, "--launcher"},
	}
	if os.Geteuid() != 0 { // root writes anywhere
		cases = append(cases, struct {
			args   []string
			stderr string
		}{[]string{"calibrate", "-o", filepath.Join(readOnly, "m.json")}, "cannot write there"})
	}
	for _, tc := range cases {
		var stdout, stderr bytes.Buffer
		status := Main(tc.args, &stdout, &stderr)
		if status != exitUsage || !strings.Contains(stderr.String(), tc.stderr) || stdout.Len() > 0 {
			t.Errorf("predict %s: status %d, stdout %q, stderr %q; want %d and %q", strings.Join(tc.args, " "), status, stdout.String(), stderr.String(),
				exitUsage, tc.stderr)
		}
	}
	if left, _ := os.ReadDir(dir); len(left) != 1 {
		t.Errorf("the failed commands left files: %v", left)
	}
}
