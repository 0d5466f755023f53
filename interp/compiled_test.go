package interp

import (
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	"github.com/predict-tools/predict/profile"
	"github.com/predict-tools/predict/testprogs"
)

// TestCompiledReuse checks that a program compiled once runs at any np,
// again and again, as a program compiled for each run does: every field
// of every result equal. The runs go up and down in np and come back, so
// that state one run leaves (globals, fragments' limits, decisions and
// loops marked used, recursion counts, recycled frames) would show. Every
// test program runs without a profile (what the model computes), at class
// S (the corpus is left out: without its profile's outcomes, some of its
// loops on data never end); stencil and cg with their profiles (fragments, collapsed
// loops, replayed decisions) and their arguments at the profile's and at
// other values (the runaway limits hold only for the profile's).
func TestCompiledReuse(t *testing.T) {
	if testing.Short() {
		t.Skip("interprets every test program")
	}
	type run struct {
		np   int
		args []string
	}
	check := func(t *testing.T, p *Program, prof *profile.File, runs []run) {
		m := handMachine(t)
		cp, err := p.Compile(prof, m)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range runs {
			cfg := Config{NP: r.np, Machine: m, Profile: prof, Args: r.args}
			want, werr := p.Run(cfg)
			got, gerr := cp.Run(cfg)
			if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
				t.Fatalf("np=%d %v: compiled once: %v; compiled for the run: %v", r.np, r.args, gerr, werr)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("np=%d %v: the result of a program compiled once differs from one compiled for the run:\n got %+v\nwant %+v", r.np, r.args, got, want)
			}
		}
	}
	dirs, err := testprogs.Dirs("../testprogs")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		t.Run(d, func(t *testing.T) {
			p := prepare(t, "./testprogs/"+d)
			s := []string{"-class", "S"} // every test program's smallest size
			check(t, p, nil, []run{{4, s}, {1, s}, {8, s}, {4, s}, {2, s}})
		})
	}
	for _, name := range []string{"stencil", "cg"} {
		t.Run(name+"/profiled", func(t *testing.T) {
			p := prepare(t, "./testprogs/"+name)
			prof, err := profile.Read(filepath.Join("testdata", "render", name+".profile.json"))
			if err != nil {
				t.Fatal(err)
			}
			same := prof.Args
			check(t, p, prof, []run{{prof.NP, same}, {1, same}, {16, same}, {prof.NP, same}, {4, nil}, {prof.NP, same}})
		})
	}
}

// TestRunnerParallel checks a Runner used by several goroutines at once
// (as predict scale's workers use it): each run equals a fresh compile's,
// whichever compiled program it was handed.
func TestRunnerParallel(t *testing.T) {
	p := prepare(t, "./testprogs/stencil")
	prof, err := profile.Read(filepath.Join("testdata", "render", "stencil.profile.json"))
	if err != nil {
		t.Fatal(err)
	}
	m := handMachine(t)
	nps := []int{1, 2, 3, 4, 8, 16, 2, 4, 1, 8}
	want := make([]*Result, len(nps))
	for i, np := range nps {
		if want[i], err = p.Run(Config{NP: np, Machine: m, Profile: prof, Args: prof.Args}); err != nil {
			t.Fatal(err)
		}
	}
	r := p.Runner(prof, m)
	got := make([]*Result, len(nps))
	errs := make([]error, len(nps))
	var wg sync.WaitGroup
	for i, np := range nps {
		wg.Go(func() { got[i], errs[i] = r.Run(Config{NP: np, Args: prof.Args}) })
	}
	wg.Wait()
	for i, np := range nps {
		if errs[i] != nil {
			t.Fatalf("np=%d: %v", np, errs[i])
		}
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("np=%d: a parallel run of the Runner differs from a fresh compile's", np)
		}
	}
}
