package interp

import (
	"slices"
	"strings"
	"testing"

	"github.com/predict-tools/predict/profile"
	"github.com/predict-tools/predict/reduce"
	"github.com/predict-tools/predict/trace"
	"golang.org/x/tools/go/ssa"
)

const replayFile = "interp/testdata/replayargs/main.go"

// TestReplayedArgs: the opaque arguments of a Sendrecv (its peers, drawn,
// and its buffers' lengths, drawn and received) are replayed per rank
// from a synthetic profile at its np, call by call, so the messages go
// where and with the sizes recorded; at another np they are taken as zero
// and the run says that the values belong to the profile's np.
func TestReplayedArgs(t *testing.T) {
	p := prepare(t, "./interp/testdata/replayargs")
	line := markLine(t, replayFile, "values")
	// The opaque arguments of the marked call, as the reduction lists them.
	var call ssa.CallInstruction
	var args []reduce.OpaqueArg
	for _, fn := range p.SSA {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				if c, ok := instr.(ssa.CallInstruction); ok && p.Loaded.Pos(c.Pos()).Line == line {
					call, args = c, p.Report.Plan.OpaqueArgs(c)
				}
			}
		}
	}
	if call == nil {
		t.Fatalf("no call at %s", markPos(t, replayFile, "values"))
	}
	parts := map[int]reduce.ArgPart{}
	for _, a := range args {
		parts[a.Index] = a.Of
	}
	// Sendrecv(sendbuf, dest, sendtag, recvbuf, source, recvtag): with the
	// receiver, 1 and 4 are buffers, 2 and 5 peers; 4 is received into,
	// so it is neither recorded nor replayed.
	for i, want := range map[int]reduce.ArgPart{1: reduce.ArgLength, 2: reduce.ArgValue, 4: reduce.ArgLength, 5: reduce.ArgValue} {
		if parts[i] != want {
			t.Fatalf("argument %d of the call at %s: opaque part %q, want %q (all: %v)", i, markPos(t, replayFile, "values"), parts[i], want, args)
		}
	}
	for _, a := range args {
		if a.Received != (a.Index == 4) {
			t.Errorf("argument %d: received %v", a.Index, a.Received)
		}
	}
	site := p.Loaded.Pos(call.Pos()).String()
	// The count's Sendrecv before it: its peers are drawn as well.
	var counts string
	for _, fn := range p.SSA {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				if c, ok := instr.(ssa.CallInstruction); ok && p.Loaded.Pos(c.Pos()).Line == markLine(t, replayFile, "counts") {
					counts = p.Loaded.Pos(c.Pos()).String()
				}
			}
		}
	}
	// At np = 3, each rank r sends lens[r] values three times over, the
	// second time by runs of one: rank r receives lens[r-1].
	lens := []int64{5, 7, 11}
	pf := syntheticProfile(t, p, 3, nil)
	for _, i := range []int{1, 2, 5} {
		as := profile.ArgStats{Site: site, Arg: i, Part: string(parts[i])}
		for r := range 3 {
			var v int64
			switch i {
			case 1:
				v = lens[r]
			case 2:
				v = int64((r + 1) % 3)
			case 5:
				v = int64((r + 2) % 3)
			}
			runs := []profile.ArgRun{{N: 3, Vals: []int64{v}}}
			if i == 1 {
				runs = []profile.ArgRun{{N: 1, Vals: []int64{v}}, {N: 1, Vals: []int64{v}}, {N: 1, Vals: []int64{v}}}
			}
			as.Ranks = append(as.Ranks, profile.RankArgs{Rank: r, Runs: runs})
		}
		pf.CommArgs = append(pf.CommArgs, as)
		if i == 2 || i == 5 {
			peers := as
			peers.Site, peers.Ranks = counts, slices.Clone(as.Ranks)
			pf.CommArgs = append(pf.CommArgs, peers)
		}
	}
	type msg struct {
		rank, peer int
		bytes      int64
	}
	for _, np := range []int{3, 4} {
		var got []msg
		res, err := p.Run(Config{NP: np, Machine: handMachine(t), Profile: pf, Trace: func(e trace.Event) {
			if e.Kind == trace.KindOp && e.Op == "Sendrecv" && strings.HasPrefix(e.Site, site) && e.Message != 0 && e.Peer == (e.Rank+1)%np {
				// The send half (a message of its own; the receive half
				// names the left peer).
				got = append(got, msg{e.Rank, e.Peer, e.Bytes})
			}
		}})
		if np == 4 {
			// Another decomposition: the recorded peers and lengths do not
			// apply, and the run says so.
			if err == nil {
				var note string
				for _, a := range res.Assumptions {
					if strings.HasPrefix(a, site) {
						note = a
					}
				}
				if !strings.Contains(note, "taken as zero") || !strings.Contains(note, "recorded them at np=3") {
					t.Errorf("np=4: the call's assumption %q: want its arguments taken as zero, recorded at np=3 only", note)
				}
			} else if !strings.Contains(err.Error(), "the model took as zero") || !strings.Contains(err.Error(), "recorded them at np=3") {
				t.Errorf("np=4: %v: want the zero arguments named", err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("np=%d: %v", np, err)
		}
		per := map[int]int{}
		for _, m := range got {
			if m.peer != (m.rank+1)%3 || m.bytes != 8*lens[m.rank] {
				t.Errorf("np=3: rank %d sent %d bytes to %d: want %d bytes to %d", m.rank, m.bytes, m.peer, 8*lens[m.rank], (m.rank+1)%3)
			}
			per[m.rank]++
		}
		for r := range 3 {
			if per[r] != 3 {
				t.Errorf("np=3: rank %d made %d Sendrecvs at the call, want 3", r, per[r])
			}
		}
		for _, a := range res.Assumptions {
			if strings.HasPrefix(a, site) && (!strings.Contains(a, "replayed per rank") || strings.Contains(a, "past the values recorded")) {
				t.Errorf("np=3: assumption %q: want the values replayed, within the record", a)
			}
		}
	}
}
