package model_test

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/predict-tools/predict/model"
)

// TestJSONRoundTrip writes real models, reads them back and compares.
func TestJSONRoundTrip(t *testing.T) {
	for _, m := range []*realModel{stencil, shapes} {
		t.Run(m.pattern, func(t *testing.T) {
			p := m.build(t)
			var first bytes.Buffer
			if err := p.WriteJSON(&first); err != nil {
				t.Fatal(err)
			}
			back, err := model.ReadJSON(bytes.NewReader(first.Bytes()))
			if err != nil {
				t.Fatalf("reading back: %v", err)
			}
			if !reflect.DeepEqual(p, back) {
				t.Errorf("the model read back differs from the one written")
			}
			var second bytes.Buffer
			if err := back.WriteJSON(&second); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(first.Bytes(), second.Bytes()) {
				t.Errorf("writing the model read back gives other JSON")
			}
			// Building again gives the same bytes: nothing depends on
			// map order or addresses.
			var again bytes.Buffer
			if err := m.build(t).WriteJSON(&again); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(first.Bytes(), again.Bytes()) {
				t.Errorf("two builds of %s give different JSON", m.pattern)
			}
		})
	}
}

// TestJSONForm pins what readers of the files rely on: the version
// first, indentation, SSA names unescaped.
func TestJSONForm(t *testing.T) {
	p := stencil.build(t)
	p.Version = 0 // WriteJSON writes the format it writes, whatever p says
	var buf bytes.Buffer
	if err := p.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.HasPrefix(out, "{\n  \"version\": 1,\n  \"module\": \"github.com/predict-tools/predict\",") {
		t.Errorf("JSON starts with %.80q", out)
	}
	for _, want := range []string{`"id": "main$1"`, `"kind": "cfc"`, `"op": "Comm.Sendrecv"`, `"form": "range"`} {
		if !strings.Contains(out, want) {
			t.Errorf("JSON lacks %s", want)
		}
	}
	if strings.Contains(out, `\u003c`) || strings.Contains(out, `\u0026`) {
		t.Errorf("JSON escapes < or &")
	}
}

// valid is the smallest program ReadJSON accepts; the error cases below
// break it in one place.
const valid = `{"version": 1, "module": "m", "package": "m/p", "body": "f", "driver": "",
  "functions": [{"id": "f", "name": "m/p.f", "blocks": 1,
    "tree": {"id": "f/seq", "kind": "seq", "children": [
      {"id": "f/loop", "kind": "loop", "cond": {"id": "f/test", "kind": "test", "value": "t0"},
        "loop": {"form": "while", "body": {"id": "f/body", "kind": "seq", "children": [
          {"id": "f/break", "kind": "break", "target": "f/loop"}]}}},
      {"id": "f/region", "kind": "region", "children": [
        {"id": "f/b0", "kind": "block", "succs": [1]},
        {"id": "f/b1", "kind": "block", "succs": [-1]}]},
      {"id": "f/ret", "kind": "leaf", "leaf": {"kind": "ret", "block": 0, "first": 0, "last": 1, "instrs": ["return"]}}]}}]}
`

func TestReadJSON(t *testing.T) {
	p, err := model.ReadJSON(strings.NewReader(valid))
	if err != nil {
		t.Fatalf("valid input: %v", err)
	}
	if f := p.Func("f"); f == nil || len(f.Tree.Children) != 3 {
		t.Fatalf("valid input read as %+v", p)
	}
}

func TestReadJSONErrors(t *testing.T) {
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"empty", valid, "", "line 1, column 1: unexpected end of JSON input"},
		{"truncated", valid, valid[:40], "line 1, column 40: unexpected end of JSON input"},
		{"syntax", `"driver": "",`, `"driver": "" `, "line 2, column 3: invalid character '\"' after object key:value pair"},
		{"no version", `"version": 1,`, ``, `no "version" field: not a predict program model`},
		{"other version", `"version": 1`, `"version": 7`, "format version 7, this predict reads version 1"},
		{"array", valid, `[1, 2]`, "line 1, column 2: a JSON array, not a program model"},
		{"version type", `"version": 1`, `"version": "1"`, "field version: cannot read JSON string into int"},
		{"field type", `"blocks": 1`, `"blocks": "one"`, "line 2, column 61: field functions.blocks: cannot read JSON string into int"},
		{"unknown field", `"driver": "",`, `"driver": "", "bogus": 3,`, `unknown field "bogus"`},
		{"trailing data", valid, valid + "{}", "line 11, column 1: invalid character '{' after top-level value"},
		{"no body", `"body": "f"`, `"body": "g"`, `body "g" is not among the functions`},
		{"no driver", `"driver": ""`, `"driver": "main"`, `driver "main" is not among the functions`},
		{"no tree", `"tree": {"id": "f/seq", "kind": "seq", "children"`, `"tree": null, "x": {"children"`, "unknown field"},
		{"no id", `"id": "f/ret", `, ``, "function f: a leaf node has no id"},
		{"duplicate id", `"id": "f/ret"`, `"id": "f/seq"`, "function f: node ID f/seq appears twice"},
		{"unknown kind", `"kind": "region"`, `"kind": "maze"`, `node f/region: unknown kind "maze"`},
		{"leaf without leaf", `, "leaf": {"kind": "ret", "block": 0, "first": 0, "last": 1, "instrs": ["return"]}`, ``, "node f/ret: leaf node with leaf false"},
		{"unknown leaf kind", `"kind": "ret"`, `"kind": "jmp"`, `node f/ret: unknown leaf kind "jmp"`},
		{"loop without body", `"form": "while", "body"`, `"form": "while", "post"`, "node f/loop: loop without body"},
		{"successor", `"succs": [1]`, `"succs": [2]`, "block f/b0: successor 2 outside the region's 2 blocks"},
		{"jump target", `"target": "f/loop"`, `"target": "f/seq"`, `node f/break: target "f/seq" is not a loop of the function`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := strings.Replace(valid, tc.old, tc.new, 1)
			if in == valid {
				t.Fatalf("the case changes nothing")
			}
			_, err := model.ReadJSON(strings.NewReader(in))
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "model JSON: ") {
				t.Errorf("error %q, want model JSON: ...%s...", err, tc.want)
			}
		})
	}
}
