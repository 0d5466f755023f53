// This file defines what the timing pass does with the calls the
// reduction sealed (reduce/sealcall.go, sealdyn.go): their functions get
// no probes, and a statement calling one is not a control point, so that
// the call is timed in its caller's straight-line fragment.

package estimator

import (
	"github.com/predict-tools/predict/model"
	"golang.org/x/tools/go/ssa"
)

// planSealed records the functions the model never enters.
func (in *instrumenter) planSealed(prog *model.Program, ssaOf map[*model.Function]*ssa.Function) {
	in.sealed = map[string]bool{}
	for _, f := range prog.Functions {
		if fn := ssaOf[f]; fn != nil && in.loops.Sealed(fn) != "" {
			in.sealed[f.ID] = true
		}
	}
}

// sealedCall reports whether lf, a call of the program's, is one the model
// never follows: of a sealed recursion, or through a function value it
// does not compute (reduce/sealcall.go, sealdyn.go).
func (in *instrumenter) sealedCall(lf *model.Leaf, fc *funcCtx) bool {
	if !lf.Dynamic {
		return in.sealed[lf.Callee]
	}
	call, ok := fc.fn.Blocks[lf.Block].Instrs[lf.First].(*ssa.Call)
	return ok && in.loops.SealedCall(call) != ""
}
