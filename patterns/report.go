// This file defines the options and the report of an analysis.

package patterns

import (
	"cmp"
	"slices"

	"github.com/predict-tools/predict/trace"
)

// Defaults of [Options].
const (
	// DefaultSendRecvGap is Δ_SR: a Recv entered less than 1 ms after the
	// exit of a send to the same peer suggests a Sendrecv.
	DefaultSendRecvGap = trace.Millisecond
)

// Options tune an analysis. The zero value is valid and means the defaults.
type Options struct {
	// Eps is the noise threshold ε: wait instances shorter than Eps are not
	// counted. Zero means a share of the run's span (see AutoEpsDivisor);
	// use 1 (ps) to count every wait.
	Eps trace.Time
	// Modeled says that the trace is a prediction (the interpreter's
	// virtual clock, no noise): the automatic Eps then has no floor for
	// the noise of a real run.
	Modeled bool
	// SendRecvGap is Δ_SR of the SendRecvPair diagnostic. Zero means
	// DefaultSendRecvGap.
	SendRecvGap trace.Time
	// NP is the number of ranks (the trace header's np), so that ranks
	// without events appear in the decomposition; 0 takes the highest rank
	// of the events.
	NP int
	// EagerLimit (bytes) decides the protocol of standard sends whose events
	// carry none: above it they are rendezvous. 0: unknown, such sends are
	// taken as eager.
	EagerLimit int64
	// Latency and Bandwidth (bytes per second) estimate a message's transfer
	// time, Latency + Bytes/Bandwidth (ParJava's T_send, seed-002's arrival
	// time). Zero: not known (a real trace), the transfer counts as 0.
	Latency   trace.Time
	Bandwidth float64
	// Ideal is the trace of the same run on an ideal network (optional): it
	// gives the serialization and transfer factors of POP.
	Ideal []trace.Event
}

func (o Options) withDefaults() Options {
	if o.SendRecvGap <= 0 {
		o.SendRecvGap = DefaultSendRecvGap
	}
	return o
}

// transfer is the estimated transfer time of a message of n bytes.
func (o Options) transfer(n int64) trace.Time {
	t := o.Latency
	if o.Bandwidth > 0 && n > 0 {
		t += trace.Time(float64(n) / o.Bandwidth * float64(trace.Second))
	}
	return t
}

// Vocabularies of findings.
const (
	Scalasca = "scalasca" // Scalasca 2.6 (and its OpenMP names for threads)
	ParJava  = "parjava"  // seed-003 §5
	UPC      = "upc"      // seed-000 §3
)

// Location is a place in the trace: a rank, a thread and a call site.
type Location struct {
	Rank   int    `json:"rank"`
	Thread int    `json:"thread"`
	Site   string `json:"site,omitempty"`
	Op     string `json:"op,omitempty"`
}

// A Finding is one pattern at one call site of one rank and thread, summed
// over its instances.
type Finding struct {
	Pattern    string `json:"pattern"`
	Vocabulary string `json:"vocabulary"`
	Rank       int    `json:"rank"`
	Thread     int    `json:"thread"`
	Site       string `json:"site"` // file:line of the call where the time is lost
	Op         string `json:"op"`   // that call: Recv, Wait, Waitall, Ssend, Barrier, Mutex.Lock, ...
	Detail     string `json:"detail,omitempty"`
	// Lost is the sum of the instances' lost time (ps); 0 for diagnostics.
	Lost  trace.Time `json:"lost"`
	Count int        `json:"count"`
	// Culprit is who the largest instance waited for: the late sender or
	// receiver, the last rank to enter, the thread holding the lock.
	Culprit *Location `json:"culprit,omitempty"`
	// OptimalDistance (ParJava's O_D, the largest over the instances) and
	// Distance (the smallest actual one): how far after its nonblocking
	// call a Wait should be, and is.
	OptimalDistance trace.Time `json:"optimal_distance,omitempty"`
	Distance        trace.Time `json:"distance,omitempty"`
	Advice          string     `json:"advice"`

	maxLost trace.Time // the largest instance, which names the culprit
}

// RankTime is the decomposition of one rank's time: Useful + Starvation +
// Latency + Overhead is the run's span.
type RankTime struct {
	Rank       int        `json:"rank"`
	Useful     trace.Time `json:"useful"`
	Starvation trace.Time `json:"starvation"`
	Latency    trace.Time `json:"latency"`
	Overhead   trace.Time `json:"overhead"`
	// End is the exit of the rank's last event; the time after it is
	// starvation (included in Starvation).
	End trace.Time `json:"end"`
}

// POP holds the POP efficiency factors, fractions in [0, 1]. Serialization
// and Transfer are set only when an ideal-network trace was given.
type POP struct {
	ParallelEfficiency      float64  `json:"parallel_efficiency"`
	LoadBalance             float64  `json:"load_balance"`
	CommunicationEfficiency float64  `json:"communication_efficiency"`
	Serialization           *float64 `json:"serialization,omitempty"`
	Transfer                *float64 `json:"transfer,omitempty"`
	// Note says why Serialization and Transfer are missing.
	Note string `json:"note,omitempty"`
}

// Report is the result of [Analyze].
type Report struct {
	Eps trace.Time `json:"eps"`
	// EpsRule says where Eps comes from: "given", or the automatic rule
	// with its figures.
	EpsRule     string     `json:"eps_rule"`
	SendRecvGap trace.Time `json:"sendrecv_gap"`
	NP          int        `json:"np"`
	Span        trace.Time `json:"span"` // the end of the run: the last exit
	Events      int        `json:"events"`
	// Findings is the main catalog, sorted by lost time, largest first.
	Findings []Finding `json:"findings"`
	// Alternative restates waits in the ParJava and UPC catalogs' terms.
	Alternative []Finding  `json:"alternative"`
	Ranks       []RankTime `json:"ranks"`
	POP         POP        `json:"pop"`
	// Warnings name the events that were skipped or could not be matched.
	Warnings []string `json:"warnings,omitempty"`
}

// Lost is the total lost time of the main catalog's findings.
func (r *Report) Lost() trace.Time {
	var t trace.Time
	for _, f := range r.Findings {
		t += f.Lost
	}
	return t
}

// sortFindings orders findings by lost time (largest first), then by
// pattern, rank, thread, site, operation and detail.
func sortFindings(fs []Finding) {
	slices.SortFunc(fs, func(a, b Finding) int {
		return cmp.Or(
			cmp.Compare(b.Lost, a.Lost),
			cmp.Compare(a.Pattern, b.Pattern),
			cmp.Compare(a.Rank, b.Rank),
			cmp.Compare(a.Thread, b.Thread),
			cmp.Compare(a.Site, b.Site),
			cmp.Compare(a.Op, b.Op),
			cmp.Compare(a.Detail, b.Detail),
			cmp.Compare(a.Vocabulary, b.Vocabulary))
	})
}
