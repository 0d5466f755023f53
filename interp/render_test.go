// This file tests the reports of a prediction (render.go): real programs
// of testprogs interpreted with profiles kept under testdata/render, so
// that the reports do not depend on this machine, against golden files.

package interp

import (
	"bytes"
	"encoding/json"
	"github.com/predict-tools/predict/internal/golden"
	"path/filepath"
	"strings"
	"testing"

	"github.com/predict-tools/predict/machine"
	"github.com/predict-tools/predict/profile"
	"github.com/predict-tools/predict/trace"
)

// TestRenderGolden: predict run's text and JSON of stencil and cg at np=4
// on infiniband-hdr, all hot spots and the top three (the "... more"
// line).
func TestRenderGolden(t *testing.T) {
	m, err := machine.Preset("infiniband-hdr")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		prog string
		top  int
	}{{"stencil", 10}, {"cg", 3}} {
		profPath := filepath.Join("testdata", "render", c.prog+".profile.json")
		prof, err := profile.Read(profPath)
		if err != nil {
			t.Fatal(err)
		}
		p := prepare(t, "./testprogs/"+c.prog)
		r, err := p.Run(Config{NP: 4, Machine: m, Profile: prof})
		if err != nil {
			t.Fatalf("%s: %v", c.prog, err)
		}
		r.About = About{Package: p.Model.Package, Profile: profPath}
		var text, js bytes.Buffer
		if err := r.WriteText(&text, c.top); err != nil {
			t.Fatal(err)
		}
		if err := r.WriteJSON(&js, c.top); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, filepath.Join("testdata", "render", c.prog+".txt.golden"), text.Bytes())
		golden.Check(t, filepath.Join("testdata", "render", c.prog+".json.golden"), js.Bytes())
	}
}

// handResult is a result without per-rank times, decisions, limits or
// assumptions, with two hot spots.
func handResult(t *testing.T) *Result {
	m, err := machine.Preset("ideal")
	if err != nil {
		t.Fatal(err)
	}
	return &Result{NP: 8, Time: 3 * trace.Millisecond, Machine: m,
		Compute: Stat{Min: 1 * trace.Millisecond, Mean: 2 * trace.Millisecond, Max: 3 * trace.Millisecond},
		Hot: []HotSpot{{Node: "main.f#1", Kind: "compute", Pos: "f.go:3:1", Time: 5 * trace.Millisecond, Freq: 8},
			{Node: "main.f#2", Kind: "Allreduce", Pos: "f.go:9:2", Time: 7 * trace.Microsecond, Freq: 16}},
		Messages: 24, Events: 16, About: About{Package: "example.com/f", Args: []string{"-n", "8"}, MachineFile: "m.json"}}
}

// TestWriteTextWithoutRanks: with no per-rank times there is no idle row,
// and the sections without entries are left out.
func TestWriteTextWithoutRanks(t *testing.T) {
	var buf bytes.Buffer
	if err := handResult(t).WriteText(&buf, 1); err != nil {
		t.Fatal(err)
	}
	got := buf.String()
	wantStart := `example.com/f at np=8 on ideal: predicted time 3ms

per rank          min          mean         max
  compute       1ms          2ms          3ms
  communication 0ns          0ns          0ns
  waiting       0ns          0ns          0ns

hot spots (time summed over ranks)
  5ms                 8×  compute  f.go:3:1
  ... 1 more

machine ideal (preset): `
	if !strings.HasPrefix(got, wantStart) {
		t.Errorf("got:\n%s\nwant it to start with:\n%s", got, wantStart)
	}
	if want := "\n24 messages, 16 communication events\n"; !strings.HasSuffix(got, want) {
		t.Errorf("got:\n%s\nwant it to end with %q", got, want)
	}
}

// TestWriteJSONWithoutRanks: no "idle" key, empty lists rather than null,
// the caller's About, the top hot spots only.
func TestWriteJSONWithoutRanks(t *testing.T) {
	var buf bytes.Buffer
	if err := handResult(t).WriteJSON(&buf, 1); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if _, ok := got["idle"]; ok {
		t.Errorf("idle present without per-rank times: %s", buf.Bytes())
	}
	for _, k := range []string{"ranks", "decisions", "assumptions", "limits"} {
		if l, ok := got[k].([]any); !ok || len(l) != 0 {
			t.Errorf("%s = %#v, want []", k, got[k])
		}
	}
	if hot := got["hot"].([]any); len(hot) != 1 {
		t.Errorf("hot has %d entries, want the top 1", len(hot))
	}
	mach := got["machine"].(map[string]any)
	if got["package"] != "example.com/f" || mach["name"] != "ideal" || mach["file"] != "m.json" || got["time_ps"] != float64(3*trace.Millisecond) {
		t.Errorf("package %v, machine %v, time %v", got["package"], mach, got["time_ps"])
	}
	if args := got["args"].([]any); len(args) != 2 || args[0] != "-n" {
		t.Errorf("args %v", args)
	}
}

// TestIdle: idle at end is the time to the slowest rank's end, its mean
// rounded to the nearest picosecond.
func TestIdle(t *testing.T) {
	r := &Result{Time: 10, Ranks: []RankTimes{{Total: 10}, {Total: 7}, {Total: 6}}}
	s, ok := r.Idle()
	// idle 0, 3, 4: mean 7/3 = 2.33 → 2
	if !ok || s != (Stat{Min: 0, Mean: 2, Max: 4}) {
		t.Errorf("Idle() = %+v, %v; want {0 2 4}, true", s, ok)
	}
	if _, ok := (&Result{Time: 10}).Idle(); ok {
		t.Error("Idle() without ranks: ok")
	}
}
