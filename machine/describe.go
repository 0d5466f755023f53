// This file defines the human-readable account of a machine that reports
// print: the parameters used, and a loud note when a preset stands in for a
// calibration.

package machine

import (
	"fmt"
	"strings"
)

// String returns the machine's name and origin: `infiniband-hdr (preset)`.
func (m *Machine) String() string {
	return fmt.Sprintf("%s (%s)", m.Name, m.Origin)
}

// Describe returns the parameters of m, one topic per line, for reports.
// When m is a preset or a quick measurement, the second line says so in
// capitals: every report must show whether its figures were calibrated.
func (m *Machine) Describe() string {
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	line("machine %s", m)
	switch m.Origin {
	case OriginPreset:
		line("  WARNING: PRESET FIGURES, NOT A CALIBRATION: typical values stand in for the target;")
		line("           run `predict calibrate` on the target and pass the machine file it writes")
	case OriginMeasured:
		line("  NOTE: QUICK MEASUREMENT of this machine's in-process runtime, not a full calibration")
	}
	if m.Description != "" {
		line("  %s", m.Description)
	}
	if m.Source != "" {
		line("  source: %s", m.Source)
	}
	line("  shape: %s", m.shape())
	line("  intra-node: %s", describeLevel(&m.Intra, m.Table.Intra, m.Table.IntraSegments))
	line("  inter-node: %s", describeLevel(&m.Inter, m.Table.Inter, m.Table.InterSegments))
	if m.NIC.Contention {
		inj, ej := m.NIC.Injection, m.NIC.Ejection
		if inj == 0 {
			inj = m.Inter.GapPerByte
		}
		if ej == 0 {
			ej = m.Inter.GapPerByte
		}
		line("  NIC contention: on, one message at a time per node: injection %s (%s), ejection %s (%s)",
			inj, bandwidth(inj), ej, bandwidth(ej))
	} else {
		line("  NIC contention: off")
	}
	t := &m.Threads
	line("  threads: create=%s set_task=%s start=%s copy=%s cas=%s create_atomic=%s create_semaphore=%s try_lock=%s release=%s",
		FormatDuration(t.Create), FormatDuration(t.SetTask), FormatDuration(t.Start), t.Copy, FormatDuration(t.CAS),
		FormatDuration(t.CreateAtomic), FormatDuration(t.CreateSemaphore), FormatDuration(t.TryLock), FormatDuration(t.Release))
	if m.MemoryBandwidth > 0 {
		line("  memory bandwidth of a node: %.3g GB/s", m.MemoryBandwidth/1e9)
	}
	if len(m.Wakeup) > 0 {
		line("  wake-up of a blocked rank: %s", describeWakeup(m.Wakeup))
	}
	if m.StealDelay > 0 {
		line("  a rank readied to run next on a busy core takes another, free core after %s", FormatDuration(m.StealDelay))
	}
	if len(m.Noise) > 0 {
		line("  noise of a burst of compute: %s", m.Noise.Describe())
	}
	var chosen []string
	for _, name := range CollectiveNames() {
		if a, ok := m.Collectives[name]; ok && a != Auto {
			chosen = append(chosen, name+"="+string(a))
		}
	}
	switch len(chosen) {
	case 0:
		line("  collectives: auto (by size and np, MPICH's rules)")
	case len(CollectiveNames()):
		line("  collectives: %s", strings.Join(chosen, " "))
	default:
		line("  collectives: %s; the others auto", strings.Join(chosen, " "))
	}
	switch m.CPUFactor {
	case 1:
		line("  cpu factor: 1 (compute times as measured)")
	default:
		line("  cpu factor: %g (compute times as measured × %g)", m.CPUFactor, m.CPUFactor)
	}
	return b.String()
}

func (m *Machine) shape() string {
	nodes := "any number of nodes"
	if m.Nodes > 0 {
		nodes = plural(m.Nodes, "node")
	}
	ranks := plural(m.RanksPerNode, "rank") + " per node"
	if m.RanksPerNode == 0 {
		ranks = "no limit of ranks per node"
	}
	mapping := string(m.Mapping) + " mapping"
	if m.Mapping == Explicit {
		mapping = fmt.Sprintf("explicit mapping of %d ranks", len(m.Placement))
	}
	return fmt.Sprintf("%s × %s, %s, %s", nodes, plural(m.CoresPerNode, "core"), ranks, mapping)
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func describeLevel(p *LogGOPS, t Table, ss Segments) string {
	s := fmt.Sprintf("L=%s o=%s g=%s G=%s (%s) O=%s S=%d B",
		FormatDuration(p.Latency), FormatDuration(p.Overhead), FormatDuration(p.GapPerMessage),
		p.GapPerByte, bandwidth(p.GapPerByte), p.OverheadPerByte, p.EagerLimit)
	if len(t) > 0 {
		s += fmt.Sprintf("; ping-pong table of %d points (%d B .. %d B) overrides the transfer time", len(t), t[0].Bytes, t[len(t)-1].Bytes)
	}
	if len(ss) > 0 {
		s += fmt.Sprintf(", fitted by %s, the last (%s) extending it", plural(len(ss), "segment"), bandwidth(ss[len(ss)-1].Slope))
	}
	return s
}

// bandwidth prints 1/p in GB/s (decimal).
func bandwidth(p PerByte) string {
	if p <= 0 {
		return "infinite bandwidth"
	}
	return fmt.Sprintf("%.4g GB/s", p.BytesPerSecond()/1e9)
}
