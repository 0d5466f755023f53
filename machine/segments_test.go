package machine

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/predict-tools/predict/trace"
)

// testSegments fit a table of 1 B to 1 MiB: flat to 4 KiB, 1 ns/B to 64 KiB,
// a jump at the eager limit 64 KiB, then 2 ns/B.
func testSegments() Segments {
	return Segments{
		{Lo: 1, Hi: 4096, Intercept: 1000 * nsT, Slope: 0},
		{Lo: 8192, Hi: 65536, Intercept: 9000 * nsT, Slope: NanosecondPerByte},
		{Lo: 131072, Hi: 1 << 20, Intercept: 200 * trace.Microsecond, Slope: 2 * NanosecondPerByte},
	}
}

func TestSegmentsAt(t *testing.T) {
	ss := testSegments()
	const S = 65536
	for _, c := range []struct {
		s    int64
		want trace.Time
	}{
		{0, 1000 * nsT},    // below the first range: its intercept
		{1, 1000 * nsT},    // the first range's lo
		{4096, 1000 * nsT}, // its hi
		// The bridge from 1000 ns at 4096 B to 9000 ns at 8192 B.
		{6144, 5000 * nsT},
		{8192, 9000 * nsT},                           // the second range's lo
		{16384, (9000 + 8192) * nsT},                 // its line
		{65536, (9000 + 57344) * nsT},                // its hi, the eager limit
		{65537, 200*trace.Microsecond - 65535*2*nsT}, // above S: the third range's line, extended back
		{131072, 200 * trace.Microsecond},
		{1 << 20, 200*trace.Microsecond + (1<<20-131072)*2*nsT},
		{4 << 20, 200*trace.Microsecond + (4<<20-131072)*2*nsT}, // beyond: the last range's line
	} {
		if got := ss.At(c.s, S); got != c.want {
			t.Errorf("At(%d) = %d, want %d", c.s, got, c.want)
		}
	}
	// Without the eager limit between the second and third ranges, a
	// bridge joins them: continuous at both ends, straight between.
	for _, c := range []struct {
		s    int64
		want trace.Time
	}{
		{65536, 66344 * nsT},
		{65536 + 32768, (66344 + (200000-66344)/2) * nsT},
		{131072, 200 * trace.Microsecond},
	} {
		if got := ss.At(c.s, 1<<30); got != c.want {
			t.Errorf("no eager limit between: At(%d) = %d, want %d", c.s, got, c.want)
		}
	}
	// The upper range extended back never goes below the lower at S.
	steep := Segments{{Lo: 1, Hi: 1024, Intercept: 1000 * nsT}, {Lo: 4096, Hi: 8192, Intercept: 1100 * nsT, Slope: 10 * NanosecondPerByte}}
	if got := steep.At(2048, 1024); got != 1000*nsT {
		t.Errorf("a steep upper range at 2048 B = %d, want the lower range's 1000 ns at S", got)
	}
	// A falling bridge stays between its ends.
	fall := Segments{{Lo: 1, Hi: 2, Intercept: 3000 * nsT}, {Lo: 4, Hi: 8, Intercept: 1000 * nsT}}
	if got := fall.At(3, 1<<30); got != 2000*nsT {
		t.Errorf("falling bridge At(3) = %d, want 2000 ns", got)
	}
	if got := (Segments{}).At(5, 0); got != 0 {
		t.Errorf("no segments: %d", got)
	}
}

// TestLinkSegments: inside the table's range the table decides, segments
// or not; beyond it the last segment's cost per byte extends the table's
// last time (without segments, its last two points' slope).
func TestLinkSegments(t *testing.T) {
	m := testMachine()
	m.Table.Inter = Table{{1, 5 * trace.Microsecond}, {1 << 19, 100 * trace.Microsecond}, {1 << 20, 300 * trace.Microsecond}}
	plain := m.Level(true)
	m.Table.InterSegments = Segments{{Lo: 1, Hi: 1 << 20, Intercept: 5 * trace.Microsecond, Slope: 250 * PicosecondPerByte}}
	fitted := m.Level(true)
	for _, s := range []int64{1, 1000, 1 << 18, 1 << 19, 1 << 20} {
		if a, b := plain.PingPong(s), fitted.PingPong(s); a != b {
			t.Errorf("%d B inside the table: %d with segments, %d without", s, b, a)
		}
	}
	beyond := int64(4 << 20)
	if got, want := fitted.TableAt(beyond), 300*trace.Microsecond+PerByte(250*PicosecondPerByte).Times(3<<20); got != want {
		t.Errorf("TableAt(4MiB) with segments = %d, want %d", got, want)
	}
	if got, want := fitted.PingPong(beyond), fitted.TableAt(beyond); got != want {
		t.Errorf("PingPong(4MiB) = %d, want the extended table's %d", got, want)
	}
	if got, want := plain.TableAt(beyond), m.Table.Inter.At(beyond); got != want {
		t.Errorf("TableAt(4MiB) without segments = %d, want Table.At's %d", got, want)
	}
}

// segmentsMachine is a valid machine whose intra level has segments.
func segmentsMachine() *Machine {
	m := testMachine()
	m.Table.Intra = Table{{1, 1000 * nsT}, {4096, 1000 * nsT}, {8192, 9000 * nsT}, {65536, 66536 * nsT}, {131072, 200 * trace.Microsecond}, {1 << 20, 2 * trace.Millisecond}}
	m.Table.IntraSegments = testSegments()
	return m
}

func TestSegmentsRoundTrip(t *testing.T) {
	m := segmentsMachine()
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	text := write(t, m)
	for _, want := range []string{`"intra": {`, `"points": [`, `{"lo": 8192, "hi": 65536, "intercept": "9us", "slope": "1ns/B"}`, `"inter": []`} {
		if !strings.Contains(text, want) {
			t.Errorf("machine file lacks %s:\n%s", want, text)
		}
	}
	back, err := Parse([]byte(text), "seg.json")
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	if !reflect.DeepEqual(m, back) {
		t.Errorf("read back differs:\n%#v\n%#v", m.Table, back.Table)
	}
	if again := write(t, back); again != text {
		t.Errorf("written twice, differs:\n%s\n%s", text, again)
	}
	c := m.Clone()
	c.Table.IntraSegments[0].Lo = 2
	if m.Table.IntraSegments[0].Lo != 1 {
		t.Errorf("Clone shares the segments")
	}
	var viaJSON struct{ M *Machine }
	b, err := json.Marshal(struct{ M *Machine }{m})
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &viaJSON); err != nil || !reflect.DeepEqual(m, viaJSON.M) {
		t.Errorf("through encoding/json: %v", err)
	}
	// The object form without segments reads as the list form.
	obj := strings.Replace(write(t, testMachine()), `"inter": []`, `"inter": {"points": [{"bytes": 1, "time": "1us"}, {"bytes": 2, "time": "2us"}]}`, 1)
	if got, err := Parse([]byte(obj), ""); err != nil || len(got.Table.Inter) != 2 || got.Table.InterSegments != nil {
		t.Errorf("points without segments: %v, %+v", err, got)
	}
	var d bytes.Buffer
	d.WriteString(m.Describe())
	if !strings.Contains(d.String(), "fitted by 3 segments, the last (0.5 GB/s) extending it") {
		t.Errorf("describe:\n%s", d.String())
	}
}

func TestSegmentsParseErrors(t *testing.T) {
	text := write(t, segmentsMachine())
	seg1 := `{"lo": 8192, "hi": 65536, "intercept": "9us", "slope": "1ns/B"}`
	for _, c := range []struct{ new, field, msg string }{
		{`{"lo": 8192, "hi": 4096, "intercept": "9us", "slope": "1ns/B"}`, "table.intra.segments[1].hi", "4096 B is below lo 8192 B"},
		{`{"lo": 4096, "hi": 65536, "intercept": "9us", "slope": "1ns/B"}`, "table.intra.segments[1].lo", "overlaps table.intra.segments[0] (1 B to 4096 B)"},
		{`{"lo": 0, "hi": 65536, "intercept": "9us", "slope": "1ns/B"}`, "table.intra.segments[1].lo", "segments not sorted: lo 0 B after table.intra.segments[0].lo 1 B"},
		{`{"lo": 8192, "hi": 65536, "intercept": "-9us", "slope": "1ns/B"}`, "table.intra.segments[1].intercept", "negative time -9us"},
		{`{"lo": 8192, "hi": 65536, "intercept": "9us", "slope": "-1ns/B"}`, "table.intra.segments[1].slope", "negative cost per byte"},
		{`{"lo": 8192, "hi": 65536, "intercept": "9us", "slope": "2ms/B"}`, "table.intra.segments[1].slope", "want at most 1ms/B"},
		{`{"lo": -1, "hi": 65536, "intercept": "9us", "slope": "1ns/B"}`, "table.intra.segments[1].lo", "negative size"},
		{`{"lo": 8192, "hi": 65536, "intercept": "3601s", "slope": "1ns/B"}`, "table.intra.segments[1].intercept", "want at most 3600s"},
		{`{"lo": 8192, "hi": 65536, "slope": "1ns/B"}`, "table.intra.segments[1].intercept", "missing"},
		{`{"lo": 8192, "hi": 65536, "intercept": "9us", "slope": "1ns/B", "g": 1}`, "table.intra.segments[1].g", "unknown field"},
		{`{"lo": 8192, "hi": 65536, "intercept": "9us", "slope": "1ns/B"}`, "", ""}, // unchanged: valid
	} {
		checkParseError(t, text, seg1, c.new, c.field, c.msg)
	}
	// A point of a level with segments is named under points.
	checkParseError(t, text, `{"bytes": 8192, "time": "9us"}`, `{"bytes": 2048, "time": "9us"}`, "table.intra.points[2]", "sizes not increasing: 2048 B after 4096 B")
	// Segments need the level's points.
	start := strings.Index(text, `"points": [`)
	end := strings.Index(text, `"segments": [`)
	_, err := Parse([]byte(text[:start]+text[end:]), "test.json")
	if err == nil || !strings.Contains(err.Error(), "table.intra.points: missing") {
		t.Errorf("segments without points: %v", err)
	}
	m := segmentsMachine()
	m.Table.Intra = nil
	if err = m.Validate(); err == nil || !strings.Contains(err.Error(), "table.intra.points: missing: segments extend the level's ping-pong table") {
		t.Errorf("segments without a table: %v", err)
	}
}
