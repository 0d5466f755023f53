// This file defines the comparison of a report with the want lines of its
// run.

package progcheck

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/predict-tools/predict/patterns"
	"github.com/predict-tools/predict/trace"
)

// Lost returns, per rank, the time the findings of rep charge to w's
// pattern at w's site and their instances. LockContention's lost time of a
// rank is the sum over its threads.
func Lost(rep *patterns.Report, w Want) (lost map[int]trace.Time, count map[int]int) {
	lost, count = make(map[int]trace.Time), make(map[int]int)
	for _, f := range rep.Findings {
		if f.Pattern == w.Pattern && strings.HasSuffix(f.Site, w.Site) {
			lost[f.Rank] += f.Lost
			count[f.Rank] += f.Count
		}
	}
	return lost, count
}

// Tolerance is the allowed difference from an expected lost time in a
// measured run (a real trace, or a predicted one from a timing pass): 10 %,
// and at least 2 ms (the noise of a real run on a 2-core machine).
func Tolerance(expected trace.Time) trace.Time {
	return max(expected/10, 2*trace.Millisecond)
}

// ModeledTolerance is the allowed difference from an expected lost time in
// a run modeled from a [SyntheticProfile]: nothing is measured, the busy-
// waits take exactly their duration and only the machine's modeled costs
// of the calls (µs on the local preset) move a wait.
func ModeledTolerance(trace.Time) trace.Time { return 10 * trace.Microsecond }

// Check compares a report with the want lines of its run and returns the
// problems. For a near miss (near) any finding at a want's site is one;
// otherwise a lost time must be within tolerance(expected) of the
// expected one. logf receives the figures compared.
func Check(rep *patterns.Report, wants []Want, near bool, tolerance func(trace.Time) trace.Time, logf func(string, ...any)) []string {
	var problems []string
	for _, w := range wants {
		lost, count := Lost(rep, w)
		if near {
			for _, r := range slices.Sorted(maps.Keys(count)) {
				n := count[r]
				problems = append(problems, fmt.Sprintf("near miss: %s at %s on rank %d: %v in %d instances",
					w.Pattern, w.Site, r, lost[r], n))
			}
			continue
		}
		for i, r := range w.Ranks {
			expected := trace.Time(w.Lost[i].Nanoseconds()) * trace.Nanosecond
			got, n := lost[r], count[r]
			if n == 0 {
				problems = append(problems, fmt.Sprintf("%s at %s on rank %d: not found", w.Pattern, w.Site, r))
				continue
			}
			if expected == 0 { // a diagnostic: the lost time is not checked
				logf("%s at %s rank %d: found (%d instances)", w.Pattern, w.Site, r, n)
				continue
			}
			tol := tolerance(expected)
			logf("%s at %s rank %d: want %v, got %v", w.Pattern, w.Site, r, expected, got)
			if d := got - expected; d > tol || -d > tol {
				problems = append(problems, fmt.Sprintf("%s at %s on rank %d: lost %v, want %v ± %v",
					w.Pattern, w.Site, r, got, expected, tol))
			}
		}
		for _, r := range slices.Sorted(maps.Keys(count)) {
			if !slices.Contains(w.Ranks, r) {
				problems = append(problems, fmt.Sprintf("%s at %s charged to rank %d (%v), not listed",
					w.Pattern, w.Site, r, lost[r]))
			}
		}
	}
	return problems
}
