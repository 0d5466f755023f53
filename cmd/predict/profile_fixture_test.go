package main

import (
	"bytes"
	"os"

	"github.com/predict-tools/predict/estimator"
	"github.com/predict-tools/predict/interp"
	"github.com/predict-tools/predict/model"
	"github.com/rogpeppe/go-internal/testscript"
)

// cmdAmdahlProfile writes a synthetic profile of ./testprogs/amdahl
// (relative to $MODROOT): a unit of work costs 1 µs in its serial and
// parallel loops and nothing else is timed, so that predictions from it
// are exact and do not depend on this machine.
//
//	amdahlprofile FILE
func cmdAmdahlProfile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: amdahlprofile FILE")
	}
	prog, err := interp.Prepare(ts.Getenv("MODROOT"), "./testprogs/amdahl")
	ts.Check(err)
	hash, err := estimator.ContentHash(prog.Loaded)
	ts.Check(err)
	p := &estimator.ProfileFile{Format: estimator.ProfileFormat, Version: estimator.ProfileVersion,
		Package: prog.Model.Package, Module: prog.Model.Module, ContentHash: hash, NP: 1,
		Host: "synthetic", Created: "2026-01-01T00:00:00Z", Alpha: 0.1}
	for _, f := range prog.Model.Functions {
		if f.ID != "main$1" {
			continue
		}
		model.Walk(f.Tree, func(n *model.Node) bool {
			if n.Kind == model.KindLoop && (n.Pos.Start.Line == 76 || n.Pos.Start.Line == 82) {
				p.Fragments = append(p.Fragments, estimator.FragmentStats{Node: n.ID, Kind: estimator.FragLoop, Pos: n.Pos.String(), MeanPS: 1})
				p.Loops = append(p.Loops, estimator.LoopStats{Node: n.ID, PerIterPS: 1_000_000, Balanced: true})
			}
			return true
		})
	}
	if len(p.Loops) != 2 {
		ts.Fatalf("amdahl's unit loops not found at lines 76 and 82")
	}
	var buf bytes.Buffer
	ts.Check(p.Write(&buf))
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), buf.Bytes(), 0o644))
}
