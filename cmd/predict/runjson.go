// This file defines the JSON form of one prediction (predict run --json):
// snake_case keys, times in picoseconds with a _ps suffix, and lists that
// are empty rather than null.

package main

import (
	"github.com/predict-tools/predict/interp"
	"github.com/predict-tools/predict/scale"
	"github.com/predict-tools/predict/trace"
)

type runJSON struct {
	Package     string         `json:"package"` // import path
	NP          int            `json:"np"`
	Args        []string       `json:"args"` // the program's arguments at np
	Machine     *scale.Machine `json:"machine"`
	Profile     string         `json:"profile"`
	Time        trace.Time     `json:"time_ps"`
	Compute     statJSON       `json:"compute"`
	Comm        statJSON       `json:"comm"`
	Wait        statJSON       `json:"wait"`
	Idle        *statJSON      `json:"idle,omitempty"` // after a rank finishes; absent without per-rank times
	Ranks       []rankJSON     `json:"ranks"`
	Hot         []hotJSON      `json:"hot"`
	Decisions   []decisionJSON `json:"decisions"`
	Assumptions []string       `json:"assumptions"`
	Limits      []string       `json:"limits"` // what the model leaves out of the time
	Messages    int64          `json:"messages"`
	Events      int64          `json:"events"`
}

// statJSON is a min/mean/max over ranks.
type statJSON struct {
	Min  trace.Time `json:"min_ps"`
	Mean trace.Time `json:"mean_ps"`
	Max  trace.Time `json:"max_ps"`
}

type rankJSON struct {
	Rank    int        `json:"rank"`
	Total   trace.Time `json:"total_ps"`
	Compute trace.Time `json:"compute_ps"`
	Comm    trace.Time `json:"comm_ps"`
	Wait    trace.Time `json:"wait_ps"`
}

type hotJSON struct {
	Node string     `json:"node"`
	Kind string     `json:"kind"`
	Pos  string     `json:"pos"`
	Time trace.Time `json:"time_ps"`
	Freq int64      `json:"freq"`
}

type decisionJSON struct {
	Node   string `json:"node"`
	Pos    string `json:"pos"`
	Source string `json:"source"`
}

// newRunJSON is the JSON form of r, with its top hot spots.
func newRunJSON(pkg string, args []string, profile string, m *scale.Machine, r *interp.Result, top int) runJSON {
	stat := func(s interp.Stat) statJSON { return statJSON{Min: s.Min, Mean: s.Mean, Max: s.Max} }
	out := runJSON{
		Package: pkg, NP: r.NP, Args: append([]string{}, args...), Machine: m, Profile: profile, Time: r.Time,
		Compute: stat(r.Compute), Comm: stat(r.Comm), Wait: stat(r.Wait),
		Ranks: []rankJSON{}, Hot: []hotJSON{}, Decisions: []decisionJSON{},
		Assumptions: append([]string{}, r.Assumptions...),
		Limits:      append([]string{}, r.Limits...),
		Messages:    r.Messages, Events: r.Events,
	}
	if idle, ok := idleStat(r); ok {
		s := stat(idle)
		out.Idle = &s
	}
	for _, rt := range r.Ranks {
		out.Ranks = append(out.Ranks, rankJSON{Rank: rt.Rank, Total: rt.Total, Compute: rt.Compute, Comm: rt.Comm, Wait: rt.Wait})
	}
	for i, h := range r.Hot {
		if i >= top {
			break
		}
		out.Hot = append(out.Hot, hotJSON{Node: h.Node, Kind: h.Kind, Pos: h.Pos, Time: h.Time, Freq: h.Freq})
	}
	for _, d := range r.Decisions {
		out.Decisions = append(out.Decisions, decisionJSON{Node: d.Node, Pos: d.Pos, Source: d.Source})
	}
	return out
}
