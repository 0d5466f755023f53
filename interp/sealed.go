// This file defines the calls the reduction sealed (reduce/sealcall.go,
// sealdyn.go): of recursions and through values the model does not
// compute. The interpreter never enters them; their time is their
// caller's fragment's.

package interp

import (
	"fmt"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// sealedOp is a call the reduction sealed: it returns zero values (nothing
// of them is kept) and, at an np other than the profile's, says once that
// its time is the timing pass's, scaled by no argument but the bytes of
// the slices it is handed.
func (c *compiler) sealedOp(in *ssa.Call, dst int, site string) op {
	t := in.Type()
	name := c.calleeName(in)
	return func(p *proc, fr *frame) ctl {
		if w := p.w; w.prof != nil && w.cfg.NP != w.prof.NP {
			if _, noted := w.assumptions[site]; !noted {
				w.noteAssumption(site, fmt.Sprintf("%s, which the model never enters (sealed), is charged in its caller's fragment as the timing pass measured it at np=%d, in proportion to the bytes of the slices it is handed where the run says so: work that follows its other arguments is not scaled", name, w.prof.NP))
			}
		}
		return set(fr, dst, sealedResult(t))
	}
}

// sealedResult is the zero result of a call of a sealed function: a
// tuple of zero values for several results.
func sealedResult(t types.Type) V {
	tup, ok := t.(*types.Tuple)
	if !ok {
		return zeroOf(t)
	}
	vs := make(tuple, tup.Len())
	for i := range vs {
		vs[i] = zeroOf(tup.At(i).Type())
	}
	return V{R: vs}
}
