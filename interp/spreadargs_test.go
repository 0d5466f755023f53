package interp

import (
	"slices"
	"strings"
	"testing"

	"github.com/predict-tools/predict/profile"
	"github.com/predict-tools/predict/trace"
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
//
// The send buffer's length (the counts' total, opaque like them) is
// recorded too: at np = 4 it is the sum of the spread counts (16 and 20
// elements: 128 and 160 bytes in rank 0's Alltoallv), at np = 2 rank 0's
// recorded 40 (320 bytes).
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
		// The send buffer's length: the rank's total.
		as := profile.ArgStats{Site: site, Arg: 1, Part: "length"}
		for r, counts := range ranks {
			var sum int64
			for _, c := range counts {
				sum += c
			}
			as.Ranks = append(as.Ranks, profile.RankArgs{Rank: r, Runs: []profile.ArgRun{{N: 1, Vals: []int64{sum}}}})
		}
		return append(out, as)
	}
	// run returns, per opaque argument of the call (by index), the array
	// the run's Alltoallv took at rank 0 (spread at an unrecorded np), and
	// the call's assumption and the bytes rank 0's Alltoallv sent.
	run := func(pf *profile.File, np int) (map[int][]int64, string, int64) {
		t.Helper()
		cp, err := p.Compile(pf, handMachine(t))
		if err != nil {
			t.Fatal(err)
		}
		sent := int64(-1)
		res, err := cp.Run(Config{NP: np, Trace: func(e trace.Event) {
			if e.Rank == 0 && e.Op == "Alltoallv" {
				sent = e.Bytes
			}
		}})
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
		return got, note, sent
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
		sent   int64 // bytes rank 0 sends
	}{
		{"two records", both, 4, []int64{4, 4, 4, 4}, "a rank's total per call 16 (∝ np^-1.32 between np=1 and 2), spread evenly over the peers; a buffer as long as the sum of its call's counts", 16 * 8},
		{"one record", two, 4, []int64{5, 5, 5, 5}, "a rank's total per call 20 (∝ 1/np from np=2, a share of a decomposed problem), spread evenly over the peers; a buffer as long as the sum of its call's counts", 20 * 8},
		{"recorded np", both, 2, nil, "replayed per rank as the timing pass recorded them", 40 * 8},
	} {
		got, note, sent := run(c.pf, c.np)
		if !strings.Contains(note, c.note) {
			t.Errorf("%s, np=%d: the call's assumption %q: want %q", c.name, c.np, note, c.note)
		}
		if sent != c.sent {
			t.Errorf("%s, np=%d: rank 0's Alltoallv sent %d bytes, want %d", c.name, c.np, sent, c.sent)
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

// TestBufferCounts: which counts an opaque buffer of a collective follows
// (the catalog's argument lists, the receiver first), and the lengths
// they give: the sum for the buffer they partition, the mean for a
// rank's own share.
func TestBufferCounts(t *testing.T) {
	for _, c := range []struct {
		op   string
		arg  int
		want *bufferCounts
	}{
		{"Comm.Alltoallv", 1, &bufferCounts{counts: 2}},
		{"Comm.Alltoallv", 4, &bufferCounts{counts: 5}},
		{"Comm.Gatherv", 1, &bufferCounts{counts: 3, share: true}},
		{"Comm.Gatherv", 2, &bufferCounts{counts: 3}},
		{"Comm.Allgatherv", 1, &bufferCounts{counts: 3, share: true}},
		{"Comm.Allgatherv", 2, &bufferCounts{counts: 3}},
		{"Comm.Scatterv", 1, &bufferCounts{counts: 2}},
		{"Comm.Scatterv", 4, &bufferCounts{counts: 2, share: true}},
		{"Comm.Alltoall", 1, nil},
		{"Comm.Send", 1, nil},
		{"Comm.Gatherv", 3, nil}, // the counts themselves
	} {
		got := bufferCountsOf(c.op, c.arg)
		if (got == nil) != (c.want == nil) || got != nil && *got != *c.want {
			t.Errorf("%s argument %d: %+v, want %+v", c.op, c.arg, got, c.want)
		}
	}
	counts := V{R: &sliceV{a: &array{n: 4, elems: []V{intV(3), intV(5), intV(4), intV(4)}}, len: 4, cap: 4}}
	if n, ok := (&bufferCounts{}).lengthFromCounts(counts); !ok || n != 16 {
		t.Errorf("the sum of 3 5 4 4: %d, %v", n, ok)
	}
	if n, ok := (&bufferCounts{share: true}).lengthFromCounts(counts); !ok || n != 4 {
		t.Errorf("the mean of 3 5 4 4: %d, %v", n, ok)
	}
	shape := V{R: &sliceV{a: newArray(4, intV(0), true), len: 4, cap: 4}}
	if _, ok := (&bufferCounts{}).lengthFromCounts(shape); ok {
		t.Error("counts whose contents the model does not keep gave a length")
	}
}
