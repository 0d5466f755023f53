// This file defines the opaque arguments of communication: a peer, a tag,
// a root, a count or a buffer's length that depends on data the model
// does not compute.

package reduce

import (
	"fmt"
	"go/types"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// OpaqueArg is an argument of a commlib call that shapes its
// communication and depends on data the model does not compute (random
// numbers, input, message contents, bulk data). The reduced model does not
// keep it, and the timing pass does not record it: the interpreter passes
// zero in its place, and says so.
type OpaqueArg struct {
	Index int     // its position among the call's arguments (0: the receiver of a method)
	Of    ArgPart // what of it shapes the communication: its value, its length or its elements
	// Received: a buffer the call receives into only (not a Bcast's,
	// which the root sends). Its length decides
	// nothing the sender's does not (the message is the sender's); a
	// receive buffer the model does not compute takes what arrives.
	Received bool
	What     string // what of it shapes the communication: "Comm.Send's dest", "the length of Comm.Bcast's buf"
	Reason   string // what it depends on, as the reduction report says
}

// ArgPart is what of an argument shapes the communication.
type ArgPart string

// The parts of an argument.
const (
	ArgValue    ArgPart = "value"    // an integer (a peer, a tag, a count), or a slice as a whole
	ArgLength   ArgPart = "length"   // a buffer's length: the message size
	ArgElements ArgPart = "elements" // a slice's elements (counts, displacements)
)

// String says what the argument depends on: "the length of Comm.Bcast's
// buf depends on random numbers (...)".
func (a OpaqueArg) String() string {
	verb := " depends on "
	if strings.HasPrefix(a.What, "the elements of ") {
		verb = " depend on "
	}
	return a.What + verb + a.Reason
}

// OpaqueArgs returns the arguments of call that are opaque, in the order
// of the operation's argument roles.
func (p *Plan) OpaqueArgs(call ssa.CallInstruction) []OpaqueArg {
	if p == nil {
		return nil
	}
	return p.opaqueArgs[call]
}

// opaqueArg records that argument i of the commlib call is opaque (of
// its value, or with what, of its length or elements) because of why; an
// empty why records nothing.
func (a *analysis) opaqueArg(call ssa.CallInstruction, i int, what, why string) {
	if why == "" {
		return
	}
	f := call.Common().StaticCallee()
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
	of := ArgValue
	switch what {
	case "the length of ":
		of = ArgLength
	case "the elements of ":
		of = ArgElements
	}
	a.opaqueArgs[call] = append(a.opaqueArgs[call], OpaqueArg{Index: i, Of: of, What: what + name, Reason: why,
		Received: slices.Contains(commSpecs[opName(f)].recvBufs, i) && !slices.Contains(commSpecs[opName(f)].sendBufs, i)})
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
