// This file defines the aggregation of wait instances into findings.

package patterns

import (
	"strings"

	"github.com/predict-tools/predict/trace"
)

// instance is one occurrence of a pattern at one call.
type instance struct {
	pattern, vocabulary string
	at                  *trace.Event // the call where the time is lost
	lost                trace.Time
	detail              string
	culprit             *trace.Event // whom it waited for, or nil
	optimal, distance   trace.Time   // ParJava's O_D and the actual distance
	diagnostic          bool         // reported with lost 0 (no threshold)
}

// findingKey identifies a finding.
type findingKey struct {
	vocabulary, pattern string
	rank, thread        int
	site, op, detail    string
}

// collector sums instances into findings.
type collector struct {
	eps      trace.Time
	findings map[findingKey]*Finding
	order    []findingKey
}

func newCollector(eps trace.Time) *collector {
	return &collector{eps: eps, findings: make(map[findingKey]*Finding)}
}

// add counts in if it is a diagnostic or a wait of at least eps.
func (c *collector) add(in instance) {
	if !in.diagnostic && (in.lost <= 0 || in.lost < c.eps) {
		return
	}
	if in.diagnostic {
		in.lost = 0
	}
	e := in.at
	site := siteLine(e.Site)
	k := findingKey{in.vocabulary, in.pattern, e.Rank, e.Thread, site, e.Op, in.detail}
	f := c.findings[k]
	if f == nil {
		f = &Finding{Pattern: in.pattern, Vocabulary: in.vocabulary, Rank: e.Rank, Thread: e.Thread, Site: site,
			Op: e.Op, Detail: in.detail, maxLost: -1}
		c.findings[k] = f
		c.order = append(c.order, k)
	}
	f.Lost += in.lost
	f.Count++
	if in.lost > f.maxLost {
		f.maxLost = in.lost
		if in.culprit != nil {
			f.Culprit = &Location{Rank: in.culprit.Rank, Thread: in.culprit.Thread, Site: siteLine(in.culprit.Site),
				Op: in.culprit.Op}
		}
	}
	if in.pattern == "SendRecvPair" {
		f.Distance = max(f.Distance, in.distance) // the largest gap
	}
	if in.optimal > 0 {
		f.OptimalDistance = max(f.OptimalDistance, in.optimal)
		if f.Count == 1 || in.distance < f.Distance {
			f.Distance = in.distance
		}
	}
}

// result returns the findings with their advice, sorted.
func (c *collector) result() []Finding {
	out := make([]Finding, 0, len(c.order))
	for _, k := range c.order {
		f := *c.findings[k]
		f.Advice = advice(&f)
		out = append(out, f)
	}
	sortFindings(out)
	return out
}

// siteLine returns a call site as file:line: predicted traces name the
// column too (file:line:col), and findings are per line.
func siteLine(site string) string {
	i := strings.LastIndexByte(site, ':')
	if i < 0 || !digits(site[i+1:]) {
		return site
	}
	j := strings.LastIndexByte(site[:i], ':')
	if j < 0 || !digits(site[j+1:i]) {
		return site
	}
	return site[:i]
}

func digits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// clip returns t limited to [0, limit].
func clip(t, limit trace.Time) trace.Time {
	return max(0, min(t, limit))
}
