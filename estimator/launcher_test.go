package estimator

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/predict-tools/predict/estimator/probe"
	"github.com/predict-tools/predict/estimator/runclock"
)

// TestParseLauncher: the launcher's words split as a shell splits them,
// its number of ranks found in each launcher's spelling, and changed in
// place for another np.
func TestParseLauncher(t *testing.T) {
	for _, tc := range []struct {
		in    string
		words []string
		np    int
		at3   string // the words at np = 3
	}{
		{"mpirun -np 2", []string{"mpirun", "-np", "2"}, 2, "mpirun -np 3"},
		{"mpirun --oversubscribe -n 4 --mca btl self,tcp", []string{"mpirun", "--oversubscribe", "-n", "4", "--mca", "btl", "self,tcp"}, 4, "mpirun --oversubscribe -n 3 --mca btl self,tcp"},
		{"mpiexec --np=8", []string{"mpiexec", "--np=8"}, 8, "mpiexec --np=3"},
		{"mpirun -c 2 -x 'A=b c'", []string{"mpirun", "-c", "2", "-x", "A=b c"}, 2, "mpirun -c 3 -x 'A=b c'"},
		{`"/opt/my mpi/bin/mpirun" -np 2`, []string{"/opt/my mpi/bin/mpirun", "-np", "2"}, 2, "'/opt/my mpi/bin/mpirun' -np 3"},
		{`srun -c 4 --ntasks=2`, []string{"srun", "-c", "4", "--ntasks=2"}, 2, "srun -c 4 --ntasks=3"},
		{`mpirun -np 2 -x A=it\'s`, []string{"mpirun", "-np", "2", "-x", "A=it's"}, 2, `mpirun -np 3 -x 'A=it'\''s'`},
	} {
		l, err := ParseLauncher(tc.in)
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if !reflect.DeepEqual(l.Words, tc.words) || l.NP != tc.np {
			t.Errorf("%s: words %q np %d, want %q np %d", tc.in, l.Words, l.NP, tc.words, tc.np)
		}
		at := &Launcher{Words: l.At(3)}
		if got := at.String(); got != tc.at3 {
			t.Errorf("%s at np=3: %s, want %s", tc.in, got, tc.at3)
		}
		if again, err := ParseLauncher(l.String()); err != nil || !reflect.DeepEqual(again.Words, l.Words) {
			t.Errorf("%s: String %s reads back as %v (%v)", tc.in, l, again, err)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"", "no command"},
		{"mpirun", "no number of ranks"},
		{"mpirun -np", "-np without a number of ranks"},
		{"mpirun -np two", "-np two: want a number of ranks"},
		{"mpirun -np 0", "-np 0: want a number of ranks"},
		{"mpirun -np 2 -n 3", "two numbers of ranks (2 and 3)"},
		{"mpirun -np 2 'x", "unterminated single quote"},
		{`mpirun -np 2 "x`, "unterminated double quote"},
		{`mpirun -np 2 \`, "backslash at the end"},
	} {
		_, err := ParseLauncher(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "--launcher ") {
			t.Errorf("%q: %v, want an error naming --launcher with %q", tc.in, err, tc.want)
		}
	}
}

// TestLauncherRefused: a launcher that is not installed, or whose ranks
// differ from -np, stops the pass before it builds anything, naming the
// flags.
func TestLauncherRefused(t *testing.T) {
	l, err := ParseLauncher("no-such-mpirun-here -np 2")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(Config{Dir: "..", Pattern: "./testprogs/stencil", Launcher: l})
	if err == nil || !strings.Contains(err.Error(), "--launcher no-such-mpirun-here -np 2: no-such-mpirun-here not found") {
		t.Errorf("launcher not found: %v", err)
	}
	_, err = Run(Config{Dir: "..", Pattern: "./testprogs/stencil", NP: 4, Launcher: l})
	if err == nil || !strings.Contains(err.Error(), "-np 4 and --launcher no-such-mpirun-here -np 2 (2 ranks) disagree") {
		t.Errorf("np mismatch: %v", err)
	}
}

// TestReadRanks: a launched run's ranks' files are read and merged; a
// rank that wrote none is named, with its file.
func TestReadRanks(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "raw0.json")
	l := &Launcher{Words: []string{"mpirun", "-np", "2"}, NP: 2, npAt: 2}
	write := func(file string, v any) {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rank := func(r int) probe.Raw {
		return probe.Raw{Version: probe.RawVersion, NP: 2, Clock: probe.ClockWall, WallNS: 100, StartUnixNS: int64(1000 + 10*r),
			Fragments: []probe.RawFragment{{ID: 0, Kind: "seg", Count: 1, SumNS: int64(10 + r), SumSqNS: float64((10 + r) * (10 + r)), MinNS: int64(10 + r), MaxNS: int64(10 + r)}}}
	}
	write(runclock.RankFile(path, 0), rank(0))
	_, err := readProbed(l, path, 2)
	if want := "rank 1 of 2 wrote no measurements (" + runclock.RankFile(path, 1) + " is missing)"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("rank 1 missing: %v, want %q", err, want)
	}
	write(runclock.RankFile(path, 1), rank(1))
	raw, err := readProbed(l, path, 2)
	if err != nil {
		t.Fatal(err)
	}
	if raw.WallNS != 110 || len(raw.Fragments) != 1 || raw.Fragments[0].Count != 2 || raw.Fragments[0].SumNS != 21 {
		t.Errorf("merged %+v", raw)
	}
	runPath := filepath.Join(dir, "run0.json")
	write(runclock.RankFile(runPath, 0), runclock.Times{WallNS: 100, CPUNS: 90, ComputeNS: 80, StartUnixNS: 1000})
	if _, err := readTimes(l, runPath, 2); err == nil || !strings.Contains(err.Error(), "rank 1 of 2") {
		t.Errorf("plain run's rank 1 missing: %v", err)
	}
	write(runclock.RankFile(runPath, 1), runclock.Times{WallNS: 100, CPUNS: 95, ComputeNS: 85, StartUnixNS: 1020})
	if got, err := readTimes(l, runPath, 2); err != nil || !reflect.DeepEqual(got, runclock.Times{WallNS: 120, CPUNS: 185, ComputeNS: 165, StartUnixNS: 1000}) {
		t.Errorf("plain run: %+v, %v", got, err)
	}
}

// TestMPIBuildHint: a build with the mpi tag that fails for want of Open
// MPI's development files, pkg-config or a C compiler says what to
// install (the outputs are the go command's).
func TestMPIBuildHint(t *testing.T) {
	for out, want := range map[string]string{
		"# github.com/predict-tools/predict/commlib\n# [pkg-config --cflags  -- ompi-c]\nPackage ompi-c was not found in the pkg-config search path.\nNo package 'ompi-c' found\npkg-config: exit status 1": "apt-get install libopenmpi-dev",
		"# github.com/predict-tools/predict/commlib\npkg-config: exec: \"pkg-config\": executable file not found in $PATH":                                                                                  "apt-get install pkg-config",
		"# runtime/cgo\ncgo: C compiler \"gcc\" not found: exec: \"gcc\": executable file not found in $PATH":                                                                                               "apt-get install gcc",
		"main.go:3:2: undefined: x": "",
	} {
		if got := mpiBuildHint(out); !strings.Contains(got, want) || (want == "" && got != "") {
			t.Errorf("%q: hint %q, want one with %q", out, got, want)
		}
	}
}
