package testprogs_test

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/predict-tools/predict/testprogs"
)

// programs returns the directories of the test programs and of the
// accuracy corpus, relative to this one.
func programs(t *testing.T) []string {
	dirs, err := testprogs.AllDirs(".")
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

var checksumLine = regexp.MustCompile(`(?m)^checksum: (.*)$`)

// TestChecksums builds every test program and runs it at np = 1, 2, 3, 4
// and 8 (class S): each run must succeed and print the same checksum.
func TestChecksums(t *testing.T) {
	nps := []int{1, 2, 3, 4, 8}
	if testing.Short() {
		nps = []int{1, 3}
	}
	bin := t.TempDir()
	dirs := programs(t)
	if len(dirs) < 9 {
		t.Fatalf("found %d test programs (%v), want at least the nine of DESIGN.md", len(dirs), dirs)
	}
	build := exec.Command("go", append([]string{"build", "-o", bin + "/"}, prefix("./", dirs)...)...)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// Run programs one at a time (their ranks use every core), np values
	// of one program concurrently two at a time.
	for _, dir := range dirs {
		t.Run(filepath.ToSlash(dir), func(t *testing.T) {
			exe := filepath.Join(bin, filepath.Base(dir))
			sums := make([]string, len(nps))
			var wg sync.WaitGroup
			sem := make(chan struct{}, max(1, runtime.NumCPU()/2))
			for i, np := range nps {
				wg.Add(1)
				go func() {
					defer wg.Done()
					sem <- struct{}{}
					defer func() { <-sem }()
					sums[i] = runProgram(t, exe, np)
				}()
			}
			wg.Wait()
			for i := range nps {
				if sums[i] != sums[0] {
					t.Errorf("np=%d checksum %q differs from np=%d checksum %q", nps[i], sums[i], nps[0], sums[0])
				}
			}
		})
	}
}

func runProgram(t *testing.T, exe string, np int) string {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, "-np", fmt.Sprint(np), "-class", "S")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Errorf("%s -np %d: %v\n%s", filepath.Base(exe), np, err, out.String())
		return ""
	}
	m := checksumLine.FindAllStringSubmatch(out.String(), -1)
	if len(m) != 1 {
		t.Errorf("%s -np %d printed %d checksum lines, want 1:\n%s", filepath.Base(exe), np, len(m), out.String())
		return ""
	}
	return m[0][1]
}

func prefix(p string, xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = p + filepath.ToSlash(x)
	}
	return out
}
