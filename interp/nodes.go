// This file defines how a run used each node's cores (Config.Nodes,
// predict run --explain-node): per node, the core time its ranks and
// threads kept busy, what they waited for a core, and the compute the
// sharing of the node cost them, so that a user sees why a node's ranks
// stop scaling.

package interp

import (
	"bufio"
	"cmp"
	"fmt"
	"slices"

	"github.com/predict-tools/predict/trace"
)

// NodeUse is how the ranks of one node used its cores in a run.
type NodeUse struct {
	Node  int `json:"node"`
	Ranks int `json:"ranks"` // ranks the machine placed on it
	Cores int `json:"cores"`
	// Busy is the core time its ranks and their threads computed or
	// spent in communication calls (overhead), summed; Use is Busy over
	// Cores × the run's time.
	Busy trace.Time `json:"busy_ps"`
	Use  float64    `json:"use"`
	// CoreWait is what its ranks waited for a core, ready to run, and
	// ThreadCoreWait what their threads waited, summed.
	CoreWait       trace.Time `json:"core_wait_ps"`
	ThreadCoreWait trace.Time `json:"thread_core_wait_ps"`
	// Compute is its ranks' compute on their main threads, summed, and
	// Sharing the part of it above the fragments' alone times: what
	// sharing the node (memory bandwidth, caches, other ranks) cost, as
	// the profile's alone runs measured it. SharingKnown is false when
	// the profile has no alone times (a profile at np = 1).
	Compute      trace.Time `json:"compute_ps"`
	Sharing      trace.Time `json:"sharing_ps"`
	SharingKnown bool       `json:"sharing_known"`
}

// nodeUse sums the ranks' times per node, in node order, for a run that
// took total.
func (w *World) nodeUse(total int64) []NodeUse {
	known := w.prof != nil && (w.prof.AloneRel != 0 || w.prof.LoadedRel != 0)
	byNode := make([]NodeUse, len(w.nodeRanks))
	for _, p := range w.procs {
		u := &byNode[w.nodeOf[p.rank]]
		u.Busy += trace.Time(p.compute - p.joined + p.threadBusy + p.overhead)
		u.CoreWait += trace.Time(p.runWait)
		u.ThreadCoreWait += trace.Time(p.coreWait)
		u.Compute += trace.Time(p.compute - p.joined)
		u.Sharing += trace.Time(p.sharing)
	}
	out := make([]NodeUse, 0, len(byNode))
	for n, u := range byNode {
		if w.nodeRanks[n] == 0 {
			continue // no rank placed there
		}
		u.Node, u.Ranks, u.Cores, u.SharingKnown = n, int(w.nodeRanks[n]), w.mach.CoresPerNode, known
		if d := float64(u.Cores) * float64(total); d > 0 {
			u.Use = float64(u.Busy) / d
		}
		out = append(out, u)
	}
	return out
}

// maxNodeRows is how many nodes the text report lists one by one: beyond,
// those whose ranks waited longest for a core, and a summary of all.
const maxNodeRows = 16

// writeNodes writes the nodes section of the text report.
func (r *Result) writeNodes(bw *bufio.Writer) {
	if len(r.Nodes) == 0 {
		return
	}
	fmt.Fprintf(bw, "\nnodes (in use: core time busy computing or in communication calls over cores × time)\n")
	fmt.Fprintf(bw, "  %-6s %-6s %-6s %-7s %-20s %-16s %s\n", "node", "ranks", "cores", "in use", "waiting for a core", "threads waiting", "sharing the node")
	rows := r.Nodes
	if len(rows) > maxNodeRows {
		rows = slices.Clone(rows)
		slices.SortStableFunc(rows, func(a, b NodeUse) int { return cmp.Compare(b.CoreWait+b.ThreadCoreWait, a.CoreWait+a.ThreadCoreWait) })
		rows = rows[:maxNodeRows]
		slices.SortFunc(rows, func(a, b NodeUse) int { return cmp.Compare(a.Node, b.Node) })
	}
	for _, u := range rows {
		fmt.Fprintf(bw, "  %-6d %-6d %-6d %-7s %-20v %-16v %s\n", u.Node, u.Ranks, u.Cores, fmt.Sprintf("%.1f%%", 100*u.Use), u.CoreWait, u.ThreadCoreWait, u.sharingText())
	}
	if len(r.Nodes) > maxNodeRows {
		lo, hi, sum := r.Nodes[0].Use, r.Nodes[0].Use, 0.0
		var wait trace.Time
		for _, u := range r.Nodes {
			lo, hi, sum = min(lo, u.Use), max(hi, u.Use), sum+u.Use
			wait += u.CoreWait
		}
		fmt.Fprintf(bw, "  ... %d more nodes (those above waited longest); over all %d: in use %.1f%% / %.1f%% / %.1f%% (min/mean/max), ranks waited %v for a core in all\n",
			len(r.Nodes)-maxNodeRows, len(r.Nodes), 100*lo, 100*sum/float64(len(r.Nodes)), 100*hi, wait)
	}
	for _, l := range r.nodeNotes() {
		fmt.Fprintf(bw, "  %s\n", l)
	}
}

// sharingText is the compute above the alone times, and its share of the
// compute.
func (u NodeUse) sharingText() string {
	if !u.SharingKnown {
		return "not measured (profile at np = 1)"
	}
	if u.Compute <= 0 {
		return "0"
	}
	return fmt.Sprintf("%v (%.1f%% of compute)", u.Sharing, 100*float64(u.Sharing)/float64(u.Compute))
}

// nodeNotes says what the nodes section shows and what it leaves out.
func (r *Result) nodeNotes() []string {
	var notes []string
	var wait, threads trace.Time
	ranks, cores := 0, 0
	for _, u := range r.Nodes {
		wait, threads = wait+u.CoreWait, threads+u.ThreadCoreWait
		ranks, cores = max(ranks, u.Ranks), u.Cores
	}
	if wait > 0 {
		notes = append(notes, fmt.Sprintf("up to %d ranks share a node's %d cores: %s; their waiting for a core adds to their time.", ranks, cores, r.nodeCoresText()))
	}
	if threads > 0 {
		notes = append(notes, "threads waiting: a rank's pool and Parallel threads outnumber its share of its node's cores and take turns on it.")
	}
	notes = append(notes,
		"sharing the node: main-thread compute above the fragments' alone times (the timing pass's runs with one rank computing at a time):",
		"  what the profile's ranks cost one another on its machine (memory bandwidth, caches), charged in proportion to how busy the node's cores are;",
		"  busier nodes than the profiling machine's are charged the profile's figure, not more: memory bandwidth is not modeled beyond it.")
	return notes
}
