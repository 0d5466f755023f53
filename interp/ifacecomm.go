// This file defines commlib calls through interfaces: a *commlib.Comm (or
// another commlib value) held in an interface of the program's and called
// through it. The call's static form names only the interface's method,
// so each commlib method it may reach is compiled as a call of that
// operation, its receiver in a hidden slot of the frame that the call
// fills with the interface's dynamic value before running it.

package interp

import (
	"github.com/predict-tools/predict/modelgen"
	"golang.org/x/tools/go/ssa"
)

// ifaceCommlib compiles, for an invoke call in, an op per commlib method
// the interface's method may reach, and returns them with the hidden slot
// that holds the receiver (nil when none may be reached).
func (c *compiler) ifaceCommlib(cf *function, in *ssa.Call, args []operand, dst int, site string) (map[*ssa.Function]op, int) {
	var ops map[*ssa.Function]op
	slot := -1
	for _, fn := range modelgen.CommlibMethods(c.l.Prog, &in.Call) {
		name := modelgen.CommlibOp(fn)
		if name == "Comm.Abort" {
			continue // Abort reads its argument's SSA value: called directly only
		}
		if slot < 0 {
			slot = cf.nslots
			cf.nslots++
		}
		if ops == nil {
			ops = map[*ssa.Function]op{}
		}
		ops[fn] = c.opaqueArgs(cf, in, site, name, append([]operand{{slot: slot}}, args...), func(args []operand) op { return c.commlib(cf, in, name, args, dst, site) })
	}
	return ops, slot
}
