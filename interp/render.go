// This file defines the reports of a prediction: the text that predict run
// prints and its JSON form (snake_case keys, times in picoseconds with a
// _ps suffix, lists that are empty rather than null).

package interp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"github.com/predict-tools/predict/machine"
	"io"

	"github.com/predict-tools/predict/trace"
)

// About says what a Result was predicted for, for its reports: what the
// interpreter is not told (the caller fills it in, as it does a
// scale.Analysis's name, machine and profile).
type About struct {
	Package     string   // the program's import path
	Args        []string // its arguments at np
	Profile     string   // where the profile came from
	MachineFile string   // the machine file, when the machine is not a preset
}

// WriteText writes r as predict run prints it, with its top hot spots.
func (r *Result) WriteText(w io.Writer, top int) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s at np=%d on %s: predicted time %v%s\n", r.Package, r.NP, r.Machine.Name, r.Time, r.BoundText())
	fmt.Fprintf(bw, "\nper rank          min          mean         max\n")
	type row struct {
		name string
		s    Stat
	}
	rows := []row{{"compute", r.Compute}, {"communication", r.Comm}, {"waiting", r.Wait}}
	if r.CoreWait.Max > 0 {
		rows = append(rows, row{"core waiting", r.CoreWait})
	}
	idle, hasIdle := r.Idle()
	if hasIdle {
		rows = append(rows, row{"idle at end", idle})
	}
	for _, row := range rows {
		fmt.Fprintf(bw, "  %-13s %-12v %-12v %v\n", row.name, row.s.Min, row.s.Mean, row.s.Max)
	}
	if r.CoreWait.Max > 0 {
		fmt.Fprintf(bw, "  (core waiting: ready to run while other ranks held every core of its node; %s)\n", r.nodeCoresText())
	}
	if r.Parks > 0 {
		fmt.Fprintf(bw, "  (ranks of nodes with more ranks than cores gave their core up %d times, every %s of compute on average)\n", r.Parks, machine.FormatDuration(r.ParkEvery))
	}
	if hasIdle {
		fmt.Fprintf(bw, "  (idle at end: the time a rank waits for the slowest one after it finishes)\n")
	}
	if c := r.ThreadCoreWait; c.Max > 0 {
		fmt.Fprintf(bw, "  threads waiting for a core: %v / %v / %v a rank, summed over its threads (%s)\n",
			c.Min, c.Mean, c.Max, r.coresText())
	}
	r.writeNodes(bw)
	fmt.Fprintf(bw, "\nhot spots (time summed over ranks)\n")
	for i, h := range r.Hot {
		if i >= top {
			fmt.Fprintf(bw, "  ... %d more\n", len(r.Hot)-top)
			break
		}
		fmt.Fprintf(bw, "  %-12v %8d×  %-8s %s\n", h.Time, h.Freq, h.Kind, h.Pos)
	}
	if len(r.Decisions) > 0 {
		fmt.Fprintf(bw, "\nopaque decisions\n")
		for _, d := range r.Decisions {
			fmt.Fprintf(bw, "  %s: %s\n", d.Pos, d.Source)
		}
	}
	if len(r.Limits) > 0 {
		fmt.Fprintf(bw, "\nmodeling limits (left out of the predicted time)\n")
		for _, l := range r.Limits {
			fmt.Fprintf(bw, "  WARNING: %s\n", l)
		}
	}
	if len(r.Assumptions) > 0 {
		fmt.Fprintf(bw, "\nassumptions\n")
		for _, a := range r.Assumptions {
			fmt.Fprintf(bw, "  %s\n", a)
		}
	}
	m := r.Machine
	fmt.Fprintf(bw, "\nmachine %s (%s): inter-node L=%v o=%v g=%v, eager limit %d B; intra-node L=%v o=%v\n",
		m.Name, m.Origin, m.Inter.Latency, m.Inter.Overhead, m.Inter.GapPerMessage, m.Inter.EagerLimit, m.Intra.Latency, m.Intra.Overhead)
	fmt.Fprintf(bw, "%d messages, %d communication events\n", r.Messages, r.Events)
	return bw.Flush()
}

// coresText names the cores a rank's threads share: its node's over the
// ranks there that compute.
func (r *Result) coresText() string {
	n := "its node's cores"
	if r.Machine != nil {
		n = fmt.Sprintf("its node's %d cores", r.Machine.CoresPerNode)
	}
	return "a rank's threads take turns on its share of " + n + ", first come first served"
}

// nodeCoresText says how ranks share a node's cores when they outnumber
// them.
func (r *Result) nodeCoresText() string {
	n := "its node's cores"
	if r.Machine != nil {
		n = fmt.Sprintf("the %d cores of its node", r.Machine.CoresPerNode)
	}
	steal := ""
	if r.Machine != nil && r.Machine.StealDelay > 0 {
		steal = fmt.Sprintf(" (another core takes it only %s after it is ready and that core free: the machine's steal delay)", machine.FormatDuration(r.Machine.StealDelay))
	}
	return fmt.Sprintf("a rank takes one of %s when ready and keeps it until it blocks in communication or a %d ms time slice ends; a rank it readies runs next%s, others wait first come first served", n, timeSlice/int64(trace.Millisecond), steal)
}

// Idle is the min/mean/max over ranks of the time a rank is idle after it
// finishes, until the slowest rank does; ok is false when r has no
// per-rank times.
func (r *Result) Idle() (s Stat, ok bool) {
	if len(r.Ranks) == 0 {
		return Stat{}, false
	}
	var sum trace.Time
	for i, rt := range r.Ranks {
		idle := r.Time - rt.Total
		if i == 0 || idle < s.Min {
			s.Min = idle
		}
		s.Max = max(s.Max, idle)
		sum += idle
	}
	s.Mean = (sum + trace.Time(len(r.Ranks))/2) / trace.Time(len(r.Ranks))
	return s, true
}

// WriteJSON writes r as predict run --json prints it, with its top hot
// spots.
func (r *Result) WriteJSON(w io.Writer, top int) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r.jsonForm(top))
}

type resultJSON struct {
	Package string        `json:"package"` // import path
	NP      int           `json:"np"`
	Args    []string      `json:"args"` // the program's arguments at np
	Machine *machine.Info `json:"machine"`
	Profile string        `json:"profile"`
	Time    trace.Time    `json:"time_ps"`
	Bound   trace.Time    `json:"bound_ps"` // ± of time_ps
	Compute statJSON      `json:"compute"`
	Comm    statJSON      `json:"comm"`
	Wait    statJSON      `json:"wait"`
	// CoreWait: ready to run, waiting for a core of the node; absent
	// when no node has more ranks than cores.
	CoreWait *statJSON `json:"core_wait,omitempty"`
	Idle     *statJSON `json:"idle,omitempty"` // after a rank finishes; absent without per-rank times
	// ThreadCoreWait: what a rank's threads waited for a core, summed
	// over them; absent when every thread had one.
	ThreadCoreWait *statJSON      `json:"thread_core_wait,omitempty"`
	Nodes          []NodeUse      `json:"nodes,omitempty"` // with --explain-node
	Ranks          []rankJSON     `json:"ranks"`
	Hot            []hotJSON      `json:"hot"`
	Decisions      []decisionJSON `json:"decisions"`
	Assumptions    []string       `json:"assumptions"`
	Limits         []string       `json:"limits"` // what the model leaves out of the time
	// Noise: the machine's noise was drawn (its seed and spread); absent
	// when it was not.
	Noise    string `json:"noise,omitempty"`
	Messages int64  `json:"messages"`
	Events   int64  `json:"events"`
}

// statJSON is a min/mean/max over ranks.
type statJSON struct {
	Min  trace.Time `json:"min_ps"`
	Mean trace.Time `json:"mean_ps"`
	Max  trace.Time `json:"max_ps"`
}

type rankJSON struct {
	Rank    int        `json:"rank"`
	Total   trace.Time `json:"total_ps"`
	Compute trace.Time `json:"compute_ps"`
	Comm    trace.Time `json:"comm_ps"`
	Wait    trace.Time `json:"wait_ps"`
	// CoreWait is absent when the rank never waited for a core.
	CoreWait trace.Time `json:"core_wait_ps,omitempty"`
}

type hotJSON struct {
	Node string     `json:"node"`
	Kind string     `json:"kind"`
	Pos  string     `json:"pos"`
	Time trace.Time `json:"time_ps"`
	Freq int64      `json:"freq"`
}

type decisionJSON struct {
	Node   string `json:"node"`
	Pos    string `json:"pos"`
	Source string `json:"source"`
}

// jsonForm is the JSON form of r, with its top hot spots.
func (r *Result) jsonForm(top int) resultJSON {
	stat := func(s Stat) statJSON { return statJSON{Min: s.Min, Mean: s.Mean, Max: s.Max} }
	out := resultJSON{
		Package: r.Package, NP: r.NP, Args: append([]string{}, r.Args...), Profile: r.Profile, Time: r.Time, Bound: r.Bound,
		Compute: stat(r.Compute), Comm: stat(r.Comm), Wait: stat(r.Wait),
		Ranks: []rankJSON{}, Hot: []hotJSON{}, Decisions: []decisionJSON{},
		Assumptions: append([]string{}, r.Assumptions...),
		Limits:      append([]string{}, r.Limits...),
		Noise:       r.Noise,
		Messages:    r.Messages, Events: r.Events,
	}
	if m := r.Machine; m != nil {
		out.Machine = m.Info(r.MachineFile)
	}
	if idle, ok := r.Idle(); ok {
		s := stat(idle)
		out.Idle = &s
	}
	if r.CoreWait.Max > 0 {
		s := stat(r.CoreWait)
		out.CoreWait = &s
	}
	if r.ThreadCoreWait.Max > 0 {
		s := stat(r.ThreadCoreWait)
		out.ThreadCoreWait = &s
	}
	out.Nodes = r.Nodes
	for _, rt := range r.Ranks {
		out.Ranks = append(out.Ranks, rankJSON{Rank: rt.Rank, Total: rt.Total, Compute: rt.Compute, Comm: rt.Comm, Wait: rt.Wait, CoreWait: rt.CoreWait})
	}
	for i, h := range r.Hot {
		if i >= top {
			break
		}
		out.Hot = append(out.Hot, hotJSON{Node: h.Node, Kind: h.Kind, Pos: h.Pos, Time: h.Time, Freq: h.Freq})
	}
	for _, d := range r.Decisions {
		out.Decisions = append(out.Decisions, decisionJSON{Node: d.Node, Pos: d.Pos, Source: d.Source})
	}
	return out
}
