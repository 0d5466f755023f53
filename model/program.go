// This file defines program and function models.

package model

// FormatVersion is the version of the JSON form of a Program.
const FormatVersion = 1

// Program is the model of an SPMD program.
type Program struct {
	Version   int         `json:"version"`
	Module    string      `json:"module"`  // module path
	Package   string      `json:"package"` // the main package
	Body      string      `json:"body"`    // ID of the SPMD body (the function passed to commlib.Main or Run)
	Driver    string      `json:"driver"`  // ID of the function that calls commlib.Main
	Functions []*Function `json:"functions"`
}

// Function is the model of one function.
type Function struct {
	ID     string   `json:"id"`   // e.g. "main$1", "(*grid).exchange", "sum[float64]"
	Name   string   `json:"name"` // the full SSA name
	Pos    Range    `json:"pos"`
	Params []string `json:"params,omitempty"`
	Blocks int      `json:"blocks"` // reachable SSA basic blocks
	Tree   *Node    `json:"tree"`
	// Recover is the tree run when a deferred call recovers from a panic
	// (it returns the named results), or nil.
	Recover *Node `json:"recover,omitempty"`

	// Filled by reduce.
	ControlParams  []int    `json:"control_params,omitempty"`  // parameters that are control: call contexts are numbered by their values
	ControlResults []int    `json:"control_results,omitempty"` // results that are control
	ShapeOnly      []string `json:"shape_only,omitempty"`      // allocations kept as (length, capacity) only
}

// Func returns the function with the given ID, or nil.
func (p *Program) Func(id string) *Function {
	for _, f := range p.Functions {
		if f.ID == id {
			return f
		}
	}
	return nil
}

// Regions counts the unstructured regions in f.
func (f *Function) Regions() int {
	n := 0
	Walk(f.Tree, func(x *Node) bool {
		if x.Kind == KindRegion {
			n++
		}
		return true
	})
	return n
}
