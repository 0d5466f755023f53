// This file defines the reduction report and its text form.

package reduce

import (
	"encoding/json"
	"fmt"
	"go/token"
	"io"
	"strings"

	"github.com/predict-tools/predict/model"
	"golang.org/x/tools/go/ssa"
)

// Report summarizes a reduction per function.
type Report struct {
	Package   string           `json:"package"`
	Exact     bool             `json:"exact"`
	Functions []FunctionReport `json:"functions"`

	// Plan is the loop plan, which the timing pass and the interpreter
	// follow (plan.go); its verdicts are written in Functions' loops.
	Plan *Plan `json:"-"`
}

// Induction describes a counted loop: its test compares Phi (stepped by
// Step per iteration, first tested as Init + Offset) with Bound, which does
// not change in the loop. The loop runs while "Phi+Offset Op Bound" holds
// (Op already accounts for a negated test and for the operand order).
type Induction struct {
	Phi    *ssa.Phi
	Init   ssa.Value
	Offset int64
	Bound  ssa.Value
	Op     token.Token
	Step   int64
	// StepValue, when not nil, is a step that is a value the loop does
	// not change (for i := rank; i < n; i += np), and Step is 0: taken as
	// positive for a test that counts up (<, <=), negative for one that
	// counts down (>, >=).
	StepValue    ssa.Value
	TestAtBottom bool
}

// FunctionReport is the reduction of one function.
type FunctionReport struct {
	ID            string       `json:"id"`
	Pos           string       `json:"pos"`
	Instrs        int          `json:"instrs"`
	Kept          int          `json:"kept"`
	Dropped       int          `json:"dropped"`
	ControlParams []string     `json:"control_params,omitempty"`
	ControlVars   []string     `json:"control_vars,omitempty"` // source variables whose values are kept
	ShapeOnly     []string     `json:"shape_only,omitempty"`
	Opaque        []Decision   `json:"opaque,omitempty"`
	Loops         []LoopReport `json:"loops,omitempty"`
	// Sealed says why the model never enters the function (a sealed
	// recursion, sealcall.go), "" when it may.
	Sealed string `json:"sealed,omitempty"`
	// SealedCalls are its calls through values the model does not
	// compute that it never follows (sealdyn.go): file:line and why.
	SealedCalls []Decision `json:"sealed_calls,omitempty"`
}

// Decision is an opaque decision: its outcomes come from the profile.
type Decision struct {
	Where  string `json:"where"`
	What   string `json:"what"`
	Reason string `json:"reason"`
}

// LoopReport is a loop's trip count and whether it may be collapsed.
type LoopReport struct {
	Where     string `json:"where"`
	Form      string `json:"form"`
	Formula   string `json:"formula,omitempty"`
	Nest      string `json:"nest,omitempty"`
	Opaque    string `json:"opaque,omitempty"`
	Candidate bool   `json:"candidate"`
	Sealed    bool   `json:"sealed,omitempty"`
	Reason    string `json:"reason,omitempty"`
	// Verdict and Why are the loop plan's: how the interpreter runs the
	// loop when the timing pass times it whole; Measure what the timing
	// pass measures for it.
	Verdict Verdict `json:"verdict"`
	Why     string  `json:"why"`
	Measure string  `json:"measure"`

	node *model.Node
}

// addVerdicts writes the loop plan's verdicts into the loops' reports.
func (r *Report) addVerdicts() {
	for i := range r.Functions {
		for j := range r.Functions[i].Loops {
			lr := &r.Functions[i].Loops[j]
			if l := r.Plan.Loop(lr.node); l != nil {
				lr.Verdict, lr.Why, lr.Measure = l.Verdict, l.Why, l.Measure
			}
		}
	}
}

// Totals sums instructions over functions.
func (r *Report) Totals() (instrs, kept, dropped int) {
	for _, f := range r.Functions {
		instrs += f.Instrs
		kept += f.Kept
		dropped += f.Dropped
	}
	return
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// WriteText writes the report for people.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	instrs, kept, dropped := r.Totals()
	mode := "default (opaque decisions are cut)"
	if r.Exact {
		mode = "exact (nothing is cut)"
	}
	fmt.Fprintf(&b, "reduction of %s, %s\n", r.Package, mode)
	fmt.Fprintf(&b, "instructions: %d, kept %d, dropped %d\n", instrs, kept, dropped)
	for _, f := range r.Functions {
		fmt.Fprintf(&b, "\nfunc %s  %s\n", f.ID, f.Pos)
		fmt.Fprintf(&b, "  instructions %d, kept %d, dropped %d\n", f.Instrs, f.Kept, f.Dropped)
		if len(f.ControlParams) > 0 {
			fmt.Fprintf(&b, "  control parameters: %s\n", strings.Join(f.ControlParams, ", "))
		}
		if len(f.ControlVars) > 0 {
			fmt.Fprintf(&b, "  control variables: %s\n", strings.Join(f.ControlVars, ", "))
		}
		if f.Sealed != "" {
			fmt.Fprintf(&b, "  sealed: %s\n", f.Sealed)
		}
		for _, d := range f.SealedCalls {
			fmt.Fprintf(&b, "  sealed call: %s  %s\n    because its target depends on %s: never followed, timed whole in its fragment\n", d.Where, d.What, d.Reason)
		}
		for _, s := range f.ShapeOnly {
			fmt.Fprintf(&b, "  shape only: %s\n", s)
		}
		for _, d := range f.Opaque {
			fmt.Fprintf(&b, "  opaque: %s  %s\n    because it depends on %s\n", d.Where, d.What, d.Reason)
		}
		for _, l := range f.Loops {
			fmt.Fprintf(&b, "  loop %s %s", l.Form, l.Where)
			switch {
			case l.Formula != "":
				fmt.Fprintf(&b, "  trips = %s", l.Formula)
			case l.Opaque != "":
				fmt.Fprintf(&b, "  trips opaque: %s", l.Opaque)
			default:
				fmt.Fprintf(&b, "  trips: no formula")
			}
			if l.Sealed {
				b.WriteString("  [sealed: only loop tests kept inside]")
			} else if l.Candidate {
				b.WriteString("  [collapse candidate]")
			}
			b.WriteString("\n")
			if l.Nest != "" {
				fmt.Fprintf(&b, "    nest: %s\n", l.Nest)
			}
			if !l.Candidate && l.Reason != "" {
				fmt.Fprintf(&b, "    %s\n", l.Reason)
			}
			if l.Verdict != "" {
				fmt.Fprintf(&b, "    plan: %s: %s\n    timing pass: %s\n", l.Verdict, l.Why, l.Measure)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
