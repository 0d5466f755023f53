// This file defines the opaque arguments of communication: a peer, a tag,
// a root, a count or a buffer's length that depends on data the model
// does not compute.

package reduce

import (
	"fmt"
	"go/types"
	"slices"
	"strconv"

	"golang.org/x/tools/go/ssa"
)

// OpaqueArg is an argument of a commlib call that shapes its
// communication and depends on data the model does not compute (random
// numbers, input, message contents, bulk data). The reduced model does not
// keep it: the timing pass records its values per rank and the
// interpreter replays them at the profile's np (ReplayParts); elsewhere
// the interpreter passes zero in its place, and says so.
type OpaqueArg struct {
	Index int     // its position among the call's arguments (0: the receiver of a method)
	Of    ArgPart // what of it shapes the communication: its value, its length or its elements
	// Value is the argument, as the call passes it (a buffer made an
	// interface, a method's receiver bound by its wrapper).
	Value ssa.Value
	// Received: a buffer the call receives into only (not a Bcast's,
	// which the root sends). Its length decides nothing the sender's does
	// not (the message is the sender's); a receive buffer the model does
	// not compute takes what arrives.
	Received bool
	What     string // what of it shapes the communication: "Comm.Send's dest", "the length of Comm.Bcast's buf"
	Reason   string // what it depends on, as the reduction report says
}

// ArgPart is what of an argument shapes the communication.
type ArgPart string

// The parts of an argument, in the order of what a record of them holds.
const (
	ArgValue    ArgPart = "value"    // an integer (a peer, a tag, a count), or a slice as a whole
	ArgLength   ArgPart = "length"   // a buffer's length: the message size
	ArgElements ArgPart = "elements" // a slice's elements (counts, displacements), with its length
)

// partPrefix is how a report names a part: "the length of Comm.Bcast's buf".
var partPrefix = map[ArgPart]string{ArgValue: "", ArgLength: "the length of ", ArgElements: "the elements of "}

// Wider reports whether a record of p holds more than one of q: the
// elements (with the length) over the length over the value.
func (p ArgPart) Wider(q ArgPart) bool {
	rank := map[ArgPart]int{ArgValue: 1, ArgLength: 2, ArgElements: 3}
	return rank[p] > rank[q]
}

// String says what the argument depends on: "the length of Comm.Bcast's
// buf depends on random numbers (...)".
func (a OpaqueArg) String() string {
	verb := " depends on "
	if a.Of == ArgElements {
		verb = " depend on "
	}
	return a.What + verb + a.Reason
}

// ReplayParts returns, by argument index, what the timing pass records of
// the opaque arguments of call and the interpreter replays: the widest
// part wanted of each, buffers only received into left out.
func (p *Plan) ReplayParts(call ssa.CallInstruction) map[int]ArgPart {
	var parts map[int]ArgPart
	for _, a := range p.OpaqueArgs(call) {
		if a.Received || !a.Of.Wider(parts[a.Index]) {
			continue
		}
		if parts == nil {
			parts = map[int]ArgPart{}
		}
		parts[a.Index] = a.Of
	}
	return parts
}

// OpaqueArgs returns the arguments of call that are opaque, in the order
// of the operation's argument roles.
func (p *Plan) OpaqueArgs(call ssa.CallInstruction) []OpaqueArg {
	if p == nil {
		return nil
	}
	return p.opaqueArgs[call]
}

// opaqueArg records that argument i of the commlib call, v, is opaque
// (of part of it) because of why; an empty why records nothing. f is the
// commlib function it calls (through an interface too: unwrapMethod).
func (a *analysis) opaqueArg(call ssa.CallInstruction, f *ssa.Function, i int, v ssa.Value, part ArgPart, why string) {
	if why == "" {
		return
	}
	name := opName(f) + "'s argument " + strconv.Itoa(i)
	sig, j := f.Signature, i
	if sig.Recv() != nil {
		j-- // position 0 is the receiver
	}
	if j >= 0 && j < sig.Params().Len() && sig.Params().At(j).Name() != "" {
		name = opName(f) + "'s " + sig.Params().At(j).Name()
	}
	if a.opaqueArgs == nil {
		a.opaqueArgs = map[ssa.CallInstruction][]OpaqueArg{}
	}
	spec := commSpecs[opName(f)]
	a.opaqueArgs[call] = append(a.opaqueArgs[call], OpaqueArg{Index: i, Of: part, Value: v, What: partPrefix[part] + name, Reason: why,
		Received: slices.Contains(spec.recvBufs, i) && !slices.Contains(spec.sendBufs, i)})
}

// argExpr renders an argument of a commlib call for the report: a buffer
// by how it is made and sliced, other values as expr does.
func (a *analysis) argExpr(v ssa.Value) string {
	switch v := v.(type) {
	case *ssa.MakeInterface:
		return a.argExpr(v.X)
	case *ssa.MakeSlice:
		return fmt.Sprintf("make(%s, %s)", v.Type(), a.expr(v.Len, 2))
	case *ssa.Alloc:
		if arr, ok := v.Type().(*types.Pointer).Elem().Underlying().(*types.Array); ok && v.Comment == "makeslice" {
			return fmt.Sprintf("make([]%s, %d)", arr.Elem(), arr.Len())
		}
	case *ssa.Slice:
		if x, ok := v.X.(*ssa.Alloc); ok && x.Comment == "makeslice" {
			return a.argExpr(x) // make with a constant length: an array, sliced whole
		}
		var lo, hi string
		if v.Low != nil {
			lo = a.expr(v.Low, 2)
		}
		if v.High != nil {
			hi = a.expr(v.High, 2)
		}
		return a.argExpr(v.X) + "[" + lo + ":" + hi + "]"
	}
	return a.expr(v, 3)
}
