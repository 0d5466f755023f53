package interp

import (
	"slices"
	"strings"
	"testing"

	"github.com/predict-tools/predict/profile"
	"golang.org/x/tools/go/ssa"
)

// TestSpreadCounts: the opaque counts and displacements of an Alltoallv,
// recorded at np = 2 (and at np = 1), are spread evenly at np = 4, worked
// by hand:
//   - records at np = 2 (rank 0 [30 10], rank 1 [20 20]: a mean total of
//     40 per call) and np = 1 ([100]): the total follows the power law
//     through them, 40·(4/2)^log2(40/100) = 16 at np = 4, so every count
//     is 4 and the displacements 0, 4, 8, 12;
//   - the record at np = 2 alone: a rank's share of a decomposed problem,
//     40·2/4 = 20, so every count is 5;
//   - at np = 2 the record is replayed as it is, nothing spread.
func TestSpreadCounts(t *testing.T) {
	const file = "interp/testdata/spreadcounts/main.go"
	p := prepare(t, "./interp/testdata/spreadcounts")
	line := markLine(t, file, "exchange")
	var call ssa.CallInstruction
	for _, fn := range p.SSA {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				if c, ok := instr.(ssa.CallInstruction); ok && p.Loaded.Pos(c.Pos()).Line == line {
					call = c
				}
			}
		}
	}
	if call == nil {
		t.Fatalf("no call at %s", markPos(t, file, "exchange"))
	}
	site := p.Loaded.Pos(call.Pos()).String()
	// Alltoallv(sendbuf, sendcounts, sdispls, recvbuf, recvcounts,
	// rdispls): with the receiver, counts at 2 and 5, displacements at 3
	// and 6.
	args := func(np int, ranks [][]int64) []profile.ArgStats {
		var out []profile.ArgStats
		for _, i := range []int{2, 3, 5, 6} {
			as := profile.ArgStats{Site: site, Arg: i, Part: "elements"}
			for r, counts := range ranks {
				vals := []int64{int64(np)}
				at := int64(0)
				for _, c := range counts {
					if i == 3 || i == 6 {
						vals, at = append(vals, at), at+c
					} else {
						vals = append(vals, c)
					}
				}
				as.Ranks = append(as.Ranks, profile.RankArgs{Rank: r, Runs: []profile.ArgRun{{N: 1, Vals: vals}}})
			}
			out = append(out, as)
		}
		return out
	}
	// run returns, per opaque argument of the call (by index), the array
	// the run's Alltoallv took at rank 0 (spread at an unrecorded np), and
	// the call's assumption.
	run := func(pf *profile.File, np int) (map[int][]int64, string) {
		t.Helper()
		cp, err := p.Compile(pf, handMachine(t))
		if err != nil {
			t.Fatal(err)
		}
		res, err := cp.Run(Config{NP: np})
		if err != nil {
			t.Fatalf("np=%d: %v", np, err)
		}
		got := map[int][]int64{}
		for _, r := range cp.argReplays {
			if r.site != site {
				continue
			}
			vals, ok := r.spread(np)
			for i, name := range map[int]string{2: "sendcounts", 3: "sdispls", 5: "recvcounts", 6: "rdispls"} {
				if ok && strings.Contains(r.what, "Comm.Alltoallv's "+name+" ") {
					got[i] = vals
				}
			}
		}
		var note string
		for _, a := range res.Assumptions {
			if strings.HasPrefix(a, site) {
				note = a
			}
		}
		return got, note
	}
	two := syntheticProfile(t, p, 2, nil)
	two.CommArgs = args(2, [][]int64{{30, 10}, {20, 20}})
	both := syntheticProfile(t, p, 2, nil)
	both.CommArgs = two.CommArgs
	both.Replays = []profile.Replay{{NP: 1, CommArgs: args(1, [][]int64{{100}})}}
	for _, c := range []struct {
		name   string
		pf     *profile.File
		np     int
		counts []int64 // every count array; nil: replayed, not spread
		note   string
	}{
		{"two records", both, 4, []int64{4, 4, 4, 4}, "a rank's total per call 16 (∝ np^-1.32 between np=1 and 2), spread evenly over the peers"},
		{"one record", two, 4, []int64{5, 5, 5, 5}, "a rank's total per call 20 (∝ 1/np from np=2, a share of a decomposed problem), spread evenly over the peers"},
		{"recorded np", both, 2, nil, "replayed per rank as the timing pass recorded them"},
	} {
		got, note := run(c.pf, c.np)
		if !strings.Contains(note, c.note) {
			t.Errorf("%s, np=%d: the call's assumption %q: want %q", c.name, c.np, note, c.note)
		}
		if c.counts == nil {
			if len(got) != 0 {
				t.Errorf("%s, np=%d: spread %v at a recorded np", c.name, c.np, got)
			}
			continue
		}
		var displs []int64
		for k, n := range c.counts {
			displs = append(displs, int64(k)*n)
		}
		for i, want := range map[int][]int64{2: c.counts, 3: displs, 5: c.counts, 6: displs} {
			if !slices.Equal(got[i], want) {
				t.Errorf("%s, np=%d: argument %d spread as %v, want %v", c.name, c.np, i, got[i], want)
			}
		}
	}
}
