// Command mpicheck runs every test program under mpirun and checks that
// each prints the checksum of the in-process runtime: the CI check of
// commlib's MPI runtime (build tag mpi).
//
//	go run ./commlib/internal/mpicheck [-np 1,2,4] [-programs stencil,cg]
//
// It builds the programs of testprogs and its corpus twice, without and
// with the mpi tag, runs each in-process at -np 1 for the reference
// checksum, then under mpirun --oversubscribe at each np, with Open MPI's
// default transports and with --mca btl self,tcp (the network path on one
// machine). A program that fails or differs fails the check; none is
// skipped silently (excluded lists the exceptions, with their reasons).
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/predict-tools/predict/testprogs"
)

// excluded names programs the MPI runtime cannot run yet, with the reason.
var excluded = map[string]string{}

var checksumLine = regexp.MustCompile(`(?m)^checksum: (.*)$`)

func main() {
	root := flag.String("root", "testprogs", "the test programs' `directory`")
	nps := flag.String("np", "1,2,4", "comma-separated rank counts")
	only := flag.String("programs", "", "comma-separated programs to run (default: all)")
	class := flag.String("class", "S", "problem class passed to the programs")
	timeout := flag.Duration("timeout", time.Minute, "limit of one run (COMMLIB_TIMEOUT is half of it)")
	flag.Parse()
	dirs, err := testprogs.AllDirs(*root)
	if err != nil {
		fatal(err)
	}
	if *only != "" {
		dirs = strings.Split(*only, ",")
	}
	tmp, err := os.MkdirTemp("", "mpicheck")
	if err != nil {
		fatal(err)
	}
	defer os.RemoveAll(tmp)
	inproc, mpi := filepath.Join(tmp, "inprocess"), filepath.Join(tmp, "mpi")
	var pkgs []string
	for _, d := range dirs {
		pkgs = append(pkgs, "./"+filepath.ToSlash(filepath.Join(*root, d)))
	}
	build(inproc, nil, pkgs)
	build(mpi, []string{"-tags", "mpi"}, pkgs)

	launcher := []string{"mpirun", "--oversubscribe"}
	if os.Geteuid() == 0 {
		launcher = append(launcher, "--allow-run-as-root")
	}
	transports := []struct {
		name string
		args []string
	}{{"default", nil}, {"btl=self,tcp", []string{"--mca", "btl", "self,tcp"}}}
	failures := 0
	for _, d := range dirs {
		name := filepath.Base(d)
		if why, ok := excluded[d]; ok {
			fmt.Printf("EXCLUDED %-24s %s\n", d, why)
			continue
		}
		want, out, err := run(*timeout, filepath.Join(inproc, name), "-np", "1", "-class", *class)
		if err != nil {
			fmt.Printf("FAIL %-24s in-process: %v\n%s\n", d, err, out)
			failures++
			continue
		}
		var row []string
		for _, np := range strings.Split(*nps, ",") {
			for _, tr := range transports {
				args := append(append(append([]string{}, launcher[1:]...), tr.args...), "-np", np,
					filepath.Join(mpi, name), "-class", *class)
				got, out, err := run(*timeout, launcher[0], args...)
				switch {
				case err != nil:
					fmt.Printf("FAIL %-24s np=%s %s: %v\n%s\n", d, np, tr.name, err, out)
					failures++
				case got != want:
					fmt.Printf("FAIL %-24s np=%s %s: checksum %q, in-process %q\n", d, np, tr.name, got, want)
					failures++
				default:
					row = append(row, "np="+np+"/"+tr.name)
				}
			}
		}
		fmt.Printf("ok   %-24s %s  (%s)\n", d, want, strings.Join(row, " "))
	}
	if failures > 0 {
		fmt.Printf("mpicheck: %d runs failed\n", failures)
		os.Exit(1)
	}
	fmt.Printf("mpicheck: %d programs, every checksum equals the in-process runtime's\n", len(dirs)-len(excluded))
}

func build(dir string, flags, pkgs []string) {
	args := append(append([]string{"build"}, flags...), "-o", dir+"/")
	cmd := exec.Command("go", append(args, pkgs...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		fatal(fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out))
	}
}

// run runs a program and returns the checksum it printed.
func run(timeout time.Duration, exe string, args ...string) (string, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Env = append(os.Environ(), "COMMLIB_TIMEOUT="+strconv.Itoa(int(timeout.Seconds()/2))+"s")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", out.String(), err
	}
	m := checksumLine.FindAllStringSubmatch(out.String(), -1)
	if len(m) != 1 {
		return "", out.String(), fmt.Errorf("printed %d checksum lines, want 1", len(m))
	}
	return m[0][1], out.String(), nil
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "mpicheck:", err)
	os.Exit(2)
}
