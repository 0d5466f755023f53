// This file defines the checks of a profile's values: a profile is a file
// a user may edit, copy from another machine or truncate, and its figures
// become the model's times, so a value the interpreter cannot use is an
// error that names its field, never a silently wrong prediction.

package profile

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/predict-tools/predict/model"
	"github.com/predict-tools/predict/trace"
)

// MaxTime is the largest time a profile may hold, in picoseconds
// (about 11.6 days): times are multiplied by trip counts and summed over
// ranks in int64 picoseconds, so a value near the type's limit would wrap.
const MaxTime = 1_000_000_000_000_000_000

// Validate checks that every count, time and fraction of the profile is
// one the model can use: np at least 1, no negative or non-finite value,
// no time above MaxTime, ranks within np. The error names the
// field, as a path into the JSON file (fragments[3].mean_ps).
func (p *File) Validate() error {
	var v profileCheck
	if p.NP < 1 {
		v.errorf("np", "%d: want at least 1 rank", p.NP)
	}
	if !(p.Alpha > 0 && p.Alpha < 1) {
		v.errorf("alpha", "%v: want a fraction between 0 and 1", p.Alpha)
	}
	v.times("", map[string]int64{"wall_ps": p.WallPS, "plain_wall_ps": p.PlainWallPS, "plain_cpu_ps": p.PlainCPUPS,
		"run_ps": p.RunPS, "plain_run_ps": p.PlainRunPS, "plain_run_cpu_ps": p.PlainRunCPUPS,
		"measured_ps": p.MeasuredPS, "comm_ps": p.CommPS})
	v.times("overhead.", map[string]int64{"seg_ps": p.Overhead.SegPS, "iter_ps": p.Overhead.IterPS,
		"counter_ps": p.Overhead.CounterPS, "test_ps": p.Overhead.TestPS, "sampled_ps": p.Overhead.SampledPS})
	v.fraction("error_rel", p.ErrorRel)
	v.fraction("other_cores", p.OtherCores)
	if p.CPUs < 0 {
		v.errorf("cpus", "%d: want a number of CPUs (0: not recorded)", p.CPUs)
	}
	if p.LoadedBy < 0 {
		v.errorf("loaded_by", "%d: want a number of co-runners (0: no loaded run)", p.LoadedBy)
	}
	v.ratio("alone_rel", p.AloneRel)
	v.ratio("loaded_rel", p.LoadedRel)
	if rt := p.Runtime; rt != nil {
		v.times("runtime.", map[string]int64{"gc_cpu_ps": rt.GCCPUPS, "scavenge_cpu_ps": rt.ScavengeCPUPS})
		v.count("runtime.alloc_bytes", rt.AllocBytes)
		v.count("runtime.gc_cycles", rt.GCCycles)
		// -1: the system does not say.
		if rt.SysCPUPS != -1 {
			v.times("runtime.", map[string]int64{"sys_cpu_ps": rt.SysCPUPS})
		}
		if rt.MinorFaults != -1 {
			v.count("runtime.minor_faults", rt.MinorFaults)
		}
	}
	for i, f := range p.Fragments {
		at := fmt.Sprintf("fragments[%d].", i)
		v.node(at, f.Node)
		switch f.Kind {
		case FragSegment, FragLoop, FragBranch, FragRegion:
		default:
			v.errorf(at+"kind", "%q: want seg, loop, branch or region", f.Kind)
		}
		v.count(at+"executions", f.Executions)
		v.times(at, map[string]int64{"mean_ps": f.MeanPS, "sd_ps": f.SDPS, "min_ps": f.MinPS, "max_ps": f.MaxPS, "error_ps": f.ErrorPS})
		v.fraction(at+"error_rel", f.ErrorRel)
		v.ratio(at+"alone_rel", f.AloneRel)
		v.ratio(at+"loaded_rel", f.LoadedRel)
	}
	for i, l := range p.Loops {
		at := fmt.Sprintf("loops[%d].", i)
		v.node(at, l.Node)
		for j, t := range l.Trips {
			v.count(fmt.Sprintf("%strips[%d].trips", at, j), t.Trips)
			v.count(fmt.Sprintf("%strips[%d].count", at, j), t.Count)
		}
		v.times(at, map[string]int64{"per_iter_ps": l.PerIterPS, "later_iter_ps": l.LaterIterPS})
		for j, t := range l.FirstItersPS {
			v.times(at, map[string]int64{fmt.Sprintf("first_iters_ps[%d]", j): t})
		}
		if l.LaterIterPS != 0 && len(l.FirstItersPS) == 0 {
			v.errorf(at+"later_iter_ps", "%d without first_iters_ps: want both or neither", l.LaterIterPS)
		}
		if len(l.FirstItersPS) > 0 && l.Innermost {
			v.errorf(at+"first_iters_ps", "set on a loop timed per innermost iteration: its iterations are not the loop's own")
		}
		v.count(at+"samples", int64(l.Samples))
		v.fraction(at+"d", l.D)
		v.rankTrips(at, l.Ranks, p.NP)
	}
	v.replayed("", p.Decisions, p.CommArgs, p.NP)
	seen := map[int]bool{p.NP: true}
	for i, r := range p.Replays {
		at := fmt.Sprintf("replays[%d].", i)
		switch {
		case r.NP < 1:
			v.errorf(at+"np", "%d: want at least 1", r.NP)
		case seen[r.NP]:
			v.errorf(at+"np", "%d: a second record at that np (the profile's own is at np=%d)", r.NP, p.NP)
		}
		seen[r.NP] = true
		for j, l := range r.Loops {
			lat := fmt.Sprintf("%sloops[%d].", at, j)
			v.node(lat, l.Node)
			v.rankTrips(lat, l.Ranks, r.NP)
		}
		v.replayed(at, r.Decisions, r.CommArgs, r.NP)
	}
	return v.err()
}

// rankTrips checks a loop's trip counts per rank, of a record at np.
func (v *profileCheck) rankTrips(at string, ranks []RankTrips, np int) {
	for j, r := range ranks {
		rat := fmt.Sprintf("%sranks[%d].", at, j)
		v.rank(rat+"rank", r.Rank, np)
		for k, run := range r.Runs {
			v.count(fmt.Sprintf("%sruns[%d][0] (trips)", rat, k), run[0])
			v.count(fmt.Sprintf("%sruns[%d][1] (entries)", rat, k), run[1])
		}
	}
}

// replayed checks the decisions and commlib arguments of a record at np,
// its fields under prefix at.
func (v *profileCheck) replayed(prefix string, decisions []DecisionStats, commArgs []ArgStats, np int) {
	for i, d := range decisions {
		at := fmt.Sprintf("%sdecisions[%d].", prefix, i)
		v.node(at, d.Node)
		for j, r := range d.Ranks {
			rat := fmt.Sprintf("%sranks[%d].", at, j)
			v.rank(rat+"rank", r.Rank, np)
			v.count(rat+"true", r.True)
			v.count(rat+"false", r.False)
			for k, n := range r.Runs {
				v.count(fmt.Sprintf("%sruns[%d]", rat, k), n)
			}
		}
	}
	for i, a := range commArgs {
		at := fmt.Sprintf("%scomm_args[%d].", prefix, i)
		if a.Site == "" {
			v.errorf(at+"site", "empty: want the call's file:line:col")
		}
		if a.Arg < 0 {
			v.errorf(at+"arg", "%d: want an argument's position", a.Arg)
		}
		switch a.Part {
		case "value", "length", "elements":
		default:
			v.errorf(at+"part", "%q: want value, length or elements", a.Part)
		}
		for j, r := range a.Ranks {
			rat := fmt.Sprintf("%sranks[%d].", at, j)
			v.rank(rat+"rank", r.Rank, np)
			for k, run := range r.Runs {
				v.count(fmt.Sprintf("%sruns[%d].n", rat, k), run.N)
				if len(run.Vals) == 0 {
					v.errorf(fmt.Sprintf("%sruns[%d].vals", rat, k), "empty: want a value, or a length and elements")
				}
			}
		}
	}
}

// CheckNodes reports the nodes the profile times that the model of the
// program does not have: a profile of another version of the program
// whose content hash was edited, or a hand-made one.
func (p *File) CheckNodes(prog *model.Program) error {
	ids := map[string]bool{}
	for _, f := range prog.Functions {
		model.Walk(f.Tree, func(n *model.Node) bool {
			ids[n.ID] = true
			return true
		})
	}
	var v profileCheck
	check := func(at, node string) {
		if node != "" && !ids[node] {
			v.errorf(at, "%q: the model of %s has no such node (a profile of other sources?): run predict profile again", node, prog.Package)
		}
	}
	for i, f := range p.Fragments {
		check(fmt.Sprintf("fragments[%d].node", i), f.Node)
		for j, c := range f.Covers {
			check(fmt.Sprintf("fragments[%d].covers[%d]", i, j), c)
		}
	}
	for i, l := range p.Loops {
		check(fmt.Sprintf("loops[%d].node", i), l.Node)
	}
	for i, a := range p.CommArgs {
		check(fmt.Sprintf("comm_args[%d].node", i), a.Node)
	}
	for i, d := range p.Decisions {
		check(fmt.Sprintf("decisions[%d].node", i), d.Node)
	}
	for i, r := range p.Replays {
		for j, l := range r.Loops {
			check(fmt.Sprintf("replays[%d].loops[%d].node", i, j), l.Node)
		}
		for j, a := range r.CommArgs {
			check(fmt.Sprintf("replays[%d].comm_args[%d].node", i, j), a.Node)
		}
		for j, d := range r.Decisions {
			check(fmt.Sprintf("replays[%d].decisions[%d].node", i, j), d.Node)
		}
	}
	return v.err()
}

// profileCheck collects the problems of a profile, in field order.
type profileCheck struct{ problems []string }

func (v *profileCheck) errorf(field, format string, args ...any) {
	v.problems = append(v.problems, field+": "+fmt.Sprintf(format, args...))
}

// err returns the problems as one error (the first ten of them).
func (v *profileCheck) err() error {
	switch n := len(v.problems); {
	case n == 0:
		return nil
	case n > 10:
		return fmt.Errorf("%s\n  … and %d more", strings.Join(v.problems[:10], "\n  "), n-10)
	case n == 1:
		return fmt.Errorf("%s", v.problems[0])
	default:
		return fmt.Errorf("%d problems:\n  %s", n, strings.Join(v.problems, "\n  "))
	}
}

func (v *profileCheck) node(at, node string) {
	if node == "" {
		v.errorf(at+"node", "missing: want the model node the measurement belongs to")
	}
}

func (v *profileCheck) count(field string, n int64) {
	if n < 0 {
		v.errorf(field, "%d: want a count of at least 0", n)
	}
}

func (v *profileCheck) rank(field string, r, np int) {
	if np >= 1 && (r < 0 || r >= np) { // an np under 1 is its own problem
		v.errorf(field, "%d: want a rank of the profile's np=%d (0 to %d)", r, np, np-1)
	}
}

// times checks the named times (JSON field names, after the prefix at),
// in name order.
func (v *profileCheck) times(at string, ts map[string]int64) {
	for _, name := range sortedKeys(ts) {
		switch t := ts[name]; {
		case t < 0:
			v.errorf(at+name, "%d: want a time of at least 0 ps", t)
		case t > MaxTime:
			v.errorf(at+name, "%d ps (%v): more than the %v a profile may hold", t, trace.Time(t), trace.Time(MaxTime))
		}
	}
}

func (v *profileCheck) fraction(field string, x float64) {
	if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
		v.errorf(field, "%v: want a finite number of at least 0", x)
	}
}

// ratio checks a ratio of two times of a fragment: 0 (not measured) or
// between 0.1 and 10 (the timing pass bounds them well inside).
func (v *profileCheck) ratio(field string, x float64) {
	if math.IsNaN(x) || x != 0 && (x < 0.1 || x > 10) {
		v.errorf(field, "%v: want 0 (not measured) or a ratio between 0.1 and 10", x)
	}
}

func sortedKeys(m map[string]int64) []string {
	return slices.Sorted(maps.Keys(m))
}
