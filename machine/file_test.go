package machine

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/predict-tools/predict/trace"
)

func write(t *testing.T, m *Machine) string {
	t.Helper()
	var b bytes.Buffer
	if err := m.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestPresetsRoundTrip(t *testing.T) {
	for _, name := range PresetNames() {
		m, err := Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Validate(); err != nil {
			t.Errorf("preset %s: %v", name, err)
		}
		if !m.IsPreset() || m.Name != name || m.Source == "" || m.Description == "" {
			t.Errorf("preset %s: origin %s, name %q, source %q: want a named preset with its sources", name, m.Origin, m.Name, m.Source)
		}
		text := write(t, m)
		back, err := Parse([]byte(text), name+".json")
		if err != nil {
			t.Fatalf("preset %s does not read back: %v\n%s", name, err, text)
		}
		if !reflect.DeepEqual(m, back) {
			t.Errorf("preset %s: read back differs:\n%#v\n%#v", name, m, back)
		}
		if again := write(t, back); again != text {
			t.Errorf("preset %s: written twice, differs:\n%s\n%s", name, text, again)
		}
	}
	if _, err := Preset("cray"); err == nil || !strings.Contains(err.Error(), "ethernet-10g, ideal, infiniband-hdr, local") {
		t.Errorf("unknown preset: %v", err)
	}
	// Presets are fresh copies.
	a, _ := Preset("local")
	a.Collectives["bcast"] = Binomial
	if b, _ := Preset("local"); b.Collectives["bcast"] != Linear {
		t.Errorf("changing a preset changed the next one")
	}
}

func TestRoundTripEverything(t *testing.T) {
	m := testMachine()
	m.Description, m.Source = `a "quoted" <name> & more`, "ünïcode"
	m.Nodes, m.Mapping, m.Placement = 3, Explicit, []int{0, 1, 2, 0, 1, 2, 0, 1}
	m.CPUFactor = 0.73
	m.Intra.OverheadPerByte = 3
	m.Table.Inter = Table{{1, 1500 * nsT}, {1024, 3 * trace.Microsecond}, {1 << 20, 900 * trace.Microsecond}}
	m.NIC = NIC{Contention: true, Injection: 41667}
	m.Threads = ThreadCosts{Create: 1, SetTask: 2, Start: 3, Copy: 4, CAS: 5, CreateAtomic: 6, CreateSemaphore: 7, TryLock: 8, Release: 9}
	m.Collectives = map[string]Algorithm{"alltoall": Pairwise, "barrier": Bruck}
	m.Wakeup = Wakeup{{5 * trace.Microsecond, 700 * nsT}, {50 * trace.Microsecond, 9 * trace.Microsecond}, {trace.Millisecond, 8 * trace.Microsecond}}
	m.MemoryBandwidth = 12.345678901e9
	m.StealDelay = 78 * trace.Microsecond
	// Written in full: near −1, and with more digits than a format of 4.
	m.Noise = Noise{{10 * trace.Microsecond, []float64{-0.99996, 0.123456789, 0.876503211}}, {trace.Millisecond, []float64{-0.0625, 0, 0.0625}}}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	text := write(t, m)
	back, err := Parse([]byte(text), "")
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	if !reflect.DeepEqual(m, back) {
		t.Errorf("read back differs:\n%#v\n%#v\n%s", m, back, text)
	}
	// Embedded in other JSON, through encoding/json.
	type report struct {
		Machine *Machine `json:"machine"`
	}
	b, err := json.Marshal(report{m})
	if err != nil {
		t.Fatal(err)
	}
	var r report
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m, r.Machine) {
		t.Errorf("through encoding/json: differs:\n%#v\n%#v", m, r.Machine)
	}
}

// base is a machine file to break in TestParseErrors.
func base(t *testing.T) string {
	m := testMachine()
	m.Table.Inter = Table{{1, 5000 * nsT}, {1024, 6000 * nsT}, {2048, 7000 * nsT}, {4096, 8000 * nsT}, {8192, 9000 * nsT}}
	m.Wakeup = Wakeup{{10 * trace.Microsecond, 5 * trace.Microsecond}, {100 * trace.Microsecond, 12 * trace.Microsecond}}
	m.MemoryBandwidth = 2e10
	m.StealDelay = 75 * trace.Microsecond
	m.Noise = Noise{{10 * trace.Microsecond, []float64{-0.5, -0.25, 0.25, 0.5}}, {100 * trace.Microsecond, []float64{-0.125, 0, 0, 0.125}}}
	return write(t, m)
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct {
		old, new string // the change to the base file
		field    string // the field the error must name
		msg      string // part of its message
	}{
		{`"mapping": "block"`, `"mapping": "diagonal"`, "mapping", `"diagonal" is not one of block, cyclic, explicit`},
		{`"inter": {"L": "2.5us"`, `"inter": {"L": "-2.5us"`, "inter.L", "negative duration -2.5us"},
		{`"intra": {"L": "200ns", "o": "100ns"`, `"intra": {"L": "200ns", "o": -100`, "intra.o", "negative duration -100ns"},
		{`"alltoall": "auto"`, `"alltoall": "rabenseifner"`, "collectives.alltoall", `"rabenseifner" does not apply to alltoall`},
		{`"barrier": "auto"`, `"barrier": "tree"`, "collectives.barrier", `"tree" is not an algorithm`},
		{`"bcast": "auto"`, `"bcast": "auto", "broadcast": "auto"`, "collectives.broadcast", `unknown collective "broadcast"`},
		{`{"bytes": 4096,`, `{"bytes": 100,`, "table.inter[3]", "sizes not increasing: 100 B after 2048 B"},
		{`{"bytes": 8192, "time": "9us"}`, `{"bytes": 8192, "time": "1us"}`, "table.inter[4]", "must not decrease"},
		{`{"bytes": 1, "time": "5us"}`, `{"bytes": 1}`, "table.inter[0].time", "missing"},
		{`"intra": [],`, `"intra": [{"bytes": 1, "time": "1us"}],`, "table.intra", "at least 2 points"},
		{`"nodes": 0,`, `"nodes": 0, "speed": 3,`, "speed", "unknown field: a machine has format, version, name"},
		{`"inter": {"L": "2.5us"`, `"inter": {"l": "2.5us"`, "inter.l", `did you mean "L"?`},
		{`"nodes": 0,`, `"nodes": 0, "nodes": 2,`, "nodes", "duplicate field"},
		{`, "S": 65535}`, `}`, "inter.S", "missing"},
		{`"nodes": 0,`, `"nodes": "four",`, "nodes", "a string, want a number"},
		{`"nodes": 0,`, `"nodes": 1.5,`, "nodes", "want a whole number"},
		{`"o": "100ns"`, `"o": "100"`, "intra.o", `"100" has no unit`},
		{`"o": "100ns"`, `"o": "100 minutes"`, "intra.o", `unknown unit "minutes"`},
		{`"G": "6ns/B"`, `"G": "6ns"`, "inter.G", `unknown unit "ns"`},
		{`"G": "6ns/B"`, `"G": true`, "inter.G", "a boolean, want a cost per byte"},
		{`"S": 4096`, `"S": "4k"`, "intra.S", "not a size"},
		{`"format": "predict-machine"`, `"format": "predict-trace"`, "format", "not a machine file"},
		{`"version": 1`, `"version": 2`, "version", "reads machine files of version 1"},
		{`"cpu_factor": 1`, `"cpu_factor": 0`, "cpu_factor", "want a number greater than 0"},
		{`"ranks_per_node": 4`, `"ranks_per_node": -4`, "ranks_per_node", "negative"},
		{`"cores_per_node": 4`, `"cores_per_node": 0`, "cores_per_node", "want at least 1"},
		{`"ranks_per_node": 4`, `"ranks_per_node": 0`, "ranks_per_node", "cannot both be 0"},
		{`"mapping": "block"`, `"mapping": "block", "placement": [0, 1]`, "placement", `needs mapping "explicit"`},
		{`"mapping": "block"`, `"mapping": "explicit"`, "placement", "empty"},
		{`"nodes": 0`, `"nodes": 2`, "", ""},                                                  // valid: a control
		{`"nodes": 0,`, `"nodes": 2, "mapping": "explicit", "placement": [0, 1, 2],`, "", ""}, // replaced below
		{`"mapping": "block"`, `"mapping": "explicit", "placement": [0, 0, 0, 0, 0]`, "placement[4]", "more than ranks_per_node = 4"},
		{`"nic": {"contention": false`, `"nic": {"contention": "no"`, "nic.contention", "a string, want a boolean"},
		{`"nic": {"contention": false, "injection": "0ns/B"`, `"nic": {"contention": true, "injection": "0GB/s"`, "nic.injection", "want more than 0"},
		{`"copy": "0ns/B"`, `"copy": "-1ns/B"`, "threads.copy", "negative cost per byte"},
		{`"origin": "user"`, `"origin": "guess"`, "origin", `"guess" is not one of preset, measured, calibrated, user`},
		{`"name": "test"`, `"name": " "`, "name", "empty"},
		{`"threads": {`, `"threads": {"join": "1us",`, "threads.join", "unknown field: threads has create"},
		{`"table": {`, `"table": 3, "x": {`, "table", "a number, want an object"},
		{`{"blocked": "100us"`, `{"blocked": "10us"`, "wakeup[1].blocked", "not increasing: 10us after 10us"},
		{`{"blocked": "10us"`, `{"blocked": "0ns"`, "wakeup[0].blocked", "want a positive time"},
		{`"delay": "12us"`, `"delay": "-12us"`, "wakeup[1].delay", "negative duration"},
		{`"delay": "12us"}`, `"dly": "12us"}`, "wakeup[1].dly", "unknown field"},
		{`"steal_delay": "75us"`, `"steal_delay": "-75us"`, "steal_delay", "negative duration -75us"},
		{`"wakeup": [`, `"wakeup": {"x": 1}, "y": [`, "wakeup", "an object, want an array"},
		{`"memory_bandwidth": 2e+10`, `"memory_bandwidth": -2e+10`, "memory_bandwidth", "want a bandwidth in bytes per second greater than 0"},
		{`"memory_bandwidth": 2e+10`, `"memory_bandwidth": 2e+20`, "memory_bandwidth", "want between 1e+06 and 1e+15 B/s"},
		{`"memory_bandwidth": 2e+10`, `"memory_bandwidth": "20 furlongs"`, "memory_bandwidth", `unknown unit`},
		{`"memory_bandwidth": 2e+10`, `"memory_bandwidth": true`, "memory_bandwidth", "a boolean, want a bandwidth"},
		{`"memory_bandwidth": 2e+10`, `"memory_bandwidth": "20GB/s"`, "", ""}, // valid: a unit
		{`{"burst": "100us"`, `{"burst": "10us"`, "noise[1].burst", "not increasing: 10us after 10us"},
		{`{"burst": "10us"`, `{"burst": "-10us"`, "noise[0].burst", "-10us: want a positive time"},
		{`[-0.125, 0, 0, 0.125]`, `[-0.125, 0, 0.125]`, "noise[1].deviations", "3 outcomes where noise[0] has 4"},
		{`[-0.125, 0, 0, 0.125]`, `[0.125, 0, 0, -0.125]`, "noise[1].deviations[1]", "must be sorted, fastest first"},
		{`[-0.5, -0.25, 0.25, 0.5]`, `[-1, -0.25, 0.25, 1]`, "noise[0].deviations[0]", "greater than -1"},
		{`[-0.5, -0.25, 0.25, 0.5]`, `[-0.5, -0.25, 0.25, 0.7]`, "noise[0].deviations", "their mean is 0.0500"},
		{`[-0.5, -0.25, 0.25, 0.5]`, `[0]`, "noise[0].deviations", "1 outcomes: want between 2"},
		{`[-0.5, -0.25, 0.25, 0.5]`, `["a", -0.25, 0.25, 0.5]`, "noise[0].deviations[0]", "a string, want a number"},
		{`{"burst": "10us", `, `{"burst": "10us", "spread": 1, `, "noise[0].spread", "unknown field"},
		{`"noise": [`, `"noise": {"x": 1}, "y": [`, "noise", "an object, want an array"},
	} {
		text := base(t)
		if c.new == `"nodes": 2, "mapping": "explicit", "placement": [0, 1, 2],` {
			text = strings.Replace(text, `"mapping": "block",`, "", 1)
			c.field, c.msg = "placement[2]", "node 2 does not exist: the machine has 2 nodes"
		}
		checkParseError(t, text, c.old, c.new, c.field, c.msg)
	}
}

// checkParseError changes old to new in the machine file text and checks
// that Parse names field with msg at the line of the change (field "":
// that the changed file is valid).
func checkParseError(t *testing.T, text, old, new, field, msg string) {
	t.Helper()
	if !strings.Contains(text, old) {
		t.Fatalf("the base file has no %s", old)
	}
	text = strings.Replace(text, old, new, 1)
	_, err := Parse([]byte(text), "test.json")
	if field == "" {
		if err != nil {
			t.Errorf("%s: %v", new, err)
		}
		return
	}
	var list ErrorList
	if !errors.As(err, &list) {
		t.Errorf("%s: error %v, want an ErrorList", new, err)
		return
	}
	var found *Error
	for _, e := range list {
		if e.Field == field && strings.Contains(e.Msg, msg) {
			found = e
		}
	}
	if found == nil {
		t.Errorf("%s: errors\n%v\nwant one naming %s: ...%s...", new, err, field, msg)
		return
	}
	// The position is that of the changed text (a missing field: its object).
	line := strings.Count(text[:strings.Index(text, new)], "\n") + 1
	if found.File != "test.json" || found.Line < line-1 || found.Line > line+2 {
		t.Errorf("%s: error at %s:%d:%d, want near line %d:\n%s", new, found.File, found.Line, found.Col, line, found)
	}
	if want := found.Field + ": "; !strings.Contains(found.Error(), want) || !strings.HasPrefix(found.Error(), "test.json:") {
		t.Errorf("%s: message %q does not start with the file and name the field", new, found.Error())
	}
}

func TestParseSyntaxErrors(t *testing.T) {
	for _, c := range []struct {
		text      string
		line, col int
		msg       string
	}{
		{"{\n  \"name\": \"x\"\n  \"nodes\": 1\n}", 3, 3, "JSON syntax"},
		{"{\n  \"name\": \"x\",\n", 3, 1, "unexpected end"},
		{"{}\n{}", 2, 1, "extra data"},
		{"{\n  \"nodes\": tru\n}", 2, 12, "JSON syntax"},  // inside a literal: at its start
		{"{\n  \"nodes\": 1x\n}", 2, 13, "JSON syntax"},   // inside a number
		{"{\n  \"nodes\": [1,]\n}", 2, 15, "JSON syntax"}, // between tokens
		{"{\n  \"nodes\" 1\n}", 2, 11, "JSON syntax"},
		{"   ", 0, 0, "empty"},
		{"[1, 2]", 1, 1, "an array, want an object"},
	} {
		_, err := Parse([]byte(c.text), "m.json")
		var list ErrorList
		if !errors.As(err, &list) || len(list) == 0 {
			t.Errorf("%q: %v", c.text, err)
			continue
		}
		e := list[0]
		if e.Line != c.line || e.Col != c.col || !strings.Contains(e.Msg, c.msg) {
			t.Errorf("%q: %v (line %d col %d), want %d:%d ...%s...", c.text, e, e.Line, e.Col, c.line, c.col, c.msg)
		}
	}
}

// A file of another version is reported as such, not field by field.
func TestParseVersion(t *testing.T) {
	_, err := Parse([]byte(`{"format": "predict-machine", "version": 2, "name": "x", "hyperlinks": 4}`), "v2.json")
	if err == nil || err.Error() != "v2.json:1:42: version: 2: this predict reads machine files of version 1" {
		t.Errorf("version 2: %v", err)
	}
	_, err = Parse([]byte(`{"format": "predict-trace", "version": 1}`), "t.json")
	if err == nil || err.Error() != `t.json:1:12: format: predict-trace: not a machine file (want "predict-machine")` {
		t.Errorf("a trace: %v", err)
	}
}

func TestParseForms(t *testing.T) {
	text := `{
	  "format": "predict-machine", "version": 1, "name": "hand", "cores_per_node": 8,
	  "intra": {"L": 300, "o": 0.5, "g": "1us", "G": 0.1, "S": "4KiB"},
	  "inter": {"L": "2.5us", "o": "1.5us", "g": "1us", "G": "24GB/s", "O": "0", "S": 65535},
	  "collectives": {"bcast": "auto", "alltoall": "pairwise"},
	  "memory_bandwidth": "20GB/s"
	}`
	m, err := Parse([]byte(text), "hand.json")
	if err != nil {
		t.Fatal(err)
	}
	want := LogGOPS{Latency: 300 * nsT, Overhead: 500, GapPerMessage: 1000 * nsT, GapPerByte: 100 * PicosecondPerByte, EagerLimit: 4096}
	if m.Intra != want {
		t.Errorf("numbers in ns: %+v, want %+v", m.Intra, want)
	}
	if m.Inter.GapPerByte != 41667 {
		t.Errorf("24GB/s = %d fs/B, want 41667", m.Inter.GapPerByte)
	}
	if m.MemoryBandwidth != 2e10 {
		t.Errorf("memory_bandwidth \"20GB/s\" = %g B/s, want 2e10", m.MemoryBandwidth)
	}
	// Defaults: origin user, one rank per core, block, factor 1, auto collectives but the explicit one.
	if m.Origin != OriginUser || m.RanksPerNode != 8 || m.Mapping != Block || m.CPUFactor != 1 || m.Nodes != 0 {
		t.Errorf("defaults: %+v", m)
	}
	if !reflect.DeepEqual(m.Collectives, map[string]Algorithm{"alltoall": Pairwise}) {
		t.Errorf("collectives %v: want only the explicit choice", m.Collectives)
	}
}

func TestLoadResolve(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cluster.machine.json")
	m, _ := Preset("infiniband-hdr")
	m.Name, m.Origin = "cluster", OriginCalibrated
	if err := os.WriteFile(path, []byte(write(t, m)), 0o666); err != nil {
		t.Fatal(err)
	}
	for _, arg := range []string{path, "infiniband-hdr"} {
		got, err := Resolve(arg)
		if err != nil {
			t.Fatalf("Resolve(%s): %v", arg, err)
		}
		if got.Inter != m.Inter {
			t.Errorf("Resolve(%s): inter %+v, want %+v", arg, got.Inter, m.Inter)
		}
	}
	if _, err := Resolve("cray"); err == nil || !strings.Contains(err.Error(), "neither a preset") {
		t.Errorf("Resolve(cray): %v", err)
	}
	if _, err := Resolve(filepath.Join(dir, "local")); err == nil || !strings.Contains(err.Error(), "machine file") {
		t.Errorf("Resolve(dir/local) must read a file: %v", err)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(strings.Replace(write(t, m), `"mapping": "block"`, `"mapping": "diagonal"`, 1)), 0o666)
	if _, err := Load(bad); err == nil || !strings.HasPrefix(err.Error(), bad+":11:14: mapping: ") {
		t.Errorf("Load(bad.json): %v", err)
	}
}

func TestDescribe(t *testing.T) {
	p, _ := Preset("infiniband-hdr")
	d := p.Describe()
	for _, want := range []string{"machine infiniband-hdr (preset)", "WARNING: PRESET FIGURES, NOT A CALIBRATION",
		"inter-node: L=700ns o=200ns g=200ns G=41.667ps/B (24 GB/s)", "S=12288 B", "64 cores, 64 ranks per node, block mapping",
		"collectives: auto", "NIC contention: off", "source: typical published figures"} {
		if !strings.Contains(d, want) {
			t.Errorf("Describe lacks %q:\n%s", want, d)
		}
	}
	m := testMachine()
	m.Origin = OriginCalibrated
	m.Collectives = map[string]Algorithm{"alltoall": Pairwise}
	m.NIC.Contention = true
	d = m.Describe()
	if strings.Contains(d, "PRESET") || !strings.Contains(d, "alltoall=pairwise; the others auto") ||
		!strings.Contains(d, "injection 6ns/B (0.1667 GB/s)") {
		t.Errorf("calibrated machine:\n%s", d)
	}
	if s := p.String(); s != "infiniband-hdr (preset)" {
		t.Errorf("String() = %q", s)
	}
}

// The README's example is the ideal preset, written out (in this
// package's README.md, or in the repository's once merged there).
func TestREADMEExample(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if os.IsNotExist(err) {
		readme, err = os.ReadFile("../README.md")
	}
	if err != nil {
		t.Fatal(err)
	}
	ideal, _ := Preset("ideal")
	if !strings.Contains(string(readme), "```json\n"+write(t, ideal)+"```\n") {
		t.Errorf("README.md does not show the ideal preset as Write writes it:\n%s", write(t, ideal))
	}
}

func TestWriteFile(t *testing.T) {
	m := testMachine()
	path := filepath.Join(t.TempDir(), "m.json")
	if err := m.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	back, err := Load(path)
	if err != nil || !reflect.DeepEqual(back, m) {
		t.Errorf("read back: %v\n%+v\n%+v", err, back, m)
	}
	if err := m.WriteFile(filepath.Join(t.TempDir(), "missing", "m.json")); err == nil {
		t.Errorf("no error for a missing directory")
	}
	if left, _ := os.ReadDir(filepath.Dir(path)); len(left) != 1 {
		t.Errorf("left %v", left)
	}
}
