// This file defines the summary `predict profile` prints.

package profile

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/predict-tools/predict/trace"
)

// WriteSummary prints what a timing pass measured: the runs, the probe
// overhead, the fragments that take most time with their error bounds,
// the loops and their balance, and the opaque decisions recorded.
func (p *File) WriteSummary(w io.Writer, top int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "profile of %s at np=%d", p.Package, p.NP)
	if len(p.Args) > 0 {
		fmt.Fprintf(&b, " with %s", strings.Join(p.Args, " "))
	}
	if p.Launcher != "" {
		fmt.Fprintf(&b, " under %s (one process a rank)", p.Launcher)
	}
	fmt.Fprintf(&b, " (%s)\n", p.Host)
	plain, probed := p.PlainRunTime()
	slow := 0.0
	if plain > 0 {
		slow = float64(probed) / float64(plain)
	}
	fmt.Fprintf(&b, "run: %v without probes, %v with (slowdown %.2fx)", trace.Time(plain), trace.Time(probed), slow)
	if p.PlainRunPS > 0 {
		fmt.Fprintf(&b, " from the first rank's start to the run's end; processes %v and %v", trace.Time(p.PlainWallPS), trace.Time(p.WallPS))
	}
	fmt.Fprintf(&b, "\nprobe overhead %v per fragment, %v per sampled iteration, %v per counted iteration, %v per iteration of a sampled copy, %v per sampled entry (compensated)\n",
		trace.Time(p.Overhead.SegPS), trace.Time(p.Overhead.IterPS), trace.Time(p.Overhead.CounterPS), trace.Time(p.Overhead.TestPS), trace.Time(p.Overhead.SampledPS))
	if p.Clock == ClockThread {
		fmt.Fprintf(&b, "measured: %v in %d fragments and regions, timed by the CPU clock of their threads (the program runs threads or goroutines), %.1f%% of the plain run's CPU time; %v inside commlib; program-level error bound ±%.2f%%\n",
			trace.Time(p.MeasuredPS), len(p.Fragments), 100*p.Coverage(), trace.Time(p.CommPS), 100*p.ErrorRel)
	} else if p.Regions && p.PlainComputePS > 0 {
		cov := float64(p.MeasuredPS) / float64(p.PlainComputePS)
		if p.Scale > 0 {
			cov = 1 / p.Scale
		}
		fmt.Fprintf(&b, "measured: %v in %d fragments and regions (%.1f%% of the plain runs' compute before scaling) and %v inside commlib; program-level error bound ±%.2f%%\n",
			trace.Time(p.MeasuredPS), len(p.Fragments), 100*cov, trace.Time(p.CommPS), 100*p.ErrorRel)
	} else {
		fmt.Fprintf(&b, "measured: %v in %d fragments and %v inside commlib (together %.1f%% of the plain run's time × np); program-level error bound ±%.2f%%\n",
			trace.Time(p.MeasuredPS), len(p.Fragments), trace.Time(p.CommPS), 100*p.Coverage(), 100*p.ErrorRel)
	}
	if p.Runs > 1 {
		fmt.Fprintf(&b, "runs: %d of each program; fragment means are medians over the probed runs; the runs without probes spread by %.1f%% in compute\n", p.Runs, 100*p.SpreadRel)
	}
	if p.Regions {
		fmt.Fprintf(&b, "regions: the functions and iterated loops measured inside are timed whole too, so no time goes unmeasured")
		if p.Scale > 0 {
			fmt.Fprintf(&b, "; fragment times scaled by %.3f to the run without probes (%v outside commlib, all ranks)", p.Scale, trace.Time(p.PlainComputePS))
		}
		b.WriteString("\n")
	}
	if p.AloneRel > 0 {
		fmt.Fprintf(&b, "alone: with the %d ranks taking turns, the fragments took %.0f%% of the time they took sharing this machine's %s (time-weighted); a rank alone on its node is charged that, one on a node as busy as this one the shared time, in proportion between\n",
			p.NP, 100*p.AloneRel, cpusText(p.CPUs))
	}
	if p.LoadedRel > 0 {
		fmt.Fprintf(&b, "loaded: beside %d co-runner(s) streaming through memory on the CPUs the ranks left idle, the fragments took %.0f%% of the time measured (time-weighted); a rank on a node whose cores are all busy is charged that, one on a node as busy as this one the measured time, in proportion between\n",
			p.LoadedBy, 100*p.LoadedRel)
	}
	if rt := p.RuntimeText(); rt != "" {
		fmt.Fprintf(&b, "runtime: %s\n", rt)
	}
	for _, w := range p.Warnings {
		fmt.Fprintf(&b, "WARNING: %s\n", w)
	}
	frags := slices.Clone(p.Fragments)
	slices.SortStableFunc(frags, func(x, y FragmentStats) int {
		tx, ty := x.MeanPS*x.Executions, y.MeanPS*y.Executions
		switch {
		case tx > ty:
			return -1
		case tx < ty:
			return 1
		}
		return strings.Compare(x.Node, y.Node)
	})
	if len(frags) > top {
		frags = frags[:top]
	}
	fmt.Fprintf(&b, "\n%-12s %10s %12s %12s %9s  %s\n", "total", "runs", "mean", "±bound", "bound", "fragment")
	for _, f := range frags {
		fmt.Fprintf(&b, "%-12v %10d %12v %12v %8.2f%%  %s %s\n", trace.Time(f.MeanPS*f.Executions), f.Executions,
			trace.Time(f.MeanPS), trace.Time(f.ErrorPS), 100*f.ErrorRel, f.Kind, f.Pos)
	}
	if len(p.Loops) > 0 {
		fmt.Fprintf(&b, "\nloops timed whole (balanced when D ≤ %.2g):\n", p.Alpha)
		for _, l := range p.Loops {
			state := "balanced"
			switch {
			case len(l.FirstItersPS) > 0:
				state = fmt.Sprintf("unbalanced by iteration: an entry is charged its first %d iterations' estimates (%s), then %v each",
					len(l.FirstItersPS), timesString(l.FirstItersPS, 4), trace.Time(l.LaterIterPS))
			case !l.Balanced:
				state = "unbalanced (its iterations differ: charged at their mean)"
			}
			fmt.Fprintf(&b, "  %s  %v per iteration, D=%.3f (%d samples), %s, trips %s\n", l.Node, trace.Time(l.PerIterPS), l.D,
				l.Samples, state, tripsString(l.Trips))
		}
	}
	if len(p.Decisions) > 0 {
		fmt.Fprintf(&b, "\nopaque decisions recorded:\n")
		for _, d := range p.Decisions {
			var parts []string
			for _, r := range d.Ranks {
				parts = append(parts, fmt.Sprintf("rank %d: %d true, %d false", r.Rank, r.True, r.False))
			}
			fmt.Fprintf(&b, "  %s  %s\n", d.Pos, strings.Join(parts, "; "))
		}
	}
	for _, r := range p.Replays {
		loops := 0
		for _, l := range r.Loops {
			loops += min(len(l.Ranks), 1)
		}
		fmt.Fprintf(&b, "\nrecorded again at np=%d (a run of its own; predictions replay each record at its np and follow their trend between): %d decisions, %d loops' trip counts, %d commlib arguments\n",
			r.NP, len(r.Decisions), loops, len(r.CommArgs))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// PlainRunTime returns the wall time of the plain and of the instrumented
// run: measured inside the processes (from the first rank's start to the
// run's end) where the profile has them, else the processes' wall times.
func (p *File) PlainRunTime() (plain, probed int64) {
	if p.PlainRunPS > 0 && p.RunPS > 0 {
		return p.PlainRunPS, p.RunPS
	}
	return p.PlainWallPS, p.WallPS
}

// Coverage is the self-consistency figure of a profile: the compensated
// fragment times and the time inside commlib against the plain run's
// wall time × np (at np = 1 it should be close to 1). For a profile timed
// by the thread clock it is the fragments against the plain run's CPU
// time: threads compute at the same time as each other and as their
// rank's main thread waits inside commlib (WaitForAll), so neither the
// wall time nor the time inside commlib adds up with them.
func (p *File) Coverage() float64 {
	if p.Clock == ClockThread {
		cpu := p.PlainRunCPUPS
		if cpu <= 0 {
			cpu = p.PlainCPUPS
		}
		if cpu <= 0 {
			return 0
		}
		return float64(p.MeasuredPS) / float64(cpu)
	}
	plain, _ := p.PlainRunTime()
	if plain <= 0 {
		return 0
	}
	return float64(p.MeasuredPS+p.CommPS) / float64(plain*int64(max(p.NP, 1)))
}

func tripsString(ts []TripCount) string {
	var parts []string
	for i, t := range ts {
		if i == 4 {
			parts = append(parts, fmt.Sprintf("… (%d values)", len(ts)))
			break
		}
		parts = append(parts, fmt.Sprintf("%d×%d", t.Trips, t.Count))
	}
	return strings.Join(parts, " ")
}

// cpusText names the profiling machine's CPUs.
func cpusText(n int) string {
	if n <= 0 {
		return "CPUs"
	}
	if n == 1 {
		return "1 CPU"
	}
	return fmt.Sprintf("%d CPUs", n)
}

// timesString lists the first n of ts as times, and how many follow.
func timesString(ts []int64, n int) string {
	var parts []string
	for _, t := range ts[:min(n, len(ts))] {
		parts = append(parts, trace.Time(t).String())
	}
	if len(ts) > n {
		parts = append(parts, fmt.Sprintf("… %d more", len(ts)-n))
	}
	return strings.Join(parts, ", ")
}
