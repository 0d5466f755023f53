// This file defines how opaque per-peer counts and displacements of a
// collective (Alltoallv's, Gatherv's, Scatterv's, Allgatherv's) stand in
// at an np the timing pass did not record: the rank's recorded total,
// scaled to np, spread evenly over the peers.

package interp

import (
	"fmt"
	"math"

	"github.com/predict-tools/predict/commlib/catalog"
	"github.com/predict-tools/predict/profile"
	"github.com/predict-tools/predict/reduce"
)

// A count array recorded at np = 2 has two elements and belongs to that
// decomposition: at np = 4 its elements would name peers that are not
// the ones a rank sends to there. Taking such arrays as zero (what other
// opaque arguments get at an unrecorded np) loses the exchange whole: a
// sample sort's Alltoallv of its keys, a BFS's of its frontier. What the
// records do tell is how much a rank moves per call, and how that total
// changes between the recorded nps. So at another np:
//
//   - a rank's total per call is the mean over the recorded ranks and
//     calls, at the nearest record, scaled by the trend between two
//     records where two have the call (profile.Trend: a power law, or
//     what passes between ranks held from np = 1's zero); with one
//     record, as the rank's share of a decomposed problem, ∝ 1/np;
//   - it is spread evenly over the peers (the array's length, which the
//     model computes): every count is total/n, rounded, the same on every
//     rank, so that what one rank sends another expects;
//   - displacements are those of the even counts: k·(total/n).
//
// An even spread is an assumption, and the run says so at the call with
// the figures it used: an exchange skewed toward some peers (a hot
// bucket, a graph's hub) costs more than it says.

// peerArray is how an opaque argument of a collective is spread at an
// unrecorded np: counts or displacements, and the counts whose total
// decides it (the argument itself, or the counts a displacement array
// follows).
type peerArray struct {
	displs bool
	counts string // argKey of the counts array
}

// peerArrayOf returns the spreading of argument i of operation op, when it
// is a per-peer count or displacement array.
func peerArrayOf(op, site string, i int) *peerArray {
	o, ok := catalog.Lookup(op)
	if !ok || o.Class != catalog.ClassCollective || i >= len(o.Args) {
		return nil
	}
	switch o.Args[i] {
	case catalog.ArgCounts:
		return &peerArray{counts: argKey(site, i)}
	case catalog.ArgDispls:
		// The counts it displaces precede it (sendcounts, sdispls).
		for k := i - 1; k >= 0; k-- {
			if o.Args[k] == catalog.ArgCounts {
				return &peerArray{displs: true, counts: argKey(site, k)}
			}
		}
	}
	return nil
}

// meanTotal is the mean over ranks and calls of the sum of a recorded
// count array's elements (vals[0] is the array's length).
func meanTotal(as *profile.ArgStats) (float64, bool) {
	if as == nil || as.Part != string(reduce.ArgElements) {
		return 0, false
	}
	var sum, calls float64
	for _, ra := range as.Ranks {
		for _, run := range ra.Runs {
			var s float64
			for _, v := range run.Vals[min(1, len(run.Vals)):] {
				s += float64(v)
			}
			sum += s * float64(run.N)
			calls += float64(run.N)
		}
	}
	if calls == 0 {
		return 0, false
	}
	return sum / calls, true
}

// setSpread sets the argument's per-rank total at np (a run at an np the
// timing pass did not record), from the records of its counts.
func (r *argReplay) setSpread(cp *Compiled, np int) {
	r.total, r.spreadNote = -1, ""
	if r.peer == nil {
		return
	}
	recs := cp.commArgs[r.peer.counts]
	has := func(i int) bool { return i < len(recs) && recs[i] != nil }
	ch, pair, trend, ok := cp.itemRecord(np, has)
	if !ok || ch.exact {
		return
	}
	at, ok := meanTotal(recs[ch.index])
	if !ok {
		return
	}
	how := fmt.Sprintf("∝ 1/np from np=%d, a share of a decomposed problem", ch.np)
	total := at * float64(ch.np) / float64(np)
	if trend {
		tr, _, base, ok := cp.trendOf(ch, pair, func(rec int) (float64, bool) { return meanTotal(recs[rec]) })
		if ok && base > 0 && tr.Y0 >= 0 {
			total, how = tr.At(np), tr.String()
		}
	}
	r.total = max(total, 0)
	r.spreadNote = fmt.Sprintf("a rank's total per call %.4g (%s), spread evenly over the peers", r.total, how)
}

// spread returns the argument's even per-peer array of n elements, or
// false where it has no total at this np.
func (r *argReplay) spread(n int) ([]int64, bool) {
	if r.total < 0 || n <= 0 {
		return nil, false
	}
	c := int64(math.Round(r.total / float64(n)))
	out := make([]int64, n)
	for k := range out {
		if r.peer.displs {
			out[k] = int64(k) * c
		} else {
			out[k] = c
		}
	}
	return out, true
}

// A buffer of such a collective whose length is opaque is as long as the
// counts that describe it say, at an np where its recorded lengths do
// not apply: the buffer the counts partition (Alltoallv's two, Scatterv's
// send buffer, Gatherv's and Allgatherv's receive buffer: the buffer the
// counts follow) holds their sum; the other buffer of an operation with
// one counts array (Gatherv's and Allgatherv's send buffer, Scatterv's
// receive buffer) holds the rank's own share, taken as their mean (the
// counts spread evenly are all equal). Taken as zero instead, an
// Alltoallv sends nothing whatever its counts say.

// bufferCounts is how an opaque buffer argument's length follows the
// counts of its call.
type bufferCounts struct {
	counts int  // the argument index of the counts
	share  bool // the rank's own share (their mean), not their sum
}

// bufferCountsOf returns how the length of argument i of operation op
// follows its counts, when it is a buffer of a collective with counts.
func bufferCountsOf(op string, i int) *bufferCounts {
	o, ok := catalog.Lookup(op)
	if !ok || o.Class != catalog.ClassCollective || i >= len(o.Args) {
		return nil
	}
	if r := o.Args[i]; r != catalog.ArgSendBuf && r != catalog.ArgRecvBuf {
		return nil
	}
	if i+1 < len(o.Args) && o.Args[i+1] == catalog.ArgCounts {
		return &bufferCounts{counts: i + 1}
	}
	counts := -1
	for k, r := range o.Args {
		if r != catalog.ArgCounts {
			continue
		}
		if counts >= 0 {
			return nil // two count arrays, each with its buffer
		}
		counts = k
	}
	if counts < 0 {
		return nil
	}
	return &bufferCounts{counts: counts, share: true}
}

// lengthFromCounts returns the buffer's length that counts (the call's
// counts argument, as the call receives it: the program's own, or spread)
// say, or false when they are not a slice of integers the model holds.
func (b *bufferCounts) lengthFromCounts(counts V) (int64, bool) {
	if i, ok := counts.R.(*iface); ok {
		counts = i.v
	}
	s, ok := counts.R.(*sliceV)
	if !ok || s.len == 0 || s.a == nil || s.a.shape {
		return 0, false
	}
	var sum int64
	for k := range s.len {
		sum += s.a.load(s.off + k).I
	}
	if b.share {
		return int64(math.Round(float64(sum) / float64(s.len))), true
	}
	return sum, true
}

// note says how the buffer's length was taken, for the run's assumptions.
func (b *bufferCounts) note() string {
	if b.share {
		return "a buffer as long as the mean of its call's counts (the rank's own share)"
	}
	return "a buffer as long as the sum of its call's counts"
}
