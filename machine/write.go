// This file defines the writing of a machine file: every field, in a fixed
// order, with exact units, so equal machines give equal bytes.

package machine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Write writes m as a machine file (see [Machine.MarshalJSON]).
func (m *Machine) Write(w io.Writer) error {
	b, err := m.MarshalJSON()
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// WriteFile writes m as a machine file at path, through a temporary file
// beside it renamed into place: a reader never sees half a file, and a
// failed write leaves what was there.
func (m *Machine) WriteFile(path string) error {
	b, err := m.MarshalJSON()
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".machine-*.json")
	if err != nil {
		return err
	}
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// MarshalJSON returns m in its machine-file form: every field, in a fixed
// order, durations and per-byte costs as exact strings with units ("2.5us",
// "41.667ps/B"), every collective, "auto" where m makes no choice, and the
// wake-up curve and the memory bandwidth when m has them. The
// output is deterministic and [Parse] reads it back to an equal Machine.
func (m *Machine) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("{\n")
	w("  \"format\": %s,\n", quote(FormatName))
	w("  \"version\": %d,\n", FormatVersion)
	w("  \"name\": %s,\n", quote(m.Name))
	w("  \"description\": %s,\n", quote(m.Description))
	w("  \"source\": %s,\n", quote(m.Source))
	w("  \"origin\": %s,\n", quote(string(m.Origin)))
	w("  \"nodes\": %d,\n", m.Nodes)
	w("  \"cores_per_node\": %d,\n", m.CoresPerNode)
	w("  \"ranks_per_node\": %d,\n", m.RanksPerNode)
	w("  \"mapping\": %s,\n", quote(string(m.Mapping)))
	if m.Mapping == Explicit || len(m.Placement) > 0 {
		w("  \"placement\": [")
		for i, n := range m.Placement {
			switch {
			case i == 0:
			case i%32 == 0:
				w(",\n    ")
			default:
				w(", ")
			}
			w("%d", n)
		}
		w("],\n")
	}
	w("  \"cpu_factor\": %s,\n", strconv.FormatFloat(m.CPUFactor, 'g', -1, 64))
	w("  \"intra\": %s,\n", level(&m.Intra))
	w("  \"inter\": %s,\n", level(&m.Inter))
	w("  \"table\": {\n    \"intra\": %s,\n    \"inter\": %s\n  },\n", tableLevel(m.Table.Intra, m.Table.IntraSegments), tableLevel(m.Table.Inter, m.Table.InterSegments))
	w("  \"nic\": {\"contention\": %t, \"injection\": %s, \"ejection\": %s},\n",
		m.NIC.Contention, quote(m.NIC.Injection.String()), quote(m.NIC.Ejection.String()))
	t := &m.Threads
	w("  \"threads\": {\n")
	for i, f := range []struct{ key, val string }{
		{"create", FormatDuration(t.Create)},
		{"set_task", FormatDuration(t.SetTask)},
		{"start", FormatDuration(t.Start)},
		{"copy", t.Copy.String()},
		{"cas", FormatDuration(t.CAS)},
		{"create_atomic", FormatDuration(t.CreateAtomic)},
		{"create_semaphore", FormatDuration(t.CreateSemaphore)},
		{"try_lock", FormatDuration(t.TryLock)},
		{"release", FormatDuration(t.Release)},
	} {
		w("    %s: %s%s\n", quote(f.key), quote(f.val), comma(i, 9))
	}
	w("  },\n")
	if len(m.Wakeup) > 0 {
		w("  \"wakeup\": %s,\n", wakeupText(m.Wakeup))
	}
	if m.StealDelay != 0 {
		w("  \"steal_delay\": %s,\n", quote(FormatDuration(m.StealDelay)))
	}
	if len(m.Noise) > 0 {
		w("  \"noise\": %s,\n", noiseText(m.Noise))
	}
	if m.MemoryBandwidth != 0 {
		w("  \"memory_bandwidth\": %s,\n", strconv.FormatFloat(m.MemoryBandwidth, 'g', -1, 64))
	}
	w("  \"collectives\": {\n")
	names := CollectiveNames()
	for k := range m.Collectives { // unknown names too, so that nothing is lost
		if _, ok := applicable[k]; !ok {
			names = append(names, k)
		}
	}
	for i, name := range names {
		a := m.Collectives[name]
		if a == "" {
			a = Auto
		}
		w("    %s: %s%s\n", quote(name), quote(string(a)), comma(i, len(names)))
	}
	w("  }\n")
	w("}")
	return b.Bytes(), nil
}

func level(p *LogGOPS) string {
	return fmt.Sprintf("{\"L\": %s, \"o\": %s, \"g\": %s, \"G\": %s, \"O\": %s, \"S\": %d}",
		quote(FormatDuration(p.Latency)), quote(FormatDuration(p.Overhead)), quote(FormatDuration(p.GapPerMessage)),
		quote(p.GapPerByte.String()), quote(p.OverheadPerByte.String()), p.EagerLimit)
}

// tableLevel writes a level of the table section: the list of its points,
// or, with segments, an object with the points and the segments.
func tableLevel(t Table, ss Segments) string {
	if len(ss) == 0 {
		return table(t, "    ")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "{\n      \"points\": %s,\n      \"segments\": [\n", table(t, "      "))
	for i, g := range ss {
		fmt.Fprintf(&b, "        {\"lo\": %d, \"hi\": %d, \"intercept\": %s, \"slope\": %s}%s\n",
			g.Lo, g.Hi, quote(FormatDuration(g.Intercept)), quote(g.Slope.String()), comma(i, len(ss)))
	}
	b.WriteString("      ]\n    }")
	return b.String()
}

// table writes the points of a table, its closing bracket indented by
// indent.
func table(t Table, indent string) string {
	if len(t) == 0 {
		return "[]"
	}
	var b strings.Builder
	b.WriteString("[\n")
	for i, p := range t {
		fmt.Fprintf(&b, "%s  {\"bytes\": %d, \"time\": %s}%s\n", indent, p.Bytes, quote(FormatDuration(p.Time)), comma(i, len(t)))
	}
	b.WriteString(indent + "]")
	return b.String()
}

func comma(i, n int) string {
	if i < n-1 {
		return ","
	}
	return ""
}

// quote writes s as a JSON string, without escaping <, > and &.
func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}
