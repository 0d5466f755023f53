//go:build mpi

package commlib_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// mpirun returns the command line that runs exe at np ranks.
func mpirun(np string, args ...string) []string {
	cmd := []string{"mpirun", "--oversubscribe", "-np", np}
	if os.Geteuid() == 0 {
		cmd = append(cmd, "--allow-run-as-root")
	}
	return append(cmd, args...)
}

func run(t *testing.T, env []string, argv ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	err := cmd.Run()
	return out.String() + errs.String(), err
}

// buildMpitest builds commlib/internal/mpitest for both runtimes.
func buildMpitest(t *testing.T) (inprocess, mpi string) {
	dir := t.TempDir()
	inprocess, mpi = filepath.Join(dir, "inprocess"), filepath.Join(dir, "mpi")
	for _, b := range [][]string{{"build", "-o", inprocess}, {"build", "-tags", "mpi", "-o", mpi}} {
		if out, err := exec.Command("go", append(b, "./internal/mpitest")...).CombinedOutput(); err != nil {
			t.Fatalf("go %v: %v\n%s", b, err, out)
		}
	}
	return inprocess, mpi
}

// TestMPIConformance runs every commlib call under both runtimes, at 3
// and 4 ranks, with the default transports and TCP: the outputs must be
// identical, byte for byte.
func TestMPIConformance(t *testing.T) {
	inprocess, mpi := buildMpitest(t)
	for _, np := range []string{"3", "4"} {
		want, err := run(t, nil, inprocess, "-np", np)
		if err != nil {
			t.Fatalf("in-process -np %s: %v\n%s", np, err, want)
		}
		for _, btl := range [][]string{nil, {"--mca", "btl", "self,tcp"}} {
			got, err := run(t, []string{"COMMLIB_TIMEOUT=30s"}, mpirun(np, append(btl, mpi)...)...)
			if err != nil {
				t.Fatalf("mpirun -np %s %v: %v\n%s", np, btl, err, got)
			}
			if got != want {
				t.Errorf("mpirun -np %s %v: output differs from the in-process run", np, btl)
				gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
				for i := range min(len(gl), len(wl)) {
					if gl[i] != wl[i] {
						t.Errorf("first difference, line %d:\n mpi:        %s\n in-process: %s", i+1, gl[i], wl[i])
						break
					}
				}
			}
		}
	}
}

// TestMPIErrors checks that failures stop the job with commlib's error,
// naming the rank and the call site, and that COMMLIB_TIMEOUT reports a
// deadlock instead of hanging.
func TestMPIErrors(t *testing.T) {
	_, mpi := buildMpitest(t)
	for _, tc := range []struct {
		name string
		env  []string
		want []string
	}{
		{"truncate", nil, []string{"commlib: rank 1: Recv at ", "mpitest/main.go:", "message truncated"}},
		{"collective-root", nil, []string{"Bcast at ", "invalid root 2: communicator world has ranks 0..1"}},
		{"abort", nil, []string{"commlib: rank 1 aborted the run at ", "the answer is wrong"}},
		{"deadlock", []string{"COMMLIB_TIMEOUT=1s"}, []string{
			"commlib: rank 0: no progress for ", "blocked in Recv(peer=1 tag=7) at ", "mpitest/main.go:",
			"commlib: rank 1: no progress for "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			out, err := run(t, tc.env, mpirun("2", mpi, "-case", tc.name)...)
			if err == nil {
				t.Fatalf("the run succeeded:\n%s", out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("the output lacks %q:\n%s", w, out)
				}
			}
			if d := time.Since(start); d > 30*time.Second {
				t.Errorf("the run took %v to fail", d)
			}
		})
	}
}

// TestMPISpareP checks that a rank bound to one core runs with two Ps
// (spareP), and with the GOMAXPROCS its user set.
func TestMPISpareP(t *testing.T) {
	_, mpi := buildMpitest(t)
	for _, tc := range []struct {
		env  []string
		want string
	}{{nil, "GOMAXPROCS 2"}, {[]string{"GOMAXPROCS=1"}, "GOMAXPROCS 1"}} {
		out, err := run(t, tc.env, mpirun("2", "--bind-to", "core", mpi, "-procs")...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", tc.env, err, out)
		}
		if strings.Count(out, tc.want) != 2 {
			t.Errorf("%v: want %q from both ranks:\n%s", tc.env, tc.want, out)
		}
	}
}
