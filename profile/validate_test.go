package profile

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/predict-tools/predict/modelgen"
)

// validProfile is a hand-made profile of two ranks that passes the checks:
// a fragment, a loop with per-rank trips and a decision.
func validProfile() *File {
	return &File{Format: Format, Version: Version, Package: "example.com/app", NP: 2, Alpha: 0.1,
		Host: "test", Created: "2026-01-01T00:00:00Z",
		WallPS: 12e9, PlainWallPS: 11e9, RunPS: 10e9, PlainRunPS: 10e9, MeasuredPS: 18e9, CommPS: 1e9,
		Overhead:  Overhead{SegPS: 30_000, IterPS: 40_000},
		Fragments: []FragmentStats{{Node: "main$1/seq", Kind: FragSegment, Executions: 10, MeanPS: 1e9, MinPS: 9e8, MaxPS: 11e8}},
		Loops: []LoopStats{{Node: "main$1/loop@+1:1", Trips: []TripCount{{Trips: 100, Count: 2}}, PerIterPS: 1e6, Samples: 8,
			Ranks: []RankTrips{{Rank: 1, Runs: [][2]int64{{100, 1}}}}}},
		Decisions: []DecisionStats{{Node: "main$1/if@+2:1", Ranks: []RankOutcomes{{Rank: 0, True: 1, False: 3, Runs: []int64{1, 3}}}}},
	}
}

// TestValidate checks that each value the model cannot use is refused,
// naming its field, and that a good profile passes.
func TestValidate(t *testing.T) {
	if err := validProfile().Validate(); err != nil {
		t.Fatalf("valid profile: %v", err)
	}
	for _, c := range []struct {
		edit func(p *File)
		want string
	}{
		{func(p *File) { p.NP = 0 }, "np: 0: want at least 1 rank"},
		{func(p *File) { p.NP = -3 }, "np: -3: want at least 1 rank"},
		{func(p *File) { p.Alpha = 1.5 }, "alpha: 1.5: want a fraction between 0 and 1"},
		{func(p *File) { p.PlainRunPS = -1 }, "plain_run_ps: -1: want a time of at least 0 ps"},
		{func(p *File) { p.Overhead.SegPS = -5 }, "overhead.seg_ps: -5: want a time of at least 0 ps"},
		{func(p *File) { p.Fragments[0].MeanPS = -7 }, "fragments[0].mean_ps: -7: want a time of at least 0 ps"},
		{func(p *File) { p.Fragments[0].MeanPS = MaxTime + 1 }, "fragments[0].mean_ps: 1000000000000000001 ps"},
		{func(p *File) { p.Fragments[0].Executions = -1 }, "fragments[0].executions: -1: want a count of at least 0"},
		{func(p *File) { p.Fragments[0].Kind = "blob" }, `fragments[0].kind: "blob": want seg, loop, branch or region`},
		{func(p *File) { p.Fragments[0].Node = "" }, "fragments[0].node: missing"},
		{func(p *File) { p.Fragments[0].ErrorRel = -0.5 }, "fragments[0].error_rel: -0.5: want a finite number"},
		{func(p *File) { p.ErrorRel = posInf() }, "error_rel: +Inf: want a finite number"},
		{func(p *File) { p.Loops[0].Trips[0].Trips = -100 }, "loops[0].trips[0].trips: -100: want a count"},
		{func(p *File) { p.Loops[0].D = nan() }, "loops[0].d: NaN: want a finite number"},
		{func(p *File) { p.Loops[0].FirstItersPS = []int64{10, -3} }, "loops[0].first_iters_ps[1]: -3: want a time of at least 0 ps"},
		{func(p *File) { p.Loops[0].LaterIterPS = 7 }, "loops[0].later_iter_ps: 7 without first_iters_ps: want both or neither"},
		{func(p *File) { p.Loops[0].FirstItersPS, p.Loops[0].Innermost = []int64{10}, true }, "loops[0].first_iters_ps: set on a loop timed per innermost iteration"},
		{func(p *File) { p.Loops[0].Ranks[0].Rank = 2 }, "loops[0].ranks[0].rank: 2: want a rank of the profile's np=2 (0 to 1)"},
		{func(p *File) { p.Loops[0].Ranks[0].Runs[0][1] = -1 }, "loops[0].ranks[0].runs[0][1] (entries): -1"},
		{func(p *File) { p.Decisions[0].Ranks[0].False = -3 }, "decisions[0].ranks[0].false: -3"},
		{func(p *File) { p.Decisions[0].Ranks[0].Rank = -1 }, "decisions[0].ranks[0].rank: -1: want a rank"},
		{func(p *File) { p.Runtime = &Runtime{GCCPUPS: -2} }, "runtime.gc_cpu_ps: -2: want a time of at least 0 ps"},
		{func(p *File) { p.Runtime = &Runtime{AllocBytes: -1} }, "runtime.alloc_bytes: -1: want a count of at least 0"},
		{func(p *File) { p.Runtime = &Runtime{SysCPUPS: -2} }, "runtime.sys_cpu_ps: -2: want a time of at least 0 ps"},
		{func(p *File) { p.Runtime = &Runtime{SysCPUPS: -1, MinorFaults: -4} }, "runtime.minor_faults: -4: want a count"},
		{func(p *File) { p.Replays = []Replay{{NP: 0}} }, "replays[0].np: 0: want at least 1"},
		{func(p *File) { p.Replays = []Replay{{NP: 2}} }, "replays[0].np: 2: a second record at that np (the profile's own is at np=2)"},
		{func(p *File) { p.Replays = []Replay{{NP: 1}, {NP: 1}} }, "replays[1].np: 1: a second record"},
		{func(p *File) {
			p.Replays = []Replay{{NP: 1, Decisions: []DecisionStats{{Node: "n", Ranks: []RankOutcomes{{Rank: 1}}}}}}
		}, "replays[0].decisions[0].ranks[0].rank: 1: want a rank of the profile's np=1"},
		{func(p *File) {
			p.Replays = []Replay{{NP: 1, Loops: []LoopTrips{{Node: "n", Ranks: []RankTrips{{Runs: [][2]int64{{-4, 1}}}}}}}}
		}, "replays[0].loops[0].ranks[0].runs[0][0] (trips): -4"},
	} {
		p := validProfile()
		c.edit(p)
		err := p.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want an error containing %q", err, c.want)
		}
	}
	// Several problems are listed together, in field order.
	p := validProfile()
	p.NP, p.Fragments[0].MeanPS = 0, -1
	if err := p.Validate(); err == nil || !strings.HasPrefix(err.Error(), "2 problems:\n  np: 0") {
		t.Errorf("two problems: got %v", err)
	}
}

// TestReadRefuses checks that Read applies the checks, with
// the file's path in the message.
func TestReadRefuses(t *testing.T) {
	dir := t.TempDir()
	write := func(p *File) string {
		var buf bytes.Buffer
		if err := p.Write(&buf); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "app.profile.json")
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	if _, err := Read(write(validProfile())); err != nil {
		t.Fatalf("valid profile: %v", err)
	}
	p := validProfile()
	p.Loops[0].PerIterPS = -10
	path := write(p)
	if _, err := Read(path); err == nil || err.Error() != "profile "+path+": loops[0].per_iter_ps: -10: want a time of at least 0 ps" {
		t.Errorf("negative time: got %v", err)
	}
	// A probed run 3× its plain run beyond its probes' cost: read, and
	// reported as a measurement not to keep (the callers warn).
	p = validProfile()
	p.PlainRunPS, p.RunPS = 30e9, 90e9
	if _, err := Read(write(p)); err != nil {
		t.Errorf("a disturbed profile is read (and warned about): %v", err)
	}
	if err := p.CheckDisturbance(); err == nil || !strings.Contains(err.Error(), "run_ps and plain_run_ps: the run with probes took 90ms and the run without 30ms") ||
		!strings.Contains(err.Error(), "ran 3.0× slower") || !strings.Contains(err.Error(), "measure again") {
		t.Errorf("disturbed profile: got %v", err)
	}
	// As disturbed, on a machine whose other load was nil: the probes'
	// own perturbation, not a measurement to take again.
	p.CPUs, p.OtherCores = 2, 0.1
	if err := p.CheckDisturbance(); err != nil {
		t.Errorf("a disturbance on a quiet machine: %v", err)
	}
	if note := p.DisturbanceNote(); !strings.Contains(note, "the probes perturb this program") {
		t.Errorf("quiet machine: %s", note)
	}
	if eff := p.DisturbanceEffect(); eff != "fragment times may read up to 200% slow" {
		t.Errorf("a probed run 3× its plain run: %s", eff)
	}
	// The other way, on a quiet machine: the probed run a third of the
	// plain one reads its fragments fast, by up to two thirds, and the
	// scaling to the plain run says how their total was set.
	q := validProfile()
	q.PlainRunPS, q.RunPS = 90e9, 30e9+q.ProbeCostPS()
	q.CPUs, q.OtherCores = 2, 0.1
	if note := q.DisturbanceNote(); !strings.Contains(note, "ran 3.0× faster on an otherwise quiet machine: the program ran faster with its probes than without them") || !strings.HasSuffix(note, "read fast") {
		t.Errorf("a faster probed run on a quiet machine: %s", note)
	}
	if !q.ProbedFaster() || p.ProbedFaster() {
		t.Errorf("ProbedFaster: %v for the faster probed run, %v for the slower", q.ProbedFaster(), p.ProbedFaster())
	}
	if eff := q.DisturbanceEffect(); eff != "fragment times may read up to 67% fast" {
		t.Errorf("a faster probed run: %s", eff)
	}
	q.Scale = 2.9
	if eff := q.DisturbanceEffect(); !strings.HasPrefix(eff, "fragment times may read up to 67% fast (scaled by 2.900 to the run without probes") {
		t.Errorf("a faster probed run, scaled: %s", eff)
	}
	// Under load: not to keep.
	p.OtherCores = 1.5
	if err := p.CheckDisturbance(); err == nil || !strings.Contains(err.Error(), "other load disturbed the measurement") {
		t.Errorf("a disturbance under load: %v", err)
	}
	p.CPUs, p.OtherCores = 0, 0
	// As disturbed, but by less than 20 ms: warned about when measured,
	// and kept.
	p.PlainRunPS, p.RunPS = 5e9, 15e9
	if err := p.CheckDisturbance(); err != nil {
		t.Errorf("a disturbance of 10 ms: %v", err)
	}
}

// TestDisturbance checks the ratio of the two runs' spans beyond the
// probes' cost, and the floor under which start-up noise is ignored.
func TestDisturbance(t *testing.T) {
	const ms = 1_000_000_000
	cost := validProfile().ProbeCostPS() // (10 × 30 ns + 8 × 40 ns) / 2 ranks
	if cost != 310_000 {
		t.Fatalf("probe cost %d ps, want 310 ns", cost)
	}
	for _, c := range []struct {
		plain, probed int64 // ps, the probed run less its probes' cost
		want          float64
	}{
		{10 * ms, 10 * ms, 1},
		{10 * ms, 15 * ms, 1.5},
		{10 * ms, 5 * ms, 2}, // a plain run slowed down counts too
		{1 * ms, 2 * ms, 1},  // 1 ms apart: under the floor of start-up noise
		{1 * ms, 4 * ms, 4},  // 3 ms apart
		{0, 10 * ms, 1},      // not measured
		{10 * ms, 0, 1},      // nothing left after the probes' cost
		{100 * ms, 101 * ms, 1},
	} {
		p := validProfile()
		p.PlainRunPS, p.RunPS = c.plain, c.probed+cost
		if got := p.Disturbance(); got < c.want-1e-3 || got > c.want+1e-3 {
			t.Errorf("plain %d ps, probed %d ps + probes: disturbance %.4f, want %.4f", c.plain, c.probed, got, c.want)
		}
	}
}

// TestCheckNodes checks a profile's node IDs against the model of the
// program it claims to be of: ./testprogs/amdahl.
func TestCheckNodes(t *testing.T) {
	l, err := modelgen.Load(modelgen.Config{Dir: "..", Pattern: "./testprogs/amdahl"})
	if err != nil {
		t.Fatal(err)
	}
	prog, err := modelgen.Build(l, modelgen.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := validProfile()
	p.Fragments, p.Loops, p.Decisions = nil, nil, nil
	p.Fragments = append(p.Fragments, FragmentStats{Node: prog.Functions[0].Tree.ID, Kind: FragSegment})
	if err := p.CheckNodes(prog); err != nil {
		t.Fatalf("a node of the model: %v", err)
	}
	p.Loops = append(p.Loops, LoopStats{Node: "main$1/loop@+99:1"})
	err = p.CheckNodes(prog)
	if err == nil || !strings.Contains(err.Error(), `loops[0].node: "main$1/loop@+99:1": the model of github.com/predict-tools/predict/testprogs/amdahl has no such node`) {
		t.Errorf("a node the model lacks: got %v", err)
	}
}

func posInf() float64 { return 1 / zero }
func nan() float64    { return zero / zero }

var zero float64

// TestLoadNote checks the judgement of the machine's other load during a
// run: whether it took cores the ranks needed.
func TestLoadNote(t *testing.T) {
	for _, c := range []struct {
		other    float64
		np, cpus int
		loaded   bool
	}{
		{0.3, 2, 2, false}, // noise
		{1.2, 2, 2, true},  // a core taken from 2 ranks on 2 cores
		{1.2, 1, 2, false}, // the spare core
		{2.0, 1, 2, true},
		{5.5, 4, 16, false},
		{12.6, 4, 16, true},
	} {
		note, loaded := loadNote(c.other, c.np, c.cpus)
		if loaded != c.loaded || loaded != (note != "") {
			t.Errorf("%.1f other cores, np=%d on %d: loaded %v (%q), want %v", c.other, c.np, c.cpus, loaded, note, c.loaded)
		}
	}
}
