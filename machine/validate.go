// This file defines the validation of a machine and its errors, which name
// the field at fault by its JSON path.

package machine

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/predict-tools/predict/trace"
)

// Error is a problem with a machine description. Field is the JSON path of
// the field at fault ("inter.L", "table.inter[3]", "collectives.alltoall");
// File, Line and Col locate it in a machine file when there is one.
type Error struct {
	File      string
	Line, Col int // 1-based; 0 when unknown
	Field     string
	Msg       string

	near string // a field to locate the error by when Field is absent from the input
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d:%d", e.Line, e.Col)
		}
		b.WriteString(": ")
	} else if e.Line > 0 {
		fmt.Fprintf(&b, "line %d, column %d: ", e.Line, e.Col)
	}
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// ErrorList is every problem found in a machine description, in the order
// of its fields. Its message has one line per problem.
type ErrorList []*Error

func (l ErrorList) Error() string {
	s := make([]string, len(l))
	for i, e := range l {
		s[i] = e.Error()
	}
	return strings.Join(s, "\n")
}

// Err returns l as an error, or nil when l is empty.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

// Validate checks that m is a usable machine description and returns every
// problem as an [ErrorList] naming the fields, or nil.
func (m *Machine) Validate() error {
	var v validator
	if strings.TrimSpace(m.Name) == "" {
		v.errorf("name", "empty: a machine needs a name")
	}
	if !slices.Contains(origins, m.Origin) {
		v.errorf("origin", "%q is not one of %s", m.Origin, joinStrings(origins))
	}
	if m.Nodes < 0 {
		v.errorf("nodes", "%d is negative: want a number of nodes, or 0 for as many as a job needs", m.Nodes)
	}
	if m.CoresPerNode < 1 {
		v.errorf("cores_per_node", "%d: want at least 1", m.CoresPerNode)
	}
	switch {
	case m.RanksPerNode < 0:
		v.errorf("ranks_per_node", "%d is negative: want a number of ranks, or 0 for no limit", m.RanksPerNode)
	case m.RanksPerNode == 0 && m.Nodes == 0:
		v.errorNear("ranks_per_node", "nodes", "0 (no limit) needs a number of nodes: nodes and ranks_per_node cannot both be 0")
	}
	v.mapping(m)
	if math.IsNaN(m.CPUFactor) || math.IsInf(m.CPUFactor, 0) || m.CPUFactor <= 0 {
		v.errorf("cpu_factor", "%v: want a number greater than 0 (1 for a target as fast as the profiling machine)", m.CPUFactor)
	} else {
		v.cpuFactor(m.CPUFactor)
	}
	v.level("intra", &m.Intra)
	v.level("inter", &m.Inter)
	v.tableLevel("table.intra", m.Table.Intra, m.Table.IntraSegments)
	v.tableLevel("table.inter", m.Table.Inter, m.Table.InterSegments)
	v.wakeup("wakeup", m.Wakeup)
	v.duration("steal_delay", m.StealDelay)
	v.noise("noise", m.Noise)
	v.perByte("nic.injection", m.NIC.Injection)
	v.perByte("nic.ejection", m.NIC.Ejection)
	t := &m.Threads
	v.duration("threads.create", t.Create)
	v.duration("threads.set_task", t.SetTask)
	v.duration("threads.start", t.Start)
	v.perByte("threads.copy", t.Copy)
	v.duration("threads.cas", t.CAS)
	v.duration("threads.create_atomic", t.CreateAtomic)
	v.duration("threads.create_semaphore", t.CreateSemaphore)
	v.duration("threads.try_lock", t.TryLock)
	v.duration("threads.release", t.Release)
	v.memoryBandwidth(m.MemoryBandwidth)
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range m.Collectives {
			if !yield(k) {
				return
			}
		}
	}) {
		if err := checkAlgorithm(name, m.Collectives[name]); err != nil {
			v.errorf("collectives."+name, "%v", err)
		}
	}
	return v.errs.Err()
}

type validator struct{ errs ErrorList }

func (v *validator) errorf(field, format string, args ...any) {
	v.errs = append(v.errs, &Error{Field: field, Msg: fmt.Sprintf(format, args...)})
}

// errorNear is errorf for a field that may be absent from the input, whose
// error is best shown at field near.
func (v *validator) errorNear(field, near, format string, args ...any) {
	v.errorf(field, format, args...)
	v.errs[len(v.errs)-1].near = near
}

func (v *validator) duration(field string, t trace.Time) {
	if t < 0 {
		v.errorf(field, "negative duration %s", FormatDuration(t))
	}
	v.maxDuration(field, t)
}

func (v *validator) perByte(field string, p PerByte) {
	if p < 0 {
		v.errorf(field, "negative cost per byte %s", p)
	}
	v.maxPerByte(field, p)
}

func (v *validator) level(field string, p *LogGOPS) {
	v.duration(field+".L", p.Latency)
	v.duration(field+".o", p.Overhead)
	v.duration(field+".g", p.GapPerMessage)
	v.perByte(field+".G", p.GapPerByte)
	v.perByte(field+".O", p.OverheadPerByte)
	if p.EagerLimit < 0 {
		v.errorf(field+".S", "%d is negative: want the eager limit in bytes", p.EagerLimit)
	}
}

func (v *validator) mapping(m *Machine) {
	if !slices.Contains(mappings, m.Mapping) {
		v.errorf("mapping", "%q is not one of %s", m.Mapping, joinStrings(mappings))
		return
	}
	if m.Mapping != Explicit {
		if len(m.Placement) > 0 {
			v.errorf("placement", "a placement list needs mapping \"explicit\", not %q", m.Mapping)
		}
		return
	}
	if len(m.Placement) == 0 {
		v.errorNear("placement", "mapping", "empty: mapping \"explicit\" needs the node of every rank")
		return
	}
	count := map[int]int{}
	for r, node := range m.Placement {
		switch {
		case node < 0:
			v.errorf(fmt.Sprintf("placement[%d]", r), "node %d is negative", node)
		case m.Nodes > 0 && node >= m.Nodes:
			v.errorf(fmt.Sprintf("placement[%d]", r), "node %d does not exist: the machine has %d nodes (0..%d)", node, m.Nodes, m.Nodes-1)
		default:
			count[node]++
			if m.RanksPerNode > 0 && count[node] == m.RanksPerNode+1 {
				v.errorf(fmt.Sprintf("placement[%d]", r), "node %d gets more than ranks_per_node = %d ranks", node, m.RanksPerNode)
			}
		}
	}
}

func (v *validator) table(field string, t Table) {
	if len(t) == 0 {
		return
	}
	if len(t) < 2 {
		v.errorf(field, "%d point: a table needs at least 2 points (or none)", len(t))
		return
	}
	for i, p := range t {
		f := fmt.Sprintf("%s[%d]", field, i)
		switch {
		case p.Bytes < 0:
			v.errorf(f, "negative size %d", p.Bytes)
		case i > 0 && p.Bytes <= t[i-1].Bytes:
			v.errorf(f, "sizes not increasing: %d B after %d B", p.Bytes, t[i-1].Bytes)
		}
		if p.Time < 0 {
			v.errorf(f, "negative time %s", FormatDuration(p.Time))
		}
		v.tablePointBounds(f, p)
	}
	if n := len(t); t[n-1].Time < t[n-2].Time {
		v.errorf(fmt.Sprintf("%s[%d]", field, n-1), "time %s is below the previous point's %s: the last segment extrapolates larger messages and must not decrease",
			FormatDuration(t[n-1].Time), FormatDuration(t[n-2].Time))
	} else {
		v.lastSegmentBound(field, t)
	}
}

func joinStrings[S ~string](list []S) string {
	s := make([]string, len(list))
	for i, x := range list {
		s[i] = string(x)
	}
	return strings.Join(s, ", ")
}
