// This file defines the attribution of a run's time to regions that a
// real and a modeled trace both delimit: the calls at one call site, and
// the compute between two consecutive calls of a rank.

package validate

import (
	"cmp"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/predict-tools/predict/trace"
)

// Region is a part of every rank's run: the time inside the calls of one
// operation at one site (Kind "call"), or the compute from the end of a
// call at From to the start of the next call, at To (Kind "compute"; From
// is "start" for the time before a rank's first call, To is "end" for the
// time after its last call, idle time until the run's end included).
type Region struct {
	Kind string `json:"kind"`
	Op   string `json:"op,omitempty"`
	Site string `json:"site,omitempty"`
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
}

func (r Region) String() string {
	if r.Kind == "call" {
		return r.Op + " at " + r.Site
	}
	return "compute " + r.From + " → " + r.To
}

// RegionTime is the time of a region summed over ranks and occurrences,
// measured in a real run and charged by the model.
type RegionTime struct {
	Region
	Measured  trace.Time `json:"measured_ps"`
	Predicted trace.Time `json:"predicted_ps"`
	// MeasuredCount and PredictedCount are the occurrences, summed over
	// ranks: a region the model enters a different number of times than
	// the program did points at its control flow, not at a fragment's time.
	MeasuredCount  int64 `json:"measured_count"`
	PredictedCount int64 `json:"predicted_count"`
}

// Diff is the predicted less the measured time.
func (r RegionTime) Diff() trace.Time { return r.Predicted - r.Measured }

// Sites normalizes the call sites of two traces for comparison: a real
// trace's are absolute file:line, a modeled one's file:line:col relative
// to the module, so both become file:line relative to Root.
type Sites struct{ Root string }

// Of returns the normal form of site.
func (s Sites) Of(site string) string {
	if site == "" {
		return "?"
	}
	// Drop a column (file:line:col) and a line range's end (file:line-line).
	parts := strings.Split(site, ":")
	for len(parts) > 2 && isNumber(parts[len(parts)-1]) && isNumber(strings.SplitN(parts[len(parts)-2], "-", 2)[0]) {
		parts = parts[:len(parts)-1]
	}
	if n := len(parts); n >= 2 {
		parts[n-1], _, _ = strings.Cut(parts[n-1], "-")
	}
	file := strings.Join(parts[:len(parts)-1], ":")
	if s.Root != "" && filepath.IsAbs(file) {
		if rel, err := filepath.Rel(s.Root, file); err == nil && !strings.HasPrefix(rel, "..") {
			file = filepath.ToSlash(rel)
		}
	}
	return file + ":" + parts[len(parts)-1]
}

func isNumber(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil && s != ""
}

// Attribute cuts a measured and a modeled trace of the same program at
// the same np into regions and returns their times, the regions with the
// largest difference first. Only the main thread of each rank is cut (the
// program's calls; pool threads' work is inside its calls or its
// compute); compute events of modeled traces are not calls. ends give
// each trace's end: the time after a rank's last call runs to it.
func Attribute(np int, measured, modeled []trace.Event, measuredEnd, modeledEnd trace.Time, sites Sites) []RegionTime {
	byRegion := map[Region]*RegionTime{}
	add := func(events []trace.Event, end trace.Time, predicted bool) {
		for _, rank := range cutRanks(np, events, end, sites) {
			for _, p := range rank {
				rt := byRegion[p.region]
				if rt == nil {
					rt = &RegionTime{Region: p.region}
					byRegion[p.region] = rt
				}
				if predicted {
					rt.Predicted += p.time
					rt.PredictedCount++
				} else {
					rt.Measured += p.time
					rt.MeasuredCount++
				}
			}
		}
	}
	add(measured, measuredEnd, false)
	add(modeled, modeledEnd, true)
	out := make([]RegionTime, 0, len(byRegion))
	for _, rt := range byRegion {
		out = append(out, *rt)
	}
	slices.SortFunc(out, func(a, b RegionTime) int {
		da, db := a.Diff(), b.Diff()
		if c := cmp.Compare(max(db, -db), max(da, -da)); c != 0 {
			return c
		}
		return cmp.Compare(a.String(), b.String())
	})
	return out
}

// piece is one stretch of one rank's time.
type piece struct {
	region Region
	time   trace.Time
}

// cutRanks cuts each rank's main thread into pieces, by rank.
func cutRanks(np int, events []trace.Event, end trace.Time, sites Sites) [][]piece {
	calls := make([][]trace.Event, np)
	for _, e := range events {
		// Go's sync operations are in modeled traces only: commlib does
		// not see them, so a real trace cannot delimit regions by them.
		if e.Kind == trace.KindOp && e.Thread == 0 && e.Rank >= 0 && e.Rank < np && !strings.HasPrefix(e.Op, "sync.") {
			calls[e.Rank] = append(calls[e.Rank], e)
		}
	}
	out := make([][]piece, np)
	for rank, cs := range calls {
		slices.SortStableFunc(cs, func(a, b trace.Event) int {
			return cmp.Or(cmp.Compare(a.Enter, b.Enter), cmp.Compare(a.Seq, b.Seq))
		})
		var ps []piece
		from, at := "start", trace.Time(0)
		for _, c := range cs {
			site := sites.Of(c.Site)
			ps = append(ps, piece{Region{Kind: "compute", From: from, To: site}, max(c.Enter-at, 0)})
			ps = append(ps, piece{Region{Kind: "call", Op: c.Op, Site: site}, c.Exit - c.Enter})
			from, at = site, max(at, c.Exit)
		}
		ps = append(ps, piece{Region{Kind: "compute", From: from, To: "end"}, max(end-at, 0)})
		out[rank] = ps
	}
	return out
}
