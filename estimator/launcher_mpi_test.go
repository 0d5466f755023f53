//go:build mpi

package estimator

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/predict-tools/predict/profile"
)

// TestProfileUnderLauncher runs the timing pass of the stencil (class S)
// at np 2 under mpirun, one process a rank, and in one process, and
// checks that the launched profile has what the in-process one has: the
// fragments that take time, the loops' trip counts and the decisions of
// both ranks (each from its own process), commlib's time, the record at
// a second np (run under the launcher at np 1), and a coverage of the
// plain run within the bounds that let it be scaled. Structure and
// non-zero times, not timings: the machine is shared.
func TestProfileUnderLauncher(t *testing.T) {
	words := "mpirun --oversubscribe -np 2"
	if os.Geteuid() == 0 {
		words += " --allow-run-as-root"
	}
	l, err := ParseLauncher(words)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"-class", "S"}
	mpi, err := Run(Config{Dir: "..", Pattern: "./testprogs/stencil", Args: args, Repeat: 2, Launcher: l})
	if err != nil {
		t.Fatal(err)
	}
	in, err := Run(Config{Dir: "..", Pattern: "./testprogs/stencil", NP: 2, Args: args, Repeat: 2})
	if err != nil {
		t.Fatal(err)
	}
	if mpi.NP != 2 || mpi.Launcher != l.String() || in.Launcher != "" {
		t.Errorf("np %d, launcher %q (in-process %q)", mpi.NP, mpi.Launcher, in.Launcher)
	}
	if mpi.RunPS <= 0 || mpi.PlainRunPS <= 0 || mpi.PlainComputePS <= 0 || mpi.CommPS <= 0 || mpi.MeasuredPS <= 0 {
		t.Errorf("run %d ps, plain run %d ps, plain compute %d ps, commlib %d ps, measured %d ps: want all above 0",
			mpi.RunPS, mpi.PlainRunPS, mpi.PlainComputePS, mpi.CommPS, mpi.MeasuredPS)
	}
	// The fragments that take 1 % of the in-process profile's time are
	// measured under the launcher too, as often.
	got := map[fragKey]profile.FragmentStats{}
	for _, f := range mpi.Fragments {
		got[keyOf(f)] = f
		if f.Executions <= 0 || f.MeanPS < 0 || f.MinPS > f.MaxPS {
			t.Errorf("fragment %+v", f)
		}
	}
	for _, f := range in.Fragments {
		if float64(f.MeanPS)*float64(f.Executions) < 0.01*float64(in.MeasuredPS) {
			continue
		}
		g, ok := got[keyOf(f)]
		switch {
		case !ok:
			t.Errorf("%s %s (%s): measured in one process, not under the launcher", f.Kind, f.Node, f.Pos)
		case g.Executions != f.Executions || g.MeanPS <= 0:
			t.Errorf("%s %s: %d executions, mean %d ps under the launcher; %d in one process", f.Kind, f.Node, g.Executions, g.MeanPS, f.Executions)
		}
	}
	// The sweep: 100 iterations on each rank's half, and rank 0's
	// sequential reference over the whole grid.
	var sweep *profile.LoopStats
	for i, lp := range mpi.Loops {
		if lp.Node == "sweep/loop@+2:2" {
			sweep = &mpi.Loops[i]
		}
	}
	if sweep == nil || len(sweep.Trips) != 2 || sweep.Trips[0] != (profile.TripCount{Trips: 32768, Count: 200}) || sweep.Trips[1] != (profile.TripCount{Trips: 65536, Count: 100}) || sweep.PerIterPS <= 0 {
		t.Errorf("sweep's loop: %+v", sweep)
	}
	// Decisions per rank: both ranks', as in one process.
	ranksOf := func(p *profile.File) map[string][]int {
		m := map[string][]int{}
		for _, d := range p.Decisions {
			for _, r := range d.Ranks {
				m[d.Node] = append(m[d.Node], r.Rank)
			}
		}
		return m
	}
	gotRanks, wantRanks := ranksOf(mpi), ranksOf(in)
	both := 0
	for node, want := range wantRanks {
		if !slices.Equal(gotRanks[node], want) {
			t.Errorf("decision %s: ranks %v under the launcher, %v in one process", node, gotRanks[node], want)
		}
		if slices.Equal(want, []int{0, 1}) {
			both++
		}
	}
	if both == 0 || len(gotRanks) != len(wantRanks) {
		t.Errorf("decisions under the launcher %v, in one process %v: want the same, some of both ranks", gotRanks, wantRanks)
	}
	// The stencil is deterministic: each rank's outcomes, and the trip
	// counts of every loop both profiles timed, are those of one process
	// exactly, though each rank's come from a file of its own.
	if !reflect.DeepEqual(mpi.Decisions, in.Decisions) {
		t.Errorf("decisions under the launcher:\n%+v\nin one process:\n%+v", mpi.Decisions, in.Decisions)
	}
	inLoops := map[string]profile.LoopStats{}
	for _, lp := range in.Loops {
		inLoops[lp.Node] = lp
	}
	for _, lp := range mpi.Loops {
		if w, ok := inLoops[lp.Node]; ok && (!reflect.DeepEqual(lp.Trips, w.Trips) || !reflect.DeepEqual(lp.Ranks, w.Ranks)) {
			t.Errorf("loop %s: trips %v ranks %v under the launcher, %v %v in one process", lp.Node, lp.Trips, lp.Ranks, w.Trips, w.Ranks)
		}
	}
	// The record at a second np ran under the launcher at np 1.
	if len(mpi.Replays) != 1 || mpi.Replays[0].NP != 1 || len(mpi.Replays[0].Decisions) == 0 {
		t.Errorf("replays %+v, want one at np=1 with decisions", mpi.Replays)
	} else if len(in.Replays) != 1 || !reflect.DeepEqual(mpi.Replays[0].Decisions, in.Replays[0].Decisions) {
		t.Errorf("decisions at np=1 under the launcher %+v, in one process %+v", mpi.Replays[0].Decisions, in.Replays)
	}
	// The fragments were scaled to the plain run: their sum was within
	// [minScale, maxScale] of its compute.
	if mpi.Scale < minScale || mpi.Scale > maxScale || in.Scale < minScale || in.Scale > maxScale {
		t.Errorf("scale %v under the launcher, %v in one process: coverage out of bounds (warnings %q)", mpi.Scale, in.Scale, mpi.Warnings)
	}
	t.Logf("under the launcher: %d fragments, %d decisions, scale %.3f; in one process: %d fragments, %d decisions, scale %.3f",
		len(mpi.Fragments), len(mpi.Decisions), mpi.Scale, len(in.Fragments), len(in.Decisions), in.Scale)
	// The alone runs cannot run under a launcher: said, not silent.
	if mpi.AloneRel != 0 || !slices.ContainsFunc(mpi.Warnings, func(w string) bool { return strings.Contains(w, "alone were skipped: under --launcher") }) {
		t.Errorf("alone ratio %v, warnings %q: want the alone runs skipped, loudly", mpi.AloneRel, mpi.Warnings)
	}
}
