// This file defines the abstract memory of the analysis and a
// flow-insensitive, context-insensitive points-to analysis over it.

package reduce

import (
	"fmt"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// object is an allocation site: make, new, &T{}, a local that escapes, a
// global, or the result of a call outside the module.
type object struct {
	site ssa.Value
	desc string // e.g. "make([]float64, t12)" or "global gvar1"
	pos  token.Pos
	bulk string // why its elements are bulk data, or ""
}

// loc is an abstract memory location: the whole object ("*"), all of its
// elements ("[]"), or a path into it: a field (".f2"), a field of a field
// (".f1.f0", a struct held by value in a struct), a field of the elements
// ("[].f0", a slice of structs), the elements of an array field (".f2[]").
// Two locations of one object overlap when one's path is a prefix of the
// other's (or either is "*"): a store of a whole struct writes its
// fields, a load of a whole struct reads them.
type loc struct {
	obj *object
	sel string
}

// maxPath bounds the components of a path: deeper selections (only
// conversions through unsafe.Pointer could build them) stay at the bound.
const maxPath = 8

// fieldSel is the path of field n of the memory at sel.
func fieldSel(sel string, n int) string {
	if sel == "*" {
		sel = ""
	}
	if strings.Count(sel, ".")+strings.Count(sel, "[") >= maxPath {
		return sel
	}
	return fmt.Sprintf("%s.f%d", sel, n)
}

// elemSel is the path of the elements of the memory at sel: of an array
// (an array variable, an array field) or of a slice, whose locations are
// already its elements'.
func elemSel(sel string) string {
	switch {
	case sel == "*":
		return "[]"
	case strings.HasSuffix(sel, "[]"), strings.Count(sel, ".")+strings.Count(sel, "[") >= maxPath:
		return sel
	}
	return sel + "[]"
}

// overlaps reports whether the paths x and y of one object may designate
// common memory.
func overlaps(x, y string) bool {
	return x == "*" || y == "*" || prefixPath(x, y) || prefixPath(y, x)
}

// prefixPath reports whether path x selects memory that contains y's.
func prefixPath(x, y string) bool {
	return strings.HasPrefix(y, x) && (len(y) == len(x) || y[len(x)] == '.' || y[len(x)] == '[')
}

// related returns the locations of l's object that overlap l (l among
// them), in a deterministic order.
func (a *analysis) related(l loc) []loc {
	var out []loc
	for _, sel := range a.locsOf[l.obj] {
		if overlaps(sel, l.sel) {
			out = append(out, loc{l.obj, sel})
		}
	}
	if len(out) == 0 {
		out = append(out, l)
	}
	return out
}

func (l loc) String() string { return fmt.Sprintf("%s%s", l.obj.desc, l.sel) }

type locSet map[loc]bool

// addAll adds src to *dst and reports whether *dst grew.
func addAll(dst *locSet, src locSet) bool {
	grew := false
	for l := range src {
		if !(*dst)[l] {
			if *dst == nil {
				*dst = locSet{}
			}
			(*dst)[l] = true
			grew = true
		}
	}
	return grew
}

// BulkThreshold is the number of elements above which a constant-size
// allocation counts as bulk data; any allocation whose size is not a
// constant does too.
const BulkThreshold = 4096

// objectOf returns the object of an allocation site, making it once.
func (a *analysis) objectOf(site ssa.Value, desc string) *object {
	if o := a.objects[site]; o != nil {
		return o
	}
	o := &object{site: site, desc: desc, pos: site.Pos()}
	if elemHoldsPointers(site.Type()) {
		// Elements that are slices, maps or pointers are structure, not
		// bulk numbers: what they point to is followed instead.
		a.objects[site] = o
		return o
	}
	switch s := site.(type) {
	case *ssa.MakeSlice:
		if c, ok := s.Len.(*ssa.Const); !ok {
			if a.problemSized(s.Len, 8) {
				o.bulk = fmt.Sprintf("the contents of %s, whose size depends on the problem", a.describe(site))
			}
		} else if c.Int64() > BulkThreshold {
			o.bulk = fmt.Sprintf("the contents of %s, a large allocation", a.describe(site))
		}
	case *ssa.Alloc:
		if arr, ok := s.Type().(*types.Pointer).Elem().Underlying().(*types.Array); ok && arr.Len() > BulkThreshold {
			o.bulk = fmt.Sprintf("the contents of %s, a large array", a.describe(site))
		}
	}
	a.objects[site] = o
	return o
}

// pointsTo runs the points-to analysis to a fixed point.
func (a *analysis) pointsTo() {
	// Globals designate themselves.
	for _, fn := range a.fns {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				var ops []*ssa.Value
				for _, op := range instr.Operands(ops) {
					if g, ok := (*op).(*ssa.Global); ok {
						a.addLoc(g, loc{a.objectOf(g, "global "+g.Name()), "*"})
					}
				}
			}
		}
	}
	for changed := true; changed; {
		changed = false
		for _, fn := range a.fns {
			for _, b := range fn.Blocks {
				for _, instr := range b.Instrs {
					a.at = instr.Pos()
					if a.ptsInstr(fn, instr) {
						changed = true
					}
				}
			}
		}
	}
}

// flow adds the locations of src to those of dst.
func (a *analysis) flow(dst, src ssa.Value) bool {
	if src == nil || len(a.pts[src]) == 0 {
		return false
	}
	s := a.pts[dst]
	grew := addAll(&s, a.pts[src])
	a.pts[dst] = s
	return grew
}

func (a *analysis) addLoc(v ssa.Value, l loc) bool {
	s := a.pts[v]
	if s[l] {
		return false
	}
	a.intern(l)
	if s == nil {
		s = locSet{}
	}
	s[l] = true
	a.pts[v] = s
	return true
}

// reselect adds to dst, for every location of src, the location that
// path(its selector) designates in its object.
func (a *analysis) reselect(dst, src ssa.Value, path func(string) string) bool {
	grew := false
	for l := range a.pts[src] {
		if a.addLoc(dst, loc{l.obj, path(l.sel)}) {
			grew = true
		}
	}
	return grew
}

// ptsInstr applies the points-to rule of one instruction.
func (a *analysis) ptsInstr(fn *ssa.Function, instr ssa.Instruction) bool {
	switch v := instr.(type) {
	case *ssa.Alloc:
		sel := "*"
		if _, ok := v.Type().(*types.Pointer).Elem().Underlying().(*types.Array); ok {
			sel = "[]"
		}
		return a.addLoc(v, loc{a.objectOf(v, a.describe(v)), sel})
	case *ssa.MakeSlice, *ssa.MakeMap, *ssa.MakeChan:
		val := v.(ssa.Value)
		return a.addLoc(val, loc{a.objectOf(val, a.describe(val)), "[]"})
	case *ssa.FieldAddr:
		return a.reselect(v, v.X, func(sel string) string { return fieldSel(sel, v.Field) })
	case *ssa.IndexAddr:
		return a.reselect(v, v.X, elemSel)
	case *ssa.Slice:
		return a.reselect(v, v.X, elemSel)
	case *ssa.Field:
		if ld := loadedStruct(v.X); ld != nil {
			// A field of a struct loaded from memory holds what was
			// stored at that field's path (or around it), not what the
			// struct's other fields hold.
			grew := false
			for l := range a.pts[ld.X] {
				f := loc{l.obj, fieldSel(l.sel, v.Field)}
				a.intern(f)
				if a.loadFrom(v, f) {
					grew = true
				}
			}
			return grew
		}
		return a.flow(v, v.X)
	case *ssa.Index:
		return a.flow(v, v.X)
	case *ssa.UnOp:
		if v.Op == token.MUL { // load: of what was stored there, in a whole or in parts
			grew := false
			for l := range a.pts[v.X] {
				if a.loadFrom(v, l) {
					grew = true
				}
			}
			return grew
		}
		return a.flow(v, v.X)
	case *ssa.Store:
		if ld := loadedStruct(v.Val); ld != nil {
			return a.copyPaths(v.Addr, ld.X)
		}
		grew := false
		for l := range a.pts[v.Addr] {
			c := a.contents[l]
			if addAll(&c, a.pts[v.Val]) {
				a.contents[l] = c
				grew = true
			}
		}
		return grew
	case *ssa.Phi:
		grew := false
		for _, e := range v.Edges {
			if a.flow(v, e) {
				grew = true
			}
		}
		return grew
	case *ssa.Convert, *ssa.ChangeType, *ssa.MakeInterface, *ssa.ChangeInterface, *ssa.TypeAssert,
		*ssa.Extract, *ssa.SliceToArrayPointer, *ssa.MultiConvert:
		grew := false
		var ops []*ssa.Value
		for _, op := range instr.Operands(ops) {
			if *op != nil && a.flow(v.(ssa.Value), *op) {
				grew = true
			}
		}
		return grew
	case *ssa.Lookup:
		return a.flow(v, v.X)
	case *ssa.MakeClosure:
		grew := false
		if callee, ok := v.Fn.(*ssa.Function); ok && a.analyzed[callee] {
			for i, b := range v.Bindings {
				if a.flow(callee.FreeVars[i], b) {
					grew = true
				}
			}
		}
		return grew
	case ssa.CallInstruction:
		return a.ptsCall(v)
	case *ssa.Return:
		grew := false
		for _, r := range v.Results {
			if a.flow(a.resultsOf(fn), r) {
				grew = true
			}
		}
		return grew
	}
	return false
}

// appendContents adds to the elements of obj, an append's result, the
// contents of the elements of src, the slice appended.
func (a *analysis) appendContents(obj *object, src ssa.Value) bool {
	grew := false
	for s := range a.pts[src] {
		for _, r := range a.related(s) {
			if !prefixPath(s.sel, r.sel) || len(a.contents[r]) == 0 {
				continue
			}
			d := loc{obj, "[]" + r.sel[len(s.sel):]}
			a.intern(d)
			if a.addContents(d, r) {
				grew = true
			}
		}
	}
	return grew
}

// loadFrom adds to what v points to what was stored at l, in a whole or
// in parts (every location that overlaps it).
func (a *analysis) loadFrom(v ssa.Value, l loc) bool {
	grew := false
	for _, r := range a.related(l) {
		s := a.pts[v]
		if addAll(&s, a.contents[r]) {
			a.pts[v] = s
			grew = true
		}
	}
	return grew
}

// addContents adds what from holds to what to holds.
func (a *analysis) addContents(to, from loc) bool {
	c := a.contents[to]
	if !addAll(&c, a.contents[from]) {
		return false
	}
	a.contents[to] = c
	return true
}

// loadedStruct returns the load that v is when v is a struct value loaded
// from memory (its fields' contents can be told apart there), else nil.
func loadedStruct(v ssa.Value) *ssa.UnOp {
	ld, ok := v.(*ssa.UnOp)
	if !ok || ld.Op != token.MUL {
		return nil
	}
	if _, ok := ld.Type().Underlying().(*types.Struct); !ok {
		return nil
	}
	return ld
}

// copyPaths adds to the memory dst points to what the memory src points
// to holds, path by path (a struct copied whole: each field's contents go
// to the same field, and what was stored around it, to around it).
func (a *analysis) copyPaths(dst, src ssa.Value) bool {
	grew := false
	for d := range a.pts[dst] {
		for s := range a.pts[src] {
			for _, r := range a.related(s) {
				if len(a.contents[r]) == 0 {
					continue
				}
				to := d
				if sub := wholeless(s.sel); r.sel != s.sel && (sub == "" || prefixPath(sub, r.sel)) {
					to = loc{d.obj, wholeless(d.sel) + r.sel[len(sub):]}
					a.intern(to)
				}
				if a.addContents(to, r) {
					grew = true
				}
			}
		}
	}
	return grew
}

// wholeless is path sel as the prefix of the paths below it: "" for the
// whole object ("*"), whose fields' paths are ".f0", ….
func wholeless(sel string) string {
	if sel == "*" {
		return ""
	}
	return sel
}

// intern adds l's path to the paths of its object (related's index).
func (a *analysis) intern(l loc) {
	if sels := a.locsOf[l.obj]; !slices.Contains(sels, l.sel) {
		i, _ := slices.BinarySearch(sels, l.sel)
		a.locsOf[l.obj] = slices.Insert(sels, i, l.sel)
	}
}

// resultsOf returns a stand-in value collecting what fn may return.
func (a *analysis) resultsOf(fn *ssa.Function) ssa.Value {
	r := a.results[fn]
	if r == nil {
		r = &resultValue{fn: fn}
		a.results[fn] = r
	}
	return r
}

// ptsCall applies the points-to rules of a call.
func (a *analysis) ptsCall(call ssa.CallInstruction) bool {
	cc := call.Common()
	grew := false
	if b, ok := cc.Value.(*ssa.Builtin); ok {
		v := call.Value()
		switch b.Name() {
		case "append":
			if v != nil {
				if a.flow(v, cc.Args[0]) {
					grew = true
				}
				obj := a.objectOf(v, "append at "+a.where(v.Pos()))
				if a.addLoc(v, loc{obj, "[]"}) {
					grew = true
				}
				// What the appended elements hold (pointers in them: a
				// struct's slices) is what the result's elements hold,
				// path by path below the elements.
				if len(cc.Args) > 1 && a.appendContents(obj, cc.Args[1]) {
					grew = true
				}
			}
		case "copy":
			for d := range a.pts[cc.Args[0]] {
				for s := range a.pts[cc.Args[1]] {
					for _, r := range a.related(s) {
						if a.addContents(d, r) {
							grew = true
						}
					}
				}
			}
		}
		return grew
	}
	targets := a.callees[call]
	for _, t := range targets {
		args := cc.Args
		if cc.IsInvoke() {
			args = append([]ssa.Value{cc.Value}, args...)
		}
		for i, p := range t.Params {
			if i < len(args) && a.flow(p, args[i]) {
				grew = true
			}
		}
		if v := call.Value(); v != nil && a.flow(v, a.resultsOf(t)) {
			grew = true
		}
	}
	if len(targets) == 0 {
		// Outside the module: what it returns is a fresh object per call site.
		if v := call.Value(); v != nil && pointerLike(v.Type()) {
			if a.addLoc(v, loc{a.objectOf(v, a.callName(cc)+" at "+a.where(v.Pos())), "*"}) {
				grew = true
			}
		}
	}
	return grew
}

// isMap reports whether t is a map type.
func isMap(t types.Type) bool {
	_, ok := t.Underlying().(*types.Map)
	return ok
}

// pointerLike reports whether values of t can designate memory.
func pointerLike(t types.Type) bool {
	switch u := t.Underlying().(type) {
	case *types.Pointer, *types.Slice, *types.Map, *types.Chan, *types.Interface, *types.Signature:
		return true
	case *types.Tuple:
		for i := range u.Len() {
			if pointerLike(u.At(i).Type()) {
				return true
			}
		}
	case *types.Struct:
		for i := range u.NumFields() {
			if pointerLike(u.Field(i).Type()) {
				return true
			}
		}
	}
	return false
}

// resultValue stands for the results of a function in the analysis maps.
type resultValue struct {
	ssa.Value
	fn *ssa.Function
}

// problemSized reports whether an allocation size may depend on the
// problem: anything but constants and the number of ranks (per-rank
// tables of counts and displacements are control data, not bulk). A
// parameter is the size its callers pass (a partition table made by a
// helper that is given np).
func (a *analysis) problemSized(v ssa.Value, depth int) bool {
	if depth == 0 {
		return true
	}
	switch v := v.(type) {
	case *ssa.Const:
		return false
	case *ssa.BinOp:
		return a.problemSized(v.X, depth-1) || a.problemSized(v.Y, depth-1)
	case *ssa.Convert:
		return a.problemSized(v.X, depth-1)
	case *ssa.Call:
		if f := v.Call.StaticCallee(); f != nil && isCommlib(f) {
			switch opName(f) {
			case "Comm.Size", "Pool.Size":
				return false
			}
		}
	case *ssa.Parameter:
		fn := v.Parent()
		i := slices.Index(fn.Params, v)
		callers := a.callers[fn]
		if i < 0 || len(callers) == 0 || len(a.closures[fn]) > 0 {
			return true
		}
		for _, call := range callers {
			cc := call.Common()
			args := cc.Args
			if cc.IsInvoke() {
				args = append([]ssa.Value{cc.Value}, args...)
			}
			if cc.StaticCallee() != fn || i >= len(args) || a.problemSized(args[i], depth-1) {
				return true
			}
		}
		return false
	}
	return true
}

// elemHoldsPointers reports whether the elements of the memory an
// allocation of type t designates can hold pointers.
func elemHoldsPointers(t types.Type) bool {
	switch u := t.Underlying().(type) {
	case *types.Slice:
		return pointerLike(u.Elem())
	case *types.Pointer:
		if arr, ok := u.Elem().Underlying().(*types.Array); ok {
			return pointerLike(arr.Elem())
		}
		return pointerLike(u.Elem())
	}
	return false
}
