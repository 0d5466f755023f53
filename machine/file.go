// This file defines the reading of machine files: strict decoding with the
// JSON path and position of every error (Load, Parse).

package machine

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/predict-tools/predict/trace"
)

// Load reads and validates the machine file at path.
func Load(path string) (*Machine, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("machine file: %v", err)
	}
	return Parse(data, path)
}

// Parse reads and validates a machine description. file names the input
// in errors (it may be empty). The error is an [ErrorList]: every problem,
// each with the JSON path of its field and, where the input shows it, its
// line and column. Unknown and duplicate fields are errors, and so are
// missing required ones (format, version, name, cores_per_node, and L, o,
// g, G, S of intra and inter).
func Parse(data []byte, file string) (*Machine, error) {
	d := &decoder{file: file, data: data, pos: map[string]int64{}}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, ErrorList{{File: file, Msg: "empty: not a machine description"}}
	}
	root, err := readJSON(data)
	if err != nil {
		oe := err.(*offsetError)
		d.errorAt(oe.off, oe.field, "%s", oe.msg)
		return nil, d.errs
	}
	if !d.header(root) {
		return nil, d.errs
	}
	m := d.machine(root)
	if len(d.errs) > 0 {
		return nil, d.errs
	}
	if err := m.Validate(); err != nil {
		for _, e := range err.(ErrorList) {
			d.locate(e)
		}
		return nil, err
	}
	// Empty lists are absent ones, and Auto is the default: keep only
	// explicit choices, so that equal machines compare equal.
	if len(m.Placement) == 0 {
		m.Placement = nil
	}
	if len(m.Table.Intra) == 0 {
		m.Table.Intra = nil
	}
	if len(m.Table.Inter) == 0 {
		m.Table.Inter = nil
	}
	if len(m.Table.IntraSegments) == 0 {
		m.Table.IntraSegments = nil
	}
	if len(m.Table.InterSegments) == 0 {
		m.Table.InterSegments = nil
	}
	if len(m.Wakeup) == 0 {
		m.Wakeup = nil
	}
	if len(m.Noise) == 0 {
		m.Noise = nil
	}
	for k, a := range m.Collectives {
		if a == Auto {
			delete(m.Collectives, k)
		}
	}
	if len(m.Collectives) == 0 {
		m.Collectives = nil
	}
	return m, nil
}

// UnmarshalJSON reads m from its machine-file form, strictly (see [Parse]).
func (m *Machine) UnmarshalJSON(data []byte) error {
	p, err := Parse(data, "")
	if err != nil {
		return err
	}
	*m = *p
	return nil
}

// decoder turns a JSON tree into a Machine, collecting errors with the
// positions of their fields.
type decoder struct {
	file string
	data []byte
	errs ErrorList
	pos  map[string]int64 // JSON path → offset of its value
}

func (d *decoder) errorAt(off int64, field, format string, args ...any) {
	line, col := lineCol(d.data, off)
	d.errs = append(d.errs, &Error{File: d.file, Line: line, Col: col, Field: field, Msg: fmt.Sprintf(format, args...)})
}

func (d *decoder) errorf(v *jsonValue, field, format string, args ...any) {
	d.errorAt(v.off, field, format, args...)
}

// locate sets the file and position of a validation error: those of its
// field, or of the nearest enclosing field that the input has.
func (d *decoder) locate(e *Error) {
	e.File = d.file
	if _, ok := d.pos[e.Field]; !ok && e.near != "" {
		if off, ok := d.pos[e.near]; ok {
			e.Line, e.Col = lineCol(d.data, off)
			return
		}
	}
	for f := e.Field; ; {
		if off, ok := d.pos[f]; ok {
			e.Line, e.Col = lineCol(d.data, off)
			return
		}
		i := strings.LastIndexAny(f, ".[")
		if i < 0 {
			return
		}
		f = f[:i]
	}
}

// member describes one field of a JSON object: its key, whether it must be
// present, and how to decode it.
type member struct {
	key      string
	required bool
	decode   func(v *jsonValue, path string)
}

// object decodes v, an object at path, member by member.
func (d *decoder) object(v *jsonValue, path string, members []member) {
	if !d.kind(v, path, jsonObject) {
		return
	}
	keys := make([]string, len(members))
	for i, mb := range members {
		keys[i] = mb.key
	}
	seen := map[string]bool{}
	for _, f := range v.fields {
		i := slices.Index(keys, f.key)
		p := join(path, f.key)
		if i < 0 {
			hint := ""
			for _, k := range keys {
				if strings.EqualFold(k, f.key) {
					hint = fmt.Sprintf(" (did you mean %q? keys are case-sensitive)", k)
				}
			}
			where := "a machine"
			if path != "" {
				where = path
			}
			d.errorAt(f.off, p, "unknown field%s: %s has %s", hint, where, strings.Join(keys, ", "))
			continue
		}
		seen[f.key] = true
		d.pos[p] = f.val.off
		members[i].decode(f.val, p)
	}
	for _, mb := range members {
		if mb.required && !seen[mb.key] {
			d.errorf(v, join(path, mb.key), "missing")
		}
	}
}

// kind reports whether v is of kind k, and records an error if not.
func (d *decoder) kind(v *jsonValue, path string, k jsonKind) bool {
	if v.kind != k {
		d.errorf(v, path, "%s, want %s", v.kind, k)
		return false
	}
	return true
}

func (d *decoder) str(dst *string) func(*jsonValue, string) {
	return func(v *jsonValue, path string) {
		if d.kind(v, path, jsonString) {
			*dst = v.text
		}
	}
}

func (d *decoder) boolean(dst *bool) func(*jsonValue, string) {
	return func(v *jsonValue, path string) {
		if d.kind(v, path, jsonBool) {
			*dst = v.b
		}
	}
}

func (d *decoder) integer(dst *int) func(*jsonValue, string) {
	return func(v *jsonValue, path string) {
		if !d.kind(v, path, jsonNumber) {
			return
		}
		n, err := strconv.ParseInt(v.text, 10, 32)
		if err != nil {
			d.errorf(v, path, "%s: want a whole number", v.text)
			return
		}
		*dst = int(n)
	}
}

func (d *decoder) float(dst *float64) func(*jsonValue, string) {
	return func(v *jsonValue, path string) {
		if !d.kind(v, path, jsonNumber) {
			return
		}
		f, err := strconv.ParseFloat(v.text, 64)
		if err != nil {
			d.errorf(v, path, "%s: not a usable number", v.text)
			return
		}
		*dst = f
	}
}

// size reads a byte count: a whole JSON number or a string like "64KiB".
func (d *decoder) size(dst *int64) func(*jsonValue, string) {
	return func(v *jsonValue, path string) {
		switch v.kind {
		case jsonNumber, jsonString:
			n, err := ParseBytes(v.text)
			if err != nil {
				d.errorf(v, path, "%v", err)
				return
			}
			*dst = n
		default:
			d.errorf(v, path, "%s, want a number of bytes (65536 or \"64KiB\")", v.kind)
		}
	}
}

// duration reads a duration: a string with a unit ("1.5us") or a JSON
// number of nanoseconds.
func (d *decoder) duration(dst *trace.Time) func(*jsonValue, string) {
	return func(v *jsonValue, path string) {
		var t int64
		var err error
		switch v.kind {
		case jsonString:
			var tt trace.Time
			tt, err = ParseDuration(v.text)
			t = int64(tt)
		case jsonNumber:
			t, err = parseNumber(v.text, int64(trace.Nanosecond))
		default:
			d.errorf(v, path, "%s, want a duration (\"1.5us\", or a number of nanoseconds)", v.kind)
			return
		}
		if err != nil {
			d.errorf(v, path, "%v", err)
			return
		}
		*dst = trace.Time(t)
	}
}

// perByte reads a cost per byte: a string ("0.3ns/B", "24GB/s") or a JSON
// number of nanoseconds per byte.
func (d *decoder) perByte(dst *PerByte) func(*jsonValue, string) {
	return func(v *jsonValue, path string) {
		var p int64
		var err error
		switch v.kind {
		case jsonString:
			var pp PerByte
			pp, err = ParsePerByte(v.text)
			p = int64(pp)
		case jsonNumber:
			p, err = parseNumber(v.text, int64(NanosecondPerByte))
		default:
			d.errorf(v, path, "%s, want a cost per byte (\"0.3ns/B\", \"24GB/s\", or a number of nanoseconds per byte)", v.kind)
			return
		}
		if err != nil {
			d.errorf(v, path, "%v", err)
			return
		}
		*dst = PerByte(p)
	}
}

// bandwidth reads a bandwidth in bytes per second: a JSON number of bytes
// per second or a string with a unit ("20GB/s", or a cost per byte such as
// "50ps/B").
func (d *decoder) bandwidth(dst *float64) func(*jsonValue, string) {
	return func(v *jsonValue, path string) {
		switch v.kind {
		case jsonNumber:
			d.float(dst)(v, path)
		case jsonString:
			p, err := ParsePerByte(v.text)
			if err != nil {
				d.errorf(v, path, "%v", err)
				return
			}
			*dst = p.BytesPerSecond()
		default:
			d.errorf(v, path, "%s, want a bandwidth (\"20GB/s\", or a number of bytes per second)", v.kind)
		}
	}
}

// header checks the format and version first: a file of another kind or
// version is reported as such, not field by field.
func (d *decoder) header(root *jsonValue) bool {
	if root.kind != jsonObject {
		return true // machine reports it
	}
	for _, f := range root.fields {
		switch {
		case f.key == "format" && (f.val.kind != jsonString || f.val.text != FormatName):
			d.errorf(f.val, "format", "%s: not a machine file (want %q)", f.val.text, FormatName)
		case f.key == "version" && (f.val.kind != jsonNumber || f.val.text != strconv.Itoa(FormatVersion)):
			d.errorf(f.val, "version", "%s: this predict reads machine files of version %d", f.val.text, FormatVersion)
		}
	}
	return len(d.errs) == 0
}

// machine decodes the whole description.
func (d *decoder) machine(root *jsonValue) *Machine {
	m := &Machine{Origin: OriginUser, Mapping: Block, CPUFactor: 1}
	var format string
	var version int
	ranksPerNode := false
	d.object(root, "", []member{
		{"format", true, d.str(&format)},
		{"version", true, d.integer(&version)},
		{"name", true, d.str(&m.Name)},
		{"description", false, d.str(&m.Description)},
		{"source", false, d.str(&m.Source)},
		{"origin", false, func(v *jsonValue, p string) { d.str((*string)(&m.Origin))(v, p) }},
		{"nodes", false, d.integer(&m.Nodes)},
		{"cores_per_node", true, d.integer(&m.CoresPerNode)},
		{"ranks_per_node", false, func(v *jsonValue, p string) { ranksPerNode = true; d.integer(&m.RanksPerNode)(v, p) }},
		{"mapping", false, func(v *jsonValue, p string) { d.str((*string)(&m.Mapping))(v, p) }},
		{"placement", false, d.placement(&m.Placement)},
		{"cpu_factor", false, d.float(&m.CPUFactor)},
		{"intra", true, d.level(&m.Intra)},
		{"inter", true, d.level(&m.Inter)},
		{"table", false, func(v *jsonValue, p string) {
			d.object(v, p, []member{
				{"intra", false, d.tableLevel(&m.Table.Intra, &m.Table.IntraSegments)},
				{"inter", false, d.tableLevel(&m.Table.Inter, &m.Table.InterSegments)},
			})
		}},
		{"nic", false, func(v *jsonValue, p string) {
			d.object(v, p, []member{
				{"contention", true, d.boolean(&m.NIC.Contention)},
				{"injection", false, d.perByte(&m.NIC.Injection)},
				{"ejection", false, d.perByte(&m.NIC.Ejection)},
			})
		}},
		{"threads", false, d.threads(&m.Threads)},
		{"memory_bandwidth", false, d.bandwidth(&m.MemoryBandwidth)},
		{"wakeup", false, d.wakeup(&m.Wakeup)},
		{"steal_delay", false, d.duration(&m.StealDelay)},
		{"noise", false, d.noise(&m.Noise)},
		{"collectives", false, d.collectives(&m.Collectives)},
	})
	if !ranksPerNode { // absent: one rank per core
		m.RanksPerNode = m.CoresPerNode
	}
	return m
}

func (d *decoder) level(p *LogGOPS) func(*jsonValue, string) {
	return func(v *jsonValue, path string) {
		d.object(v, path, []member{
			{"L", true, d.duration(&p.Latency)},
			{"o", true, d.duration(&p.Overhead)},
			{"g", true, d.duration(&p.GapPerMessage)},
			{"G", true, d.perByte(&p.GapPerByte)},
			{"O", false, d.perByte(&p.OverheadPerByte)},
			{"S", true, d.size(&p.EagerLimit)},
		})
	}
}

// tableLevel reads a level of the table section: the list of its points,
// or an object with the points and the segments that fit them.
func (d *decoder) tableLevel(t *Table, ss *Segments) func(*jsonValue, string) {
	return func(v *jsonValue, path string) {
		if v.kind != jsonObject {
			d.table(t)(v, path)
			return
		}
		d.object(v, path, []member{
			{"points", true, d.table(t)},
			{"segments", false, objects(d, (*[]Segment)(ss), func(g *Segment) []member {
				return []member{
					{"lo", true, d.size(&g.Lo)},
					{"hi", true, d.size(&g.Hi)},
					{"intercept", true, d.duration(&g.Intercept)},
					{"slope", true, d.perByte(&g.Slope)},
				}
			})},
		})
		// Without segments validation names the points as in the list
		// form (table.intra[3]): find them under "points" too.
		for i := range *t {
			if off, ok := d.pos[fmt.Sprintf("%s.points[%d]", path, i)]; ok {
				d.pos[fmt.Sprintf("%s[%d]", path, i)] = off
			}
		}
	}
}

func (d *decoder) table(t *Table) func(*jsonValue, string) {
	return objects(d, (*[]TablePoint)(t), func(p *TablePoint) []member {
		return []member{{"bytes", true, d.size(&p.Bytes)}, {"time", true, d.duration(&p.Time)}}
	})
}

func (d *decoder) wakeup(w *Wakeup) func(*jsonValue, string) {
	return objects(d, (*[]WakePoint)(w), func(p *WakePoint) []member {
		return []member{{"blocked", true, d.duration(&p.Blocked)}, {"delay", true, d.duration(&p.Delay)}}
	})
}

func (d *decoder) noise(n *Noise) func(*jsonValue, string) {
	return objects(d, (*[]NoisePoint)(n), func(p *NoisePoint) []member {
		return []member{{"burst", true, d.duration(&p.Burst)}, {"deviations", true, d.floats(&p.Deviations)}}
	})
}

// floats decodes an array of numbers.
func (d *decoder) floats(dst *[]float64) func(*jsonValue, string) {
	return elements(d, dst, d.float)
}

// objects decodes an array of objects into *dst, each element's members
// given by members.
func objects[T any](d *decoder, dst *[]T, members func(*T) []member) func(*jsonValue, string) {
	return elements(d, dst, func(p *T) func(*jsonValue, string) {
		return func(v *jsonValue, path string) { d.object(v, path, members(p)) }
	})
}

func (d *decoder) placement(dst *[]int) func(*jsonValue, string) {
	return elements(d, dst, d.integer)
}

// elements decodes an array into *dst, each element by the decoder elem
// gives for it, at the path "path[i]".
func elements[T any](d *decoder, dst *[]T, elem func(*T) func(*jsonValue, string)) func(*jsonValue, string) {
	return func(v *jsonValue, path string) {
		if !d.kind(v, path, jsonArray) {
			return
		}
		*dst = make([]T, len(v.elems))
		for i, e := range v.elems {
			p := fmt.Sprintf("%s[%d]", path, i)
			d.pos[p] = e.off
			elem(&(*dst)[i])(e, p)
		}
	}
}

func (d *decoder) threads(t *ThreadCosts) func(*jsonValue, string) {
	return func(v *jsonValue, path string) {
		d.object(v, path, []member{
			{"create", false, d.duration(&t.Create)},
			{"set_task", false, d.duration(&t.SetTask)},
			{"start", false, d.duration(&t.Start)},
			{"copy", false, d.perByte(&t.Copy)},
			{"cas", false, d.duration(&t.CAS)},
			{"create_atomic", false, d.duration(&t.CreateAtomic)},
			{"create_semaphore", false, d.duration(&t.CreateSemaphore)},
			{"try_lock", false, d.duration(&t.TryLock)},
			{"release", false, d.duration(&t.Release)},
		})
	}
}

func (d *decoder) collectives(dst *map[string]Algorithm) func(*jsonValue, string) {
	return func(v *jsonValue, path string) {
		if !d.kind(v, path, jsonObject) {
			return
		}
		*dst = map[string]Algorithm{}
		for _, f := range v.fields {
			p := join(path, f.key)
			d.pos[p] = f.val.off
			var s string
			d.str(&s)(f.val, p)
			(*dst)[f.key] = Algorithm(s)
		}
	}
}
