// This file defines source positions and ranges.

package model

import "fmt"

// Pos is a source position. File is relative to the module root when the
// file is inside the module.
type Pos struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Col  int    `json:"col"`
}

// IsValid reports whether p names a place in a file.
func (p Pos) IsValid() bool { return p.Line > 0 }

func (p Pos) String() string {
	if !p.IsValid() {
		return "-"
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Before reports whether p comes before q in the same file, or orders files
// by name.
func (p Pos) Before(q Pos) bool {
	if p.File != q.File {
		return p.File < q.File
	}
	if p.Line != q.Line {
		return p.Line < q.Line
	}
	return p.Col < q.Col
}

// Range is the source extent of a node: from Start to End inclusive.
type Range struct {
	Start Pos `json:"start"`
	End   Pos `json:"end"`
}

// String prints file:line:col, or file:line-line when the range spans
// several lines.
func (r Range) String() string {
	if !r.Start.IsValid() {
		return "-"
	}
	if r.End.IsValid() && r.End.File == r.Start.File && r.End.Line != r.Start.Line {
		return fmt.Sprintf("%s:%d-%d", r.Start.File, r.Start.Line, r.End.Line)
	}
	return r.Start.String()
}

// Extend grows r to include p.
func (r *Range) Extend(p Pos) {
	if !p.IsValid() {
		return
	}
	if !r.Start.IsValid() || p.Before(r.Start) {
		r.Start = p
	}
	if !r.End.IsValid() || r.End.Before(p) {
		r.End = p
	}
}

// Union grows r to include q.
func (r *Range) Union(q Range) {
	r.Extend(q.Start)
	r.Extend(q.End)
}
