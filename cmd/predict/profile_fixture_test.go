package main

import (
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
	n := writeLoopProfile(ts, args[0], "./testprogs/amdahl", func(n *model.Node) bool {
		return n.Pos.Start.Line == 76 || n.Pos.Start.Line == 82
	})
	if n != 2 {
		ts.Fatalf("amdahl's unit loops not found at lines 76 and 82")
	}
}
