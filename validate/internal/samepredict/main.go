// Command samepredict checks that a change to the predictor changes no
// prediction: it writes every program's predictions at a few np with fixed
// profiles, and compares two such sets field by field.
//
//	go run ./validate/internal/samepredict -profiles DIR -out BEFORE [-np 1,4,64,256] [-machine infiniband-hdr]
//	... change the predictor ...
//	go run ./validate/internal/samepredict -profiles DIR -out AFTER
//	go run ./validate/internal/samepredict -compare BEFORE AFTER
//
// It runs from the module root, over every program of testprogs and of
// the corpus. A program without a profile in DIR (NAME.json, NAME the
// program's directory with / as _) is profiled at np = 2 first and the
// profile kept there, so that both sets use the same one. Profiles are
// not checked against the sources' hash (a change of the predictor's own
// packages would make them stale), only against the model's nodes; the
// programs run with the profile's arguments. Each
// prediction, or the error that stops it, is one file of OUT.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/predict-tools/predict/estimator"
	"github.com/predict-tools/predict/interp"
	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/profile"
	"github.com/predict-tools/predict/scale"
	"github.com/predict-tools/predict/testprogs"
)

func main() {
	// Its own flag set: commlib, which it links, registers -np on the
	// command line's.
	flag := flag.NewFlagSet("samepredict", flag.ExitOnError)
	profiles := flag.String("profiles", "", "directory of the fixed profiles (made when missing)")
	out := flag.String("out", "", "directory to write the predictions to")
	npList := flag.String("np", "1,4,64,256", "process counts")
	machineName := flag.String("machine", "infiniband-hdr", "target machine: a preset or a machine file")
	compare := flag.Bool("compare", false, "compare the two directories given as arguments")
	flag.Parse(os.Args[1:])
	if *compare {
		if flag.NArg() != 2 {
			fail("-compare: want two directories, got %d arguments", flag.NArg())
		}
		n, err := compareDirs(flag.Arg(0), flag.Arg(1))
		if err != nil {
			fail("%v", err)
		}
		if n > 0 {
			os.Exit(1)
		}
		return
	}
	if *profiles == "" || *out == "" {
		fail("want -profiles DIR and -out DIR (or -compare A B)")
	}
	nps, err := scale.ParseRange(*npList)
	if err != nil {
		fail("-np: %v", err)
	}
	m, err := machine.Resolve(*machineName)
	if err != nil {
		fail("-machine %s: %v", *machineName, err)
	}
	for _, dir := range []string{*profiles, *out} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			fail("%v", err)
		}
	}
	dirs, err := testprogs.AllDirs("testprogs")
	if err != nil {
		fail("%v", err)
	}
	for _, d := range dirs {
		name := strings.ReplaceAll(d, "/", "_")
		fmt.Fprintf(os.Stderr, "%s\n", d)
		results, err := predictAll("./testprogs/"+d, filepath.Join(*profiles, name+".json"), m, nps)
		if err != nil {
			results = map[int]string{0: "error: " + err.Error() + "\n"}
		}
		for np, text := range results {
			if err := os.WriteFile(filepath.Join(*out, fmt.Sprintf("%s-%d.json", name, np)), []byte(text), 0o644); err != nil {
				fail("%v", err)
			}
		}
	}
}

// predictAll predicts the program at every np with the profile at path
// (measured first when missing): per np its result as JSON, or its error.
func predictAll(pkg, path string, m *machine.Machine, nps []int) (map[int]string, error) {
	prog, err := interp.Prepare(".", pkg)
	if err != nil {
		return nil, err
	}
	prof, err := profile.Read(path)
	if errors.Is(err, fs.ErrNotExist) {
		if prof, err = estimator.Run(estimator.Config{Pattern: pkg, Prepared: prog.Prepared, NP: 2}); err != nil {
			return nil, fmt.Errorf("timing pass: %v", err)
		}
		var b bytes.Buffer
		if err = prof.Write(&b); err != nil {
			return nil, err
		}
		if err = os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			return nil, err
		}
	}
	if err != nil {
		return nil, err
	}
	if err := prof.CheckNodes(prog.Model); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	cp, err := prog.Compile(prof, m)
	if err != nil {
		return nil, err
	}
	out := map[int]string{}
	for _, np := range nps {
		r, err := cp.Run(interp.Config{NP: np, Args: prof.Args})
		if err != nil {
			out[np] = "error: " + err.Error() + "\n"
			continue
		}
		var b bytes.Buffer
		if err := r.WriteJSON(&b, 10); err != nil {
			return nil, err
		}
		out[np] = b.String()
	}
	return out, nil
}

// compareDirs compares the predictions of two directories file by file
// and field by field, printing each difference; it returns how many
// files differ.
func compareDirs(a, b string) (int, error) {
	names := map[string]bool{}
	for _, dir := range []string{a, b} {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return 0, err
		}
		for _, e := range entries {
			names[e.Name()] = true
		}
	}
	differ := 0
	for _, name := range slices.Sorted(maps.Keys(names)) {
		x, errX := os.ReadFile(filepath.Join(a, name))
		y, errY := os.ReadFile(filepath.Join(b, name))
		if errX != nil || errY != nil {
			fmt.Printf("%s: only in one set\n", name)
			differ++
			continue
		}
		dx, errX := decode(x)
		dy, errY := decode(y)
		if errX != nil || errY != nil {
			if !bytes.Equal(x, y) {
				fmt.Printf("%s:\n  %s  %s", name, x, y)
				differ++
			}
			continue
		}
		if diffs := diff("", dx, dy); len(diffs) > 0 {
			differ++
			fmt.Printf("%s:\n", name)
			for _, d := range diffs[:min(len(diffs), 10)] {
				fmt.Printf("  %s\n", d)
			}
		}
	}
	fmt.Printf("%d of %d predictions differ\n", differ, len(names))
	return differ, nil
}

// decode decodes JSON keeping numbers as written: picosecond times pass
// 2⁵³, where float64 would round two of them to one.
func decode(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

// diff lists the paths where x and y differ.
func diff(path string, x, y any) []string {
	switch x := x.(type) {
	case map[string]any:
		y, ok := y.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: %v ≠ %v", path, x, y)}
		}
		var out []string
		keys := map[string]bool{}
		for k := range x {
			keys[k] = true
		}
		for k := range y {
			keys[k] = true
		}
		for _, k := range slices.Sorted(maps.Keys(keys)) {
			out = append(out, diff(path+"."+k, x[k], y[k])...)
		}
		return out
	case []any:
		y, ok := y.([]any)
		if !ok || len(x) != len(y) {
			return []string{fmt.Sprintf("%s: %d elements ≠ %v", path, len(x), y)}
		}
		var out []string
		for i := range x {
			out = append(out, diff(fmt.Sprintf("%s[%d]", path, i), x[i], y[i])...)
		}
		return out
	}
	if !reflect.DeepEqual(x, y) {
		return []string{fmt.Sprintf("%s: %v ≠ %v", path, x, y)}
	}
	return nil
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "samepredict: "+format+"\n", args...)
	os.Exit(2)
}
