package trace

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestFormatOf(t *testing.T) {
	for path, want := range map[string]string{
		"a.json": "chrome", "a.JSON": "chrome", "a.jsonl": "jsonl", "dir.x/a.prv": "paraver", "a.goal": "goal",
		"a.csv": "csv", "a": "", "a.txt": "", "a.json.gz": "",
	} {
		got, ok := FormatOf(path)
		if got != want || ok != (want != "") {
			t.Errorf("FormatOf(%q) = %q, %v; want %q", path, got, ok, want)
		}
	}
}

func TestOutputs(t *testing.T) {
	for _, tc := range []struct {
		out, format string
		want        []string
	}{
		{"t.json", "chrome", []string{"t.json"}},
		{"d/t.prv", "paraver", []string{"d/t.prv", "d/t.pcf", "d/t.row"}},
		{"d/t", "paraver", []string{"d/t.prv", "d/t.pcf", "d/t.row"}},
		{"t.x", "paraver", []string{"t.x.prv", "t.x.pcf", "t.x.row"}},
	} {
		if got := Outputs(tc.out, tc.format); !slices.Equal(got, tc.want) {
			t.Errorf("Outputs(%q, %q) = %v, want %v", tc.out, tc.format, got, tc.want)
		}
	}
}

func TestConvert(t *testing.T) {
	in, err := os.ReadFile("testdata/stencil2d-np4.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	h, events, err := ReadJSONL(bytes.NewReader(in), "in")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, format := range Formats {
		out := filepath.Join(dir, "s."+format)
		if err := Convert(bytes.NewReader(in), "in", out, format); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		for _, path := range Outputs(out, format) {
			info, err := os.Stat(path)
			if err != nil || info.Size() == 0 {
				t.Errorf("%s: output %s: %v", format, path, err)
			}
		}
		if format == "paraver" {
			continue
		}
		// The file holds what Encode writes.
		var want bytes.Buffer
		if err := Encode(&want, format, h, events); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(out)
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%s: Convert and Encode differ", format)
		}
	}
	// jsonl round-trips: the input was written sorted by commlib.
	got, _ := os.ReadFile(filepath.Join(dir, "s.jsonl"))
	if !bytes.Equal(got, in) {
		t.Error("jsonl output differs from the (sorted) input")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

func TestConvertErrors(t *testing.T) {
	good, err := os.ReadFile("testdata/waitirecv-np2.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "t.json")

	err = Convert(bytes.NewReader(good), "in", out, "xml")
	var unknown *UnknownFormatError
	if !errors.As(err, &unknown) || err.Error() != `unknown format "xml", want one of chrome, csv, goal, jsonl, paraver` {
		t.Errorf("unknown format: %v", err)
	}
	bad := bytes.Replace(good, []byte(`"op":"Wait"`), []byte(`"op":"Wait",`), 1)
	err = Convert(bytes.NewReader(bad), "bad.jsonl", out, "chrome")
	if err == nil || !strings.HasPrefix(err.Error(), "bad.jsonl:3: ") {
		t.Errorf("malformed trace: %v, want an error naming bad.jsonl:3", err)
	}
	err = Convert(bytes.NewReader(good), "in", filepath.Join(dir, "no", "t.json"), "chrome")
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "no", "t.json")+": ") {
		t.Errorf("missing directory: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("failed conversions left files: %v", entries)
	}
	if err := Encode(&bytes.Buffer{}, "paraver", Header{NP: 1}, nil); err == nil {
		t.Error("Encode paraver to one stream: no error")
	}
}
