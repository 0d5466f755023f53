package scale

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"

	"github.com/predict-tools/predict/trace"
)

func TestPlot(t *testing.T) {
	all := analyses(t)
	for _, name := range []string{"amdahl", "steps", "single", "weak", "failed"} {
		a := all[name]
		dir := filepath.Join(t.TempDir(), "plots")
		files, err := Plot(a, dir)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var want []string
		for _, plot := range []string{"speedup", "efficiency", "breakdown"} {
			want = append(want, filepath.Join(dir, plot+".png"), filepath.Join(dir, plot+".svg"))
		}
		if !slices.Equal(files, want) {
			t.Fatalf("%s: files %q, want %q", name, files, want)
		}
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			switch filepath.Ext(file) {
			case ".png":
				img, err := png.Decode(bytes.NewReader(data))
				if err != nil {
					t.Fatalf("%s: %v", file, err)
				}
				if b := img.Bounds(); b.Dx() != 864 || b.Dy() != 576 {
					t.Errorf("%s: %v, want 864×576", file, b)
				}
			case ".svg":
				texts := svgTexts(t, file, data)
				for _, w := range []string{"processes (np)", a.Name} {
					if !slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, w) }) {
						t.Errorf("%s: no text %q in %q", file, w, texts)
					}
				}
				// What each plot must say: the breakdown shows the idle
				// time, failed process counts are marked, weak scaling
				// is named.
				var says []string
				if strings.HasPrefix(filepath.Base(file), "breakdown") {
					says = append(says, "idle after finishing", "share of np × time (%)")
				}
				if len(a.Failed) > 0 {
					says = append(says, "failed (no prediction)")
				}
				if a.Weak() && !strings.HasPrefix(filepath.Base(file), "breakdown") {
					says = append(says, "eak")
				}
				for _, w := range says {
					if !slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, w) }) {
						t.Errorf("%s: no text %q in %q", file, w, texts)
					}
				}
				// The np axis is labelled with the process counts.
				for _, tick := range npTicks(npsOf(a)).Ticks(0, 0) {
					if tick.Label != "" && !slices.Contains(texts, tick.Label) {
						t.Errorf("%s: no np label %q in %q", file, tick.Label, texts)
					}
				}
			}
		}

		// The same analysis gives the same files.
		again, err := Plot(a, filepath.Join(t.TempDir(), "again"))
		if err != nil {
			t.Fatal(err)
		}
		for i := range files {
			x, _ := os.ReadFile(files[i])
			y, _ := os.ReadFile(again[i])
			if !bytes.Equal(x, y) {
				t.Errorf("%s: %s differs between two runs", name, filepath.Base(files[i]))
			}
		}
	}
}

func npsOf(a Analysis) []int {
	var nps []int
	for _, r := range a.Rows {
		nps = append(nps, r.NP)
	}
	for _, f := range a.Failed {
		nps = append(nps, f.NP)
	}
	slices.Sort(nps)
	return nps
}

// svgTexts parses an SVG file as XML and returns the contents of its text
// elements.
func svgTexts(t *testing.T, file string, data []byte) []string {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	var (
		texts  []string
		inText bool
	)
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: not valid XML: %v", file, err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			inText = tok.Name.Local == "text"
		case xml.CharData:
			if inText {
				texts = append(texts, string(tok))
			}
		case xml.EndElement:
			inText = false
		}
	}
	return texts
}

func TestPlotErrors(t *testing.T) {
	if _, err := Plot(Analysis{}, t.TempDir()); err == nil {
		t.Error("Plot of an empty analysis: no error")
	}
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o666)
	a, err := Analyze(amdahlPoints(trace.Second, 0.1, []int{1, 2}), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Plot(a, filepath.Join(file, "sub")); err == nil {
		t.Error("Plot into a path under a file: no error")
	}
}

func TestNPTicks(t *testing.T) {
	labels := func(nps ...int) []string {
		var out []string
		for _, tick := range npTicks(nps).Ticks(0, 0) {
			out = append(out, tick.Label)
		}
		return out
	}
	for _, test := range []struct {
		nps  []int
		want []string
	}{
		{[]int{64}, []string{"64"}},
		{[]int{1, 2, 4, 12}, []string{"1", "2", "4", "12"}},
		{[]int{8, 16, 32, 64, 128, 256}, []string{"8", "16", "32", "64", "128", "256"}},
		// 14 doublings: every other one, from the largest down.
		{[]int{8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536},
			[]string{"", "16", "", "64", "", "256", "", "1024", "", "4096", "", "16384", "", "65536"}},
		// Linear steps crowd at the top of a log axis.
		{[]int{8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96},
			[]string{"8", "16", "24", "", "40", "", "56", "", "72", "", "", "96"}},
	} {
		if got := labels(test.nps...); !slices.Equal(got, test.want) {
			t.Errorf("npTicks(%v) labels %q, want %q", test.nps, got, test.want)
		}
	}
}

func TestPowerOfTwoTicks(t *testing.T) {
	var got []string
	for _, tick := range (powerOfTwoTicks{}).Ticks(0.3, 20) {
		got = append(got, tick.Label)
	}
	if want := []string{"0.5", "1", "2", "4", "8", "16"}; !slices.Equal(got, want) {
		t.Errorf("labels %q, want %q", got, want)
	}
	// A narrow range falls back to the default ticker.
	if ticks := (powerOfTwoTicks{}).Ticks(1.1, 1.5); !slices.EqualFunc(ticks, (plot.DefaultTicks{}).Ticks(1.1, 1.5),
		func(a, b plot.Tick) bool { return a == b }) {
		t.Errorf("narrow range: %v", ticks)
	}
}
