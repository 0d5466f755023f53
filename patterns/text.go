// This file defines the text and JSON forms of a report.

package patterns

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/predict-tools/predict/trace"
)

// WriteJSON writes the report as indented JSON. Times are integer
// picoseconds, as in trace files.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	rep := *r
	if rep.Findings == nil {
		rep.Findings = []Finding{}
	}
	if rep.Alternative == nil {
		rep.Alternative = []Finding{}
	}
	return enc.Encode(&rep)
}

// row is one line of the text table: the findings of one pattern at one
// site, over ranks and threads.
type row struct {
	pattern, site, op, detail string
	ranks, threads            []int
	lost, most                trace.Time // the sum, and the largest of one rank and thread
	count                     int
	advice                    string
}

// rows groups findings by pattern, site, operation and detail.
func rows(fs []Finding) []*row {
	type key struct{ pattern, site, op, detail, vocabulary string }
	byKey := make(map[key]*row)
	var out []*row
	for _, f := range fs { // sorted: the first of a group is its largest
		k := key{f.Pattern, f.Site, f.Op, f.Detail, f.Vocabulary}
		rw := byKey[k]
		if rw == nil {
			rw = &row{pattern: f.Pattern, site: f.Site, op: f.Op, detail: f.Detail, advice: f.Advice}
			byKey[k] = rw
			out = append(out, rw)
		}
		rw.ranks = append(rw.ranks, f.Rank)
		rw.threads = append(rw.threads, f.Thread)
		rw.lost += f.Lost
		rw.most = max(rw.most, f.Lost)
		rw.count += f.Count
	}
	slices.SortStableFunc(out, func(a, b *row) int { return cmp.Compare(b.lost, a.lost) })
	return out
}

// WriteText writes the report as tables: the findings grouped by pattern and
// site (ranks and threads as lists, lost time and count summed, MAX the
// largest lost time of one rank and thread), the other
// vocabularies, the time decomposition and the POP factors. Sites below
// base (a directory; "" for none) are shown relative to it.
func (r *Report) WriteText(w io.Writer, base string) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%d ranks, %d events, run span %v; Δ_SR %v\n", r.NP, r.Events, r.Span, r.SendRecvGap)
	rule := r.EpsRule
	if rule != "given" {
		rule += "; --eps to change"
	}
	fmt.Fprintf(bw, "noise threshold eps %v (%s): shorter waits are not counted\n", r.Eps, rule)
	site := func(s string) string {
		if base != "" && filepath.IsAbs(s) {
			if rel, err := filepath.Rel(base, s); err == nil && !strings.HasPrefix(rel, "..") {
				return filepath.ToSlash(rel)
			}
		}
		return s
	}
	table := func(title string, fs []Finding) {
		fmt.Fprintf(bw, "\n%s\n", title)
		if len(fs) == 0 {
			fmt.Fprintf(bw, "  none above eps\n")
			return
		}
		tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "PATTERN\tRANKS\tTHREADS\tSITE\tOP\tLOST\tMAX\tCOUNT\tADVICE")
		for _, rw := range rows(fs) {
			pattern := rw.pattern
			switch {
			case strings.HasPrefix(rw.detail, "{"):
				pattern += " " + rw.detail
			case rw.detail != "":
				pattern += " (" + rw.detail + ")"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%v\t%v\t%d\t%s\n", pattern, ranges(rw.ranks), ranges(rw.threads),
				site(rw.site), rw.op, rw.lost, rw.most, rw.count, rw.advice)
		}
		tw.Flush()
	}
	table(fmt.Sprintf("Patterns (lost %v in all):", r.Lost()), r.Findings)
	if len(r.Alternative) > 0 {
		table("The same waits in the ParJava (seed-003) and UPC (seed-000) catalogs:", r.Alternative)
	}

	fmt.Fprintf(bw, "\nTime per rank (useful: outside communication calls; the rest: starvation, latency, overhead):\n")
	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "RANK\tUSEFUL\tSTARVATION\tLATENCY\tOVERHEAD\tEND\t")
	for _, t := range r.Ranks {
		fmt.Fprintf(tw, "%d\t%v\t%v\t%v\t%v\t%v\t\n", t.Rank, t.Useful, t.Starvation, t.Latency, t.Overhead, t.End)
	}
	tw.Flush()
	p := r.POP
	fmt.Fprintf(bw, "\nPOP: parallel efficiency %.3f = load balance %.3f × communication efficiency %.3f\n",
		p.ParallelEfficiency, p.LoadBalance, p.CommunicationEfficiency)
	if p.Serialization != nil {
		fmt.Fprintf(bw, "     communication efficiency ≈ serialization %.3f × transfer %.3f\n", *p.Serialization, *p.Transfer)
	} else {
		fmt.Fprintf(bw, "     serialization, transfer: not available\n")
	}
	if p.Note != "" {
		fmt.Fprintf(bw, "     (%s)\n", p.Note)
	}
	if len(r.Warnings) > 0 {
		fmt.Fprintf(bw, "\nWarnings:\n")
		for _, s := range r.Warnings {
			fmt.Fprintf(bw, "  %s\n", s)
		}
	}
	return bw.Flush()
}

// ranges prints a set of integers as sorted ranges: 0,2-5.
func ranges(v []int) string {
	v = slices.Clone(v)
	slices.Sort(v)
	v = slices.Compact(v)
	var b strings.Builder
	for i := 0; i < len(v); {
		j := i
		for j+1 < len(v) && v[j+1] == v[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(v[i]))
		if j > i {
			b.WriteString("-" + strconv.Itoa(v[j]))
		}
		i = j + 1
	}
	return b.String()
}
