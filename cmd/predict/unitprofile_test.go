package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/predict-tools/predict/interp"
	"github.com/predict-tools/predict/model"
	"github.com/predict-tools/predict/profile"
	"github.com/rogpeppe/go-internal/testscript"
)

// cmdUnitProfile writes a synthetic profile of PKG (relative to
// $MODROOT): every iteration of every loop of the model costs 1 µs and
// nothing else is timed, so that predictions from it are exact and do
// not depend on this machine.
//
//	unitprofile FILE PKG
func cmdUnitProfile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: unitprofile FILE PKG")
	}
	n := writeLoopProfile(ts, args[0], args[1], func(*model.Node) bool { return true })
	if n == 0 {
		ts.Fatalf("%s: no loops in the model", args[1])
	}
}

// writeLoopProfile writes a synthetic profile of pkg (relative to
// $MODROOT) to file, in which an iteration of each loop that keep accepts
// costs 1 µs and nothing else is timed. It returns the number of loops.
func writeLoopProfile(ts *testscript.TestScript, file, pkg string, keep func(*model.Node) bool) int {
	prog, err := interp.Prepare(ts.Getenv("MODROOT"), pkg)
	ts.Check(err)
	hash, err := profile.ContentHash(prog.Loaded)
	ts.Check(err)
	p := &profile.File{Format: profile.Format, Version: profile.Version,
		Package: prog.Model.Package, Module: prog.Model.Module, ContentHash: hash, NP: 1,
		Host: "synthetic", Created: "2026-01-01T00:00:00Z", Alpha: 0.1}
	for _, f := range prog.Model.Functions {
		model.Walk(f.Tree, func(n *model.Node) bool {
			if n.Kind == model.KindLoop && keep(n) {
				p.Fragments = append(p.Fragments, profile.FragmentStats{Node: n.ID, Kind: profile.FragLoop, Pos: n.Pos.String(), MeanPS: 1})
				p.Loops = append(p.Loops, profile.LoopStats{Node: n.ID, PerIterPS: 1_000_000, Balanced: true})
			}
			return true
		})
	}
	var buf bytes.Buffer
	ts.Check(p.Write(&buf))
	ts.Check(os.WriteFile(ts.MkAbs(file), buf.Bytes(), 0o644))
	return len(p.Loops)
}

// cmdProfileHere makes the synthetic profile in FILE one measured on this
// machine at np with the program arguments ARGS, whose plain runs took
// 1 ms each: what predict validate sets its runs at the profile's np
// against to tell the machine's drift.
//
//	profilehere FILE NP [ARGS...]
func cmdProfileHere(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: profilehere FILE NP [ARGS...]")
	}
	p, err := profile.Read(ts.MkAbs(args[0]))
	ts.Check(err)
	_, err = fmt.Sscan(args[1], &p.NP)
	ts.Check(err)
	p.Host, p.Args, p.PlainSpansPS = profile.ThisHost(), args[2:], []int64{1e9, 1e9, 1e9}
	var buf bytes.Buffer
	ts.Check(p.Write(&buf))
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), buf.Bytes(), 0o644))
}

// snakeCase is the style of every JSON key predict writes.
var snakeCase = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// cmdJSONStyle checks the JSON document in FILE: every key is snake_case,
// no value is null (an empty list is []), and each KEY given is present
// at the top level.
//
//	jsonstyle FILE [KEY...]
func cmdJSONStyle(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: jsonstyle FILE [KEY...]")
	}
	var doc any
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(args[0])), &doc))
	var problems []string
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case nil:
			problems = append(problems, path+": null")
		case map[string]any:
			for k, x := range v {
				if !snakeCase.MatchString(k) {
					problems = append(problems, fmt.Sprintf("%s: key %q is not snake_case", path, k))
				}
				walk(path+"."+k, x)
			}
		case []any:
			for i, x := range v {
				walk(fmt.Sprintf("%s[%d]", path, i), x)
			}
		}
	}
	walk("$", doc)
	top, _ := doc.(map[string]any)
	for _, k := range args[1:] {
		if _, ok := top[k]; !ok {
			problems = append(problems, "$: no key "+k)
		}
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		ts.Fatalf("%s:\n%s", args[0], strings.Join(problems, "\n"))
	}
}
